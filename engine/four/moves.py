"""Legal plays from a hand in the four-player, two-deck game (RULES.md §4, §11).

:func:`legal_moves_four` runs on every turn of a 33-card landlord hand (hints, AI, auto-play),
so it works on a 15-long count vector and reads plays from tables built once: every single,
pair, trio, bomb of 4–8 cards, trio with a pair and chain is built at import; planes with wings
the first time they are met. Chains are windows over chain order (positions 1 … 14 for
``A 2 3 … K A``, RULES.md §11); a window over all thirteen ranks exists once, as ``…KA``.

>>> from engine.cards import parse_ranks
>>> sorted(str(p) for p in legal_moves_four(parse_ranks("XXDD", decks=2)))
['D', 'DD', 'X', 'XX', 'XXDD']
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import BIG_JOKER, RANK_COUNT, SMALL_JOKER
from engine.four.reader import MIN_CHAIN
from engine.play import POSITION_RANK, ComboType, Play, chain_value

__all__ = ["legal_moves_four"]

_T = ComboType
_RANKS = range(RANK_COUNT)
_SUITED = range(SMALL_JOKER)
_POS_RANK = POSITION_RANK
_POSITIONS = range(1, 15)
#: Longest chain: all thirteen ranks (RULES.md §11: A never at both ends).
_MAX_CHAIN = 13
_MAX_BOMB = 8
_JOKER_BOMB = Play(_T.JOKER_BOMB, BIG_JOKER, 1, (SMALL_JOKER,) * 2 + (BIG_JOKER,) * 2)

_SINGLE = [Play(_T.SINGLE, r, 1, (r,)) for r in _RANKS]
_PAIR = [Play(_T.PAIR, r, 1, (r, r)) for r in _RANKS]
_TRIO = [Play(_T.TRIO, r, 1, (r,) * 3) for r in _SUITED]
#: ``_BOMB[rank][size - 4]`` for sizes 4…8 (RULES.md §11).
_BOMB = [[Play(_T.BOMB, r, s, (r,) * s) for s in range(4, _MAX_BOMB + 1)] for r in _SUITED]
#: ``_TRIO_PAIR[trio][pair]``; the pair may be two small or two big jokers.
_TRIO_PAIR = [[Play(_T.TRIO_PAIR, t, 1, tuple(sorted((t,) * 3 + (p,) * 2))) if p != t else None
               for p in _RANKS] for t in _SUITED]


def _window_ranks(low: int, high: int) -> tuple[int, ...]:
    return tuple(_POS_RANK[p] for p in range(low, high + 1))


def _valid_window(low: int, high: int) -> bool:
    """A window of chain positions that is a chain of its own: at most 13 ranks, and the
    thirteen ranks read once, as the higher window (RULES.md §11)."""
    return high - low + 1 <= _MAX_CHAIN and not (low == 1 and high == _MAX_CHAIN)


def _chain_table(kind: ComboType, group: int) -> list[list[Play | None]]:
    """``table[high][n]``: the chain of ``n`` groups of ``group`` cards ending at position
    ``high``, ``None`` where there is none."""
    table: list[list[Play | None]] = [[None] * (_MAX_CHAIN + 1) for _ in range(15)]
    for high in _POSITIONS:
        for n in range(MIN_CHAIN[kind], _MAX_CHAIN + 1):
            low = high - n + 1
            if low >= 1 and _valid_window(low, high):
                cards = tuple(sorted(r for r in _window_ranks(low, high) for _ in range(group)))
                table[high][n] = Play(kind, _POS_RANK[high], n, cards)
    return table


_STRAIGHT = _chain_table(_T.STRAIGHT, 1)
_PAIR_CHAIN = _chain_table(_T.PAIR_CHAIN, 2)
_PLANE = _chain_table(_T.PLANE, 3)
_CHAIN_TABLES = {_T.STRAIGHT: (_STRAIGHT, 1), _T.PAIR_CHAIN: (_PAIR_CHAIN, 2),
                 _T.PLANE: (_PLANE, 3)}
#: Planes with wings met so far, keyed by ``(body low, body high, wing low)`` (≈ 1,000 at most).
_PLANE_PAIRS: dict[tuple[int, int, int], Play] = {}


def _plane_pair(low: int, high: int, wing_low: int) -> Play:
    key = (low, high, wing_low)
    play = _PLANE_PAIRS.get(key)
    if play is None:
        n = high - low + 1
        body = [r for r in _window_ranks(low, high) for _ in range(3)]
        wings = [r for r in _window_ranks(wing_low, wing_low + n - 1) for _ in range(2)]
        play = Play(_T.PLANE_PAIR, _POS_RANK[high], n, tuple(sorted(body + wings)))
        _PLANE_PAIRS[key] = play
    return play


def _runs(counts: list[int], need: int) -> list[int]:
    """``runs[p]``: how many consecutive chain positions ending at ``p`` hold ``need`` cards."""
    runs = [0] * 15
    for p in _POSITIONS:
        if counts[_POS_RANK[p]] >= need:
            runs[p] = runs[p - 1] + 1
    return runs


def _chains(counts: list[int], kind: ComboType, above: int, n: int) -> list[Play]:
    """Chains of ``kind`` whose top position is above ``above``; every length if ``n == 0``."""
    table, need = _CHAIN_TABLES[kind]
    runs = _runs(counts, need)
    out: list[Play] = []
    for high in range(above + 1, 15):
        run = runs[high]
        if n:
            if run >= n and (p := table[high][n]) is not None:
                out.append(p)
        elif run >= MIN_CHAIN[kind]:
            row = table[high]
            out += [p for k in range(MIN_CHAIN[kind], min(run, _MAX_CHAIN) + 1)
                    if (p := row[k]) is not None]
    return out


def _plane_pairs(counts: list[int], above: int, n: int) -> list[Play]:
    """Planes with wings: ``n`` trios (every ``n`` ≥ 2 if ``n == 0``) topped above position
    ``above``, and ``n`` wing pairs in a window of their own that shares no rank with the body
    (RULES.md §11)."""
    trio_runs, pair_runs = _runs(counts, 3), _runs(counts, 2)
    out: list[Play] = []
    for high in range(max(above + 1, 2), 15):
        run = trio_runs[high]
        if run < 2:
            continue
        lengths = (n,) if n else range(2, min(run, _MAX_CHAIN) + 1)
        for k in lengths:
            low = high - k + 1
            if k > run or not _valid_window(low, high):
                continue
            body_has_ace = low == 1 or high == 14
            for wing_high in range(k, 15):
                wing_low = wing_high - k + 1
                if pair_runs[wing_high] < k or (wing_low <= high and low <= wing_high):
                    continue
                if body_has_ace and (wing_low == 1 or wing_high == 14):
                    continue
                out.append(_plane_pair(low, high, wing_low))
    return out


def _bombs(counts: list[int], present: list[int], prev: Play | None) -> list[Play]:
    """Bombs that beat ``prev`` (every bomb if it is no bomb), and the joker bomb."""
    out: list[Play] = []
    for r in present:
        c = counts[r]
        if c >= 4 and r < SMALL_JOKER:
            row = _BOMB[r]
            for s in range(4, c + 1):
                if prev is None or (s, r) > (prev.n, prev.main):
                    out.append(row[s - 4])
    if counts[SMALL_JOKER] >= 2 and counts[BIG_JOKER] >= 2:
        out.append(_JOKER_BOMB)
    return out


def _trio_pairs(counts: list[int], present: list[int], above: int) -> list[Play]:
    pairs = [r for r in present if counts[r] >= 2]
    out: list[Play] = []
    for t in present:
        if t > above and t < SMALL_JOKER and counts[t] >= 3:
            row = _TRIO_PAIR[t]
            out += [q for p in pairs if (q := row[p]) is not None]
    return out


def _same_type(counts: list[int], present: list[int], prev: Play) -> list[Play]:
    """Plays of ``prev``'s type and size that beat it (RULES.md §11)."""
    kind, above = prev.type, prev.main
    if kind is _T.SINGLE:
        return [_SINGLE[r] for r in present if r > above]
    if kind is _T.PAIR:
        return [_PAIR[r] for r in present if r > above and counts[r] >= 2]
    if kind is _T.TRIO:
        return [_TRIO[r] for r in present if above < r < SMALL_JOKER and counts[r] >= 3]
    if kind is _T.TRIO_PAIR:
        return _trio_pairs(counts, present, above)
    if kind in _CHAIN_TABLES:
        return _chains(counts, kind, chain_value(above), prev.n)
    if kind is _T.PLANE_PAIR:
        return _plane_pairs(counts, chain_value(above), prev.n)
    return []


