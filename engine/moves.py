"""Legal plays from a hand (RULES.md §4–§6).

:func:`legal_moves` runs on every turn (hints, AI, auto-play), so it is built for speed: it
works on a 15-long count vector and generates each combination type directly, never by
enumerating subsets. Every :class:`~engine.combos.Play` it returns is shared: plays without
kickers, trios with a kicker and fours with two are built once at import, plane plays
the first time they are met, so a call mostly looks plays up instead of building them.

>>> from engine.cards import parse_ranks
>>> [str(p) for p in legal_moves(parse_ranks("33XD"))]
['3', 'X', 'D', '33', 'XD']
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations
from typing import Any

from engine.cards import BIG_JOKER, CHAIN_MAX, RANK_COUNT, SMALL_JOKER
from engine.combos import (
    PAIR_CHAIN_LENGTHS,
    PLANE_LENGTHS,
    PLANE_PAIR_LENGTHS,
    PLANE_SINGLE_LENGTHS,
    STRAIGHT_LENGTHS,
    ComboType,
    Play,
)
from engine.four.moves import legal_moves_four
from engine.presets import SCORE, Rules

__all__ = ["legal_moves"]

_T = ComboType
_RANKS = range(RANK_COUNT)
_SUITED = range(SMALL_JOKER)
_CHAIN_RANKS = range(CHAIN_MAX + 1)
#: A lookup table of plays indexed by ranks/lengths; ``None`` where no such play exists.
_Table = list[Any]

_SINGLE = [Play(_T.SINGLE, r, 1, (r,)) for r in _RANKS]
_PAIR = [Play(_T.PAIR, r, 1, (r, r)) for r in _SUITED]
_TRIO = [Play(_T.TRIO, r, 1, (r,) * 3) for r in _SUITED]
_BOMB = [Play(_T.BOMB, r, 1, (r,) * 4) for r in _SUITED]
_ROCKET = Play(_T.ROCKET, BIG_JOKER, 1, (SMALL_JOKER, BIG_JOKER))

#: ``_TRIO_SINGLE[trio][kicker]`` and ``_TRIO_PAIR[trio][kicker]`` (RULES.md §5).
_TRIO_SINGLE: _Table = [
    [Play(_T.TRIO_SINGLE, t, 1, tuple(sorted((t, t, t, k)))) if k != t else None for k in _RANKS]
    for t in _SUITED
]
_TRIO_PAIR: _Table = [
    [Play(_T.TRIO_PAIR, t, 1, tuple(sorted((t, t, t, k, k)))) if k != t else None for k in _SUITED]
    for t in _SUITED
]


def _chain_table(kind: ComboType, group: int, lengths: range) -> _Table:
    """``table[high][n]``: the chain of ``n`` groups of ``group`` cards ending at ``high``."""
    table: _Table = [[None] * lengths.stop for _ in _CHAIN_RANKS]
    for high in _CHAIN_RANKS:
        for n in lengths:
            if high - n + 1 >= 0:
                body = tuple(r for r in range(high - n + 1, high + 1) for _ in range(group))
                table[high][n] = Play(kind, high, n, body)
    return table


def _ending(table: _Table, lengths: range) -> list[list[list[Play]]]:
    """``ending[high][run]``: every chain ending at ``high`` that fits in a run of ``run`` ranks."""
    return [
        [[p for n in lengths if n <= run and (p := table[high][n]) is not None]
         for run in range(len(_CHAIN_RANKS) + 1)]
        for high in _CHAIN_RANKS
    ]


_STRAIGHT = _chain_table(_T.STRAIGHT, 1, STRAIGHT_LENGTHS)
_PAIR_CHAIN = _chain_table(_T.PAIR_CHAIN, 2, PAIR_CHAIN_LENGTHS)
_PLANE = _chain_table(_T.PLANE, 3, PLANE_LENGTHS)
_STRAIGHTS_ENDING = _ending(_STRAIGHT, STRAIGHT_LENGTHS)
_PAIR_CHAINS_ENDING = _ending(_PAIR_CHAIN, PAIR_CHAIN_LENGTHS)
_PLANES_ENDING = _ending(_PLANE, PLANE_LENGTHS)


@cache
def _four_two_tables(as_bomb: bool) -> tuple[_Table, _Table]:
    """``singles[four][a][b]``, ``pairs[four][a][b]`` (kicker ranks ``a <= b``), RULES.md §5.

    With the house option ``four_two_is_bomb`` the plays are typed ``bomb``.
    """
    singles_kind = _T.BOMB if as_bomb else _T.FOUR_TWO_SINGLES
    pairs_kind = _T.BOMB if as_bomb else _T.FOUR_TWO_PAIRS
    singles: _Table = [[[None] * RANK_COUNT for _ in _RANKS] for _ in _SUITED]
    pairs: _Table = [[[None] * RANK_COUNT for _ in _RANKS] for _ in _SUITED]
    for f in _SUITED:
        for a in _RANKS:
            for b in range(a, RANK_COUNT):
                if f in (a, b) or (a == b and a >= SMALL_JOKER):
                    continue
                singles[f][a][b] = Play(singles_kind, f, 1, tuple(sorted((f,) * 4 + (a, b))))
                if b < SMALL_JOKER and a != b:
                    cards = tuple(sorted((f,) * 4 + (a, a, b, b)))
                    pairs[f][a][b] = Play(pairs_kind, f, 1, cards)
    return singles, pairs


_four_two_tables(False)

#: Plane plays met so far, keyed by ``(high, n, kickers)``; bounded by RULES.md §5 (≈ 24,000).
_PLANE_SINGLES: dict[tuple[int, int, tuple[int, ...]], Play] = {}
_PLANE_PAIRS: dict[tuple[int, int, tuple[int, ...]], Play] = {}


def _plane_single(high: int, n: int, kickers: tuple[int, ...]) -> Play:
    key = (high, n, kickers)
    play = _PLANE_SINGLES.get(key)
    if play is None:
        body = tuple(r for r in range(high - n + 1, high + 1) for _ in range(3))
        play = Play(_T.PLANE_SINGLE, high, n, tuple(sorted(body + kickers)))
        _PLANE_SINGLES[key] = play
    return play


def _plane_pair(high: int, n: int, kickers: tuple[int, ...]) -> Play:
    key = (high, n, kickers)
    play = _PLANE_PAIRS.get(key)
    if play is None:
        body = tuple(r for r in range(high - n + 1, high + 1) for _ in range(3))
        wings = tuple(r for r in kickers for _ in range(2))
        play = Play(_T.PLANE_PAIR, high, n, tuple(sorted(body + wings)))
        _PLANE_PAIRS[key] = play
    return play


def _chains(
    counts: list[int], need: int, table: _Table, ending: list[list[list[Play]]], above: int, n: int
) -> list[Play]:
    """Chains of ranks held ``need`` times with main rank above ``above``; every length if
    ``n == 0``, else exactly ``n`` groups."""
    out: list[Play] = []
    run = 0
    for r in _CHAIN_RANKS:
        if counts[r] >= need:
            run += 1
            if r > above:
                if not n:
                    out += ending[r][run]
                elif run >= n and (p := table[r][n]) is not None:
                    out.append(p)
        else:
            run = 0
    return out


def _plane_wings(
    counts: list[int], present: list[int], high: int, n: int, pairs: bool, rocket_kickers: bool
) -> list[Play]:
    """Plane plays with body ``high-n+1 .. high`` and ``n`` wings (RULES.md §5)."""
    low = high - n + 1
    if pairs:
        ranks = [r for r in present if counts[r] >= 2 and not low <= r <= high]
        return [_plane_pair(high, n, k) for k in combinations(ranks, n)]
    cards: list[int] = []
    for r in present:
        if low <= r <= high:
            continue
        k = counts[r]
        if k >= 3:
            # never four of a rank; a trio only where it does not extend the body
            k = 2 if r == low - 1 or (r == high + 1 and r <= CHAIN_MAX) else 3
        cards += (r,) * k
    out = []
    for kick in dict.fromkeys(combinations(cards, n)):
        if kick[-1] == BIG_JOKER and kick[-2] == SMALL_JOKER and not rocket_kickers:
            continue
        out.append(_plane_single(high, n, kick))
    return out


def _planes_with_wings(
    counts: list[int], present: list[int], above: int, n: int, pairs: bool, rocket_kickers: bool
) -> list[Play]:
    lengths = PLANE_PAIR_LENGTHS if pairs else PLANE_SINGLE_LENGTHS
    out: list[Play] = []
    run = 0
    for r in _CHAIN_RANKS:
        if counts[r] >= 3:
            run += 1
            if r > above and run >= 2:
                if n:
                    if run >= n:
                        out += _plane_wings(counts, present, r, n, pairs, rocket_kickers)
                else:
                    for k in range(2, min(run, lengths.stop - 1) + 1):
                        out += _plane_wings(counts, present, r, k, pairs, rocket_kickers)
        else:
            run = 0
    return out


def _trio_kickers(counts: list[int], present: list[int], above: int, pairs: bool) -> list[Play]:
    out: list[Play] = []
    if pairs:
        kicker_ranks = [r for r in present if counts[r] >= 2]
        table = _TRIO_PAIR
    else:
        kicker_ranks = present
        table = _TRIO_SINGLE
    for t in present:
        if t > above and counts[t] >= 3:
            row = table[t]
            out += [row[k] for k in kicker_ranks if k != t]
    return out


def _four_two(
    counts: list[int], present: list[int], above: int, pairs: bool, rules: Rules
) -> list[Play]:
    singles, doubles = _four_two_tables(rules.four_two_is_bomb)
    out: list[Play] = []
    for f in present:
        if f <= above or counts[f] != 4:
            continue
        if pairs:
            ranks = [r for r in present if counts[r] >= 2 and r != f]
            rows = doubles[f]
            for i, a in enumerate(ranks):
                row = rows[a]
                out += [row[b] for b in ranks[i + 1:]]
        else:
            ranks = [r for r in present if r != f]
            rows = singles[f]
            no_rocket = not rules.rocket_kickers
            for i, a in enumerate(ranks):
                row = rows[a]
                if counts[a] >= 2:
                    out.append(row[a])
                if a == SMALL_JOKER and no_rocket:
                    continue
                out += [row[b] for b in ranks[i + 1:]]
    return out


def _bombs(counts: list[int], present: list[int], above: int, rules: Rules) -> list[Play]:
    """Bombs with rank above ``above``; with ``four_two_is_bomb`` also fours with two."""
    out = [_BOMB[r] for r in present if r > above and counts[r] == 4]
    if out and rules.four_two_is_bomb:
        out += _four_two(counts, present, above, False, rules)
        out += _four_two(counts, present, above, True, rules)
    return out


def _same_type(counts: list[int], present: list[int], prev: Play, rules: Rules) -> list[Play]:
    """Plays of ``prev``'s type and size with a higher main rank (RULES.md §6)."""
    kind, above, n = prev.type, prev.main, prev.n
    if kind is _T.SINGLE:
        return [_SINGLE[r] for r in present if r > above]
    if kind is _T.PAIR:
        return [_PAIR[r] for r in present if r > above and counts[r] >= 2]
    if kind is _T.TRIO:
        return [_TRIO[r] for r in present if r > above and counts[r] >= 3]
    if kind is _T.TRIO_SINGLE:
        return _trio_kickers(counts, present, above, False)
    if kind is _T.TRIO_PAIR:
        return _trio_kickers(counts, present, above, True)
    if kind is _T.STRAIGHT:
        return _chains(counts, 1, _STRAIGHT, _STRAIGHTS_ENDING, above, n)
    if kind is _T.PAIR_CHAIN:
        return _chains(counts, 2, _PAIR_CHAIN, _PAIR_CHAINS_ENDING, above, n)
    if kind is _T.PLANE:
        return _chains(counts, 3, _PLANE, _PLANES_ENDING, above, n)
    if kind is _T.PLANE_SINGLE:
        return _planes_with_wings(counts, present, above, n, False, rules.rocket_kickers)
    if kind is _T.PLANE_PAIR:
        return _planes_with_wings(counts, present, above, n, True, rules.rocket_kickers)
    if not rules.four_two_is_bomb:
        if kind is _T.FOUR_TWO_SINGLES:
            return _four_two(counts, present, above, False, rules)
        if kind is _T.FOUR_TWO_PAIRS:
            return _four_two(counts, present, above, True, rules)
    return []


