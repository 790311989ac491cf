"""Cards, ranks and the deck (RULES.md §1).

Two encodings, both plain ``int`` for speed:

* A **rank** is ``0..14``: ``3 4 5 6 7 8 9 T J Q K A 2 X D`` in that order
  (``X`` small joker, ``D`` big joker). Comparison uses ranks only (RULES.md §6).
* A **card** is ``0..53``: ``card // 4`` is the rank and ``card % 4`` the suit for the 52
  suited cards; ``52`` is the small joker and ``53`` the big joker. Suits exist only for
  display and for dealing a real deck (RULES.md §1.1).

>>> parse_ranks("10jq")
(7, 8, 9)
>>> format_ranks((14, 0, 0))
'33D'
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

RANK_CHARS = "3456789TJQKA2XD"
RANK_COUNT = 15
SMALL_JOKER = 13
BIG_JOKER = 14
TWO = 12
ACE = 11
#: Highest rank that may stand in a straight, pair chain or plane body (RULES.md §5).
CHAIN_MAX = ACE

SUITS = ("spades", "hearts", "clubs", "diamonds")
#: Ranks as people read them (GLOSSARY.md): ``10`` rather than ``T``.
RANK_LABELS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "X", "D")

DECK: tuple[int, ...] = tuple(range(54))

_CHAR_TO_RANK = {c: i for i, c in enumerate(RANK_CHARS)}


class CardError(ValueError):
    """A card string or card list that is not part of one 54-card deck."""


def card_rank(card: int) -> int:
    """Rank ``0..14`` of a card ``0..53``."""
    return card >> 2 if card < 52 else card - 39


def card_suit(card: int) -> str | None:
    """Suit name of a card, or ``None`` for a joker."""
    return SUITS[card & 3] if card < 52 else None


def parse_ranks(text: str, *, decks: int = 1) -> tuple[int, ...]:
    """Parse a card string such as ``"33344456"`` into sorted ranks.

    Accepts ``3456789TJQKA2XD``, lower case, ``10`` for ten, and ignores spaces and commas.

    Raises:
        CardError: an unknown character, or more copies of a rank than ``decks`` decks hold
            (4 per deck for 3…2, 1 per deck for each joker).
    """
    if not isinstance(text, str):
        raise CardError("cards must be a string")
    ranks: list[int] = []
    s = text.upper().replace("10", "T")
    for ch in s:
        if ch in " ,":
            continue
        rank = _CHAR_TO_RANK.get(ch)
        if rank is None:
            raise CardError(f"unknown card {ch!r}")
        ranks.append(rank)
    ranks.sort()
    check_ranks(ranks, decks=decks)
    return tuple(ranks)


def check_ranks(ranks: Sequence[int], *, decks: int = 1) -> None:
    """Raise :class:`CardError` unless ``ranks`` could come from ``decks`` decks."""
    counts = [0] * RANK_COUNT
    for r in ranks:
        if not isinstance(r, int) or not 0 <= r < RANK_COUNT:
            raise CardError(f"unknown rank {r!r}")
        counts[r] += 1
    for r, c in enumerate(counts):
        limit = decks if r >= SMALL_JOKER else 4 * decks
        if c > limit:
            raise CardError(f"too many {RANK_CHARS[r]}: {c} (at most {limit})")


def format_ranks(ranks: Iterable[int]) -> str:
    """Canonical card string: ranks sorted low to high, e.g. ``'33344456'``."""
    return "".join(RANK_CHARS[r] for r in sorted(ranks))


def rank_counts(ranks: Iterable[int]) -> list[int]:
    """Count vector of length 15: ``counts[rank]`` copies of each rank."""
    counts = [0] * RANK_COUNT
    for r in ranks:
        counts[r] += 1
    return counts


def cards_to_ranks(cards: Iterable[int]) -> tuple[int, ...]:
    """Sorted ranks of the given cards."""
    return tuple(sorted(card_rank(c) for c in cards))


def shuffled_deck(rng: random.Random, *, decks: int = 1) -> list[int]:
    """A shuffled deck of ``54 × decks`` cards (card ids repeat when ``decks > 1``)."""
    deck = [c for _ in range(decks) for c in DECK]
    rng.shuffle(deck)
    return deck