def legal_moves_four(hand_ranks: Sequence[int], prev: Play | None = None) -> list[Play]:
    """Every legal play from a hand of the four-player game: any combination when leading
    (``prev is None``), else every play that beats ``prev`` (RULES.md §11). Pass is not
    listed, nor are the farmers' bomb allowances applied (``SeatView.legal_actions`` does).

    Args:
        hand_ranks: the hand as ranks ``0..14`` in any order, from two decks (not checked).
        prev: the play to beat, a four-player reading, or ``None`` when leading.

    Returns:
        Each distinct set of cards once (every set has one reading), in no promised order;
        the :class:`Play` objects are shared between calls (they are immutable).
    """
    counts = [0] * RANK_COUNT
    for r in hand_ranks:
        counts[r] += 1
    present = [r for r in _RANKS if counts[r]]
    if prev is None:
        out = [_SINGLE[r] for r in present]
        out += [_PAIR[r] for r in present if counts[r] >= 2]
        out += [_TRIO[r] for r in present if r < SMALL_JOKER and counts[r] >= 3]
        out += _trio_pairs(counts, present, -1)
        for kind in _CHAIN_TABLES:
            out += _chains(counts, kind, 0, 0)
        out += _plane_pairs(counts, 0, 0)
        return out + _bombs(counts, present, None)
    if prev.type is _T.JOKER_BOMB:
        return []
    if prev.type is _T.BOMB:
        return _bombs(counts, present, prev)
    return _same_type(counts, present, prev) + _bombs(counts, present, None)