def _leads(counts: list[int], present: list[int], rules: Rules) -> list[Play]:
    out = [_SINGLE[r] for r in present]
    pairs = [r for r in present if counts[r] >= 2]
    if pairs:
        out += [_PAIR[r] for r in pairs]
        trios = [r for r in pairs if counts[r] >= 3]
        if trios:
            out += [_TRIO[r] for r in trios]
            for t in trios:
                row = _TRIO_SINGLE[t]
                out += [row[k] for k in present if k != t]
                row = _TRIO_PAIR[t]
                out += [row[k] for k in pairs if k != t]
            if len(trios) >= 2:
                out += _chains(counts, 3, _PLANE, _PLANES_ENDING, -1, 0)
                out += _planes_with_wings(counts, present, -1, 0, False, rules.rocket_kickers)
                out += _planes_with_wings(counts, present, -1, 0, True, rules.rocket_kickers)
            if any(counts[t] == 4 for t in trios):
                if not rules.four_two_is_bomb:
                    out += _four_two(counts, present, -1, False, rules)
                    out += _four_two(counts, present, -1, True, rules)
                out += _bombs(counts, present, -1, rules)
        if len(pairs) >= 3:
            out += _chains(counts, 2, _PAIR_CHAIN, _PAIR_CHAINS_ENDING, -1, 0)
    if len(present) >= 5:
        out += _chains(counts, 1, _STRAIGHT, _STRAIGHTS_ENDING, -1, 0)
    if counts[SMALL_JOKER] and counts[BIG_JOKER]:
        out.append(_ROCKET)
    return out


