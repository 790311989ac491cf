"""The fewest presses that play a given play on the hand keyboard (issue 10 item 4), found by
trying every sequence of rank taps the way :mod:`bot.core.selection` answers them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import product

from bot.core import selection as sel
from engine import Play

PLAY = "play"
OFFER = "offer"


def taps_to_play(hand: Sequence[int], legal: Iterable[Play], leading: bool, target: Play,
                 most: int = 3) -> tuple[int, list] | None:
    """``(presses, [rank, …, "play" | "offer"])``: the fewest presses (rank taps, then 出牌 or
    the offered play) that play ``target``'s cards; ``None`` if it takes more than ``most``."""
    legal = list(legal)
    legal_cards = {p.cards for p in legal}
    ranks = sorted(set(hand))
    for n_taps in range(most):
        for taps in product(ranks, repeat=n_taps):
            chosen: list[int] = []
            for rank in taps:
                chosen = sel.tap(hand, chosen, rank)
            if tuple(chosen) == target.cards and target.cards in legal_cards:
                return n_taps + 1, [*taps, PLAY]
            if any(p.cards == target.cards for p in sel.offers(chosen, legal, leading=leading)):
                return n_taps + 1, [*taps, OFFER]
    return None
