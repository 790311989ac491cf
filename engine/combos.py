"""Combinations (RULES.md §5) and what beats what (RULES.md §6).

A :class:`Play` is one reading of a set of cards: its type, main rank and chain length.
:func:`classify` lists every reading of a set of cards (the four-player game's, RULES.md §11,
when ``rules.variant == "four"``), :func:`beats` and :func:`beat_reason` compare two plays
(both defined in :mod:`engine.play`, for both games, and re-exported here).

>>> from engine.cards import parse_ranks
>>> [(p.type.value, p.main_char, p.n) for p in classify(parse_ranks("33344456"))]
[('plane_single', '4', 2)]
>>> beats(classify(parse_ranks("4445"))[0], classify(parse_ranks("3339"))[0])
True
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import (
    BIG_JOKER,
    CHAIN_MAX,
    RANK_COUNT,
    SMALL_JOKER,
)
from engine.four.reader import classify_four
from engine.play import ComboType, Play, beat_reason, beats, body_size, play_groups
from engine.presets import SCORE, Rules

__all__ = [
    "ComboType",
    "Play",
    "beat_reason",
    "beats",
    "body_size",
    "classify",
    "play_groups",
]

#: Length limits of RULES.md §5 (number of groups), as ``range`` objects.
STRAIGHT_LENGTHS = range(5, 13)
PAIR_CHAIN_LENGTHS = range(3, 11)
PLANE_LENGTHS = range(2, 7)
PLANE_SINGLE_LENGTHS = range(2, 6)
PLANE_PAIR_LENGTHS = range(2, 5)

_T = ComboType


def _reading_order(play: Play) -> tuple[int, str]:
    return (-body_size(play), play.type.value)


def _is_run(counts: list[int], low: int, n: int, size: int) -> bool:
    """True if ranks ``low .. low+n-1`` are chain ranks each held exactly ``size`` times."""
    high = low + n - 1
    if high > CHAIN_MAX:
        return False
    return all(counts[r] == size for r in range(low, high + 1))


def _adjacent(rank: int, low: int, n: int) -> bool:
    """RULES.md §5: a kicker trio is adjacent to a body ``low..low+n-1``; 2s never are."""
    return rank == low - 1 or (rank == low + n and rank <= CHAIN_MAX)


def _single_wings_ok(counts: list[int], low: int, n: int, rules: Rules) -> bool:
    """Kicker cards of a plane_single with body ``low..low+n-1`` (RULES.md §5)."""
    if counts[SMALL_JOKER] and counts[BIG_JOKER] and not rules.rocket_kickers:
        return False
    for r in range(RANK_COUNT):
        if low <= r < low + n:
            continue
        k = counts[r]
        if k == 4 or (k == 3 and _adjacent(r, low, n)):
            return False
    return True


def classify(ranks: Sequence[int], rules: Rules = SCORE) -> list[Play]:
    """Every reading of a set of cards as a combination (RULES.md §5), ``[]`` if there is none.

    ``ranks`` are ranks ``0..14`` in any order, from one deck (use
    :func:`engine.cards.check_ranks` on untrusted input). Kicker rules are those of RULES.md §5:
    kickers never share a rank with the body, never hold four of a rank, the two jokers are
    never kickers together (unless ``rules.rocket_kickers``); plane_single wings may be a pair
    or a trio not adjacent to the body (a trio of 2s is adjacent to nothing).

    With the house option ``rules.four_two_is_bomb`` a four with two kickers is read as a
    ``bomb`` (main rank = the four's rank) instead of ``four_two_singles``/``four_two_pairs``:
    it then beats every non-bomb and compares with other bombs by rank (RULES.md §6).

    Readings are ordered longest body first, then by type name (the judge protocol).

    Under the four-player rules (``rules.variant == "four"``) the reader of RULES.md §11 is used
    instead (:func:`engine.four.reader.classify_four`); its ``ranks`` may hold two decks.

    >>> from engine.cards import parse_ranks
    >>> [(p.type.value, p.main_char, p.n) for p in classify(parse_ranks("333444555666"))]
    [('plane', '6', 4)]
    >>> classify(parse_ranks("3333XD"))
    []
    """
    if rules.variant == "four":
        return classify_four(ranks)
    cards = tuple(sorted(ranks))
    size = len(cards)
    if not size:
        return []
    counts = [0] * RANK_COUNT
    for r in cards:
        counts[r] += 1
    present = [r for r in range(RANK_COUNT) if counts[r]]
    low, high = present[0], present[-1]
    shape = sorted((counts[r] for r in present), reverse=True)
    out: list[Play] = []

    def add(kind: ComboType, main: int, n: int = 1) -> None:
        out.append(Play(kind, main, n, cards))

    if len(present) == 1:
        if size == 1:
            add(_T.SINGLE, low)
        elif size == 2 and low < SMALL_JOKER:
            add(_T.PAIR, low)
        elif size == 3:
            add(_T.TRIO, low)
        elif size == 4:
            add(_T.BOMB, low)
    if cards == (SMALL_JOKER, BIG_JOKER):
        add(_T.ROCKET, BIG_JOKER)
    if shape == [3, 1] or shape == [3, 2]:
        trio = next(r for r in present if counts[r] == 3)
        add(_T.TRIO_SINGLE if size == 4 else _T.TRIO_PAIR, trio)
    chain = high - low + 1 == len(present) and high <= CHAIN_MAX
    if chain and shape[0] == shape[-1]:
        group, n = shape[0], len(present)
        if group == 1 and n in STRAIGHT_LENGTHS:
            add(_T.STRAIGHT, high, n)
        elif group == 2 and n in PAIR_CHAIN_LENGTHS:
            add(_T.PAIR_CHAIN, high, n)
        elif group == 3 and n in PLANE_LENGTHS:
            add(_T.PLANE, high, n)
    if shape[0] == 4 and size in (6, 8):
        four = next(r for r in present if counts[r] == 4)
        kickers = [counts[r] for r in present if r != four]
        jokers = counts[SMALL_JOKER] and counts[BIG_JOKER]
        if size == 6 and (not jokers or rules.rocket_kickers):
            add(_T.BOMB if rules.four_two_is_bomb else _T.FOUR_TWO_SINGLES, four)
        elif size == 8 and kickers == [2, 2]:
            add(_T.BOMB if rules.four_two_is_bomb else _T.FOUR_TWO_PAIRS, four)
    if size % 4 == 0 and size // 4 in PLANE_SINGLE_LENGTHS:
        n = size // 4
        for body in range(CHAIN_MAX - n + 2):
            if _is_run(counts, body, n, 3) and _single_wings_ok(counts, body, n, rules):
                add(_T.PLANE_SINGLE, body + n - 1, n)
    if size % 5 == 0 and size // 5 in PLANE_PAIR_LENGTHS:
        n = size // 5
        for body in range(CHAIN_MAX - n + 2):
            if _is_run(counts, body, n, 3):
                wings = [counts[r] for r in present if not body <= r < body + n]
                if wings == [2] * n:
                    add(_T.PLANE_PAIR, body + n - 1, n)
    out.sort(key=_reading_order)
    return out