def legal_moves(
    hand_ranks: Sequence[int], prev: Play | None = None, rules: Rules = SCORE
) -> list[Play]:
    """Every legal play from a hand: any combination when leading (``prev is None``), else
    every play that beats ``prev`` (RULES.md §4.1–§4.2, §5, §6). Pass is not listed.

    Args:
        hand_ranks: the hand as ranks ``0..14`` in any order, from one deck (not checked; use
            :func:`engine.cards.check_ranks` on untrusted input).
        prev: the play to beat, or ``None`` when leading.
        rules: house options ``rocket_kickers`` and ``four_two_is_bomb`` (RULES.md §5) matter;
            under the four-player rules (``rules.variant == "four"``) the plays of RULES.md §11
            (:func:`engine.four.moves.legal_moves_four`; the hand may hold two decks).

    Returns:
        Each distinct (cards, type) once, in no promised order. The :class:`Play` objects are
        shared between calls (they are immutable).

    >>> from engine.cards import parse_ranks
    >>> from engine.combos import classify
    >>> [str(p) for p in legal_moves(parse_ranks("3456789TT"), classify(parse_ranks("34567"))[0])]
    ['45678', '56789', '6789T']
    """
    if rules.variant == "four":
        return legal_moves_four(hand_ranks, prev)
    if prev is not None and prev.type is _T.ROCKET:
        return []
    counts = [0] * RANK_COUNT
    for r in hand_ranks:
        counts[r] += 1
    present = [r for r in _RANKS if counts[r]]
    if prev is None:
        return _leads(counts, present, rules)
    if prev.type is _T.BOMB:
        out = _bombs(counts, present, prev.main, rules)
    else:
        out = _same_type(counts, present, prev, rules)
        out += _bombs(counts, present, -1, rules)
    if counts[SMALL_JOKER] and counts[BIG_JOKER]:
        out.append(_ROCKET)
    return out
