"""Combinations (RULES.md §5) and what beats what (RULES.md §6).

A :class:`Play` is one reading of a set of cards: its type, main rank and chain length.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine.cards import RANK_CHARS, format_ranks


class ComboType(str, Enum):
    """The 14 combination types of RULES.md §5, named as the judge protocol names them."""

    SINGLE = "single"
    PAIR = "pair"
    TRIO = "trio"
    TRIO_SINGLE = "trio_single"
    TRIO_PAIR = "trio_pair"
    STRAIGHT = "straight"
    PAIR_CHAIN = "pair_chain"
    PLANE = "plane"
    PLANE_SINGLE = "plane_single"
    PLANE_PAIR = "plane_pair"
    FOUR_TWO_SINGLES = "four_two_singles"
    FOUR_TWO_PAIRS = "four_two_pairs"
    BOMB = "bomb"
    ROCKET = "rocket"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Play:
    """One reading of a set of cards (RULES.md §5).

    Attributes:
        type: the combination type.
        main: main rank ``0..14`` (RULES.md §6): the rank of a single/pair/trio/four, the highest
            rank of a chain or plane body; for a rocket, the big joker.
        n: number of consecutive groups for chains and planes, else 1.
        cards: the ranks played, sorted low to high.

    ``str(play)`` is the canonical card string, e.g. ``'33344456'``.
    """

    type: ComboType
    main: int
    n: int
    cards: tuple[int, ...]

    def __str__(self) -> str:
        return format_ranks(self.cards)

    @property
    def main_char(self) -> str:
        """The main rank as a judge character, e.g. ``'6'``."""
        return RANK_CHARS[self.main]
