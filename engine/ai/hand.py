"""Count-vector move generation for the AI (RULES.md §5, §6).

The AI works on *count vectors*: a list or tuple of 15 ints, ``counts[rank]`` copies of each rank
``0..14`` (``3456789TJQKA2XD``). Moves are :class:`engine.combos.Play` values, so they compare and
print like the engine's.

Kickers generated here are a safe subset of the legal ones (RULES.md §5): single wings come from
ranks outside the body, at most two of a rank, never both jokers; pair wings are pairs of distinct
ranks outside the body. Every generated play is therefore legal under every preset; the engine's
``legal_moves`` remains the authority on the complete list.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations, combinations_with_replacement, islice

from engine.cards import ACE, BIG_JOKER, RANK_COUNT, SMALL_JOKER
from engine.combos import ComboType, Play

T = ComboType

#: (width, minimum length, maximum length) of the three chain families (RULES.md §5).
CHAIN_SHAPES = {T.STRAIGHT: (1, 5, 12), T.PAIR_CHAIN: (2, 3, 10), T.PLANE: (3, 2, 6)}
_WINGED_PLANE_MAX = {T.PLANE_SINGLE: 5, T.PLANE_PAIR: 4}
KICKER_TYPES = frozenset(
    {T.TRIO_SINGLE, T.TRIO_PAIR, T.PLANE_SINGLE, T.PLANE_PAIR, T.FOUR_TWO_SINGLES,
     T.FOUR_TWO_PAIRS}
)


def counts_of(ranks: Iterable[int]) -> list[int]:
    """Count vector (length 15) of a rank sequence."""
    c = [0] * RANK_COUNT
    for r in ranks:
        c[r] += 1
    return c


def ranks_of(counts: Sequence[int]) -> tuple[int, ...]:
    """Sorted rank tuple of a count vector."""
    return tuple(r for r in range(RANK_COUNT) for _ in range(counts[r]))


def minus(counts: Sequence[int], ranks: Iterable[int]) -> tuple[int, ...]:
    """``counts`` with the given ranks removed, as a tuple. Assumes they are present."""
    c = list(counts)
    for r in ranks:
        c[r] -= 1
    return tuple(c)


def contains(counts: Sequence[int], ranks: Iterable[int]) -> bool:
    """True if every rank of ``ranks`` (with multiplicity) is in ``counts``."""
    need = counts_of(ranks)
    return all(need[r] <= counts[r] for r in range(RANK_COUNT))


def beats(play: Play, prev: Play | None) -> bool:
    """RULES.md §6 comparison (``prev`` None = a free lead, anything goes)."""
    if prev is None:
        return True
    if play.type is T.ROCKET:
        return True
    if prev.type is T.ROCKET:
        return False
    if play.type is T.BOMB:
        return prev.type is not T.BOMB or play.main > prev.main
    if prev.type is T.BOMB:
        return False
    return (
        play.type is prev.type
        and play.n == prev.n
        and len(play.cards) == len(prev.cards)
        and play.main > prev.main
    )


def _play(kind: ComboType, main: int, n: int, body: list[int], kickers: Iterable[int] = ()) -> Play:
    return Play(kind, main, n, tuple(sorted((*body, *kickers))))


def _single_wings(c: Sequence[int], exclude: set[int], k: int) -> Iterator[tuple[int, ...]]:
    pool = [r for r in range(RANK_COUNT) if r not in exclude and c[r] >= 1]
    for combo in combinations_with_replacement(pool, k):
        if SMALL_JOKER in combo and BIG_JOKER in combo:
            continue
        if any(combo.count(r) > min(2, c[r]) for r in set(combo)):
            continue
        yield combo


def _pair_wings(c: Sequence[int], exclude: set[int], k: int) -> Iterator[tuple[int, ...]]:
    pool = [r for r in range(SMALL_JOKER) if r not in exclude and c[r] >= 2]
    for combo in combinations(pool, k):
        yield tuple(r for r in combo for _ in range(2))


def moves_of_type(
    counts: Sequence[int], kind: ComboType, n: int | None = None, above: int = -1,
    wings: int | None = None,
) -> Iterator[Play]:
    """All plays of one type (and chain length ``n`` if given) with main rank > ``above``.

    ``wings``: for the kicker types, at most this many kicker choices per body (the lowest
    first, in the order of the full list); ``None`` = all.
    """
    c = counts
    if kind in (T.SINGLE, T.PAIR, T.TRIO, T.BOMB):
        width = {T.SINGLE: 1, T.PAIR: 2, T.TRIO: 3, T.BOMB: 4}[kind]
        for r in range(above + 1, RANK_COUNT):
            if c[r] >= width and (width == 1 or r < SMALL_JOKER):
                if kind is T.BOMB and c[r] != 4:
                    continue
                yield Play(kind, r, 1, (r,) * width)
    elif kind is T.ROCKET:
        if c[SMALL_JOKER] and c[BIG_JOKER] and above < BIG_JOKER:
            yield Play(T.ROCKET, BIG_JOKER, 1, (SMALL_JOKER, BIG_JOKER))
    elif kind in (T.TRIO_SINGLE, T.TRIO_PAIR):
        for r in range(max(above + 1, 0), SMALL_JOKER):
            if c[r] < 3:
                continue
            choices = (_single_wings(c, {r}, 1) if kind is T.TRIO_SINGLE
                       else _pair_wings(c, {r}, 1))
            for w in islice(choices, wings):
                yield _play(kind, r, 1, [r] * 3, w)
    elif kind in (T.FOUR_TWO_SINGLES, T.FOUR_TWO_PAIRS):
        for r in range(max(above + 1, 0), SMALL_JOKER):
            if c[r] != 4:
                continue
            if kind is T.FOUR_TWO_SINGLES:
                choices = _single_wings(c, {r}, 2)
            else:
                choices = _pair_wings(c, {r}, 2)
            for w in islice(choices, wings):
                yield _play(kind, r, 1, [r] * 4, w)
    elif kind in CHAIN_SHAPES:
        width, lo, hi = CHAIN_SHAPES[kind]
        lengths = [n] if n is not None else range(lo, hi + 1)
        run = _runs(c, width)
        for length in lengths:
            for top in range(max(above + 1, length - 1), ACE + 1):
                if run[top] >= length:
                    start = top - length + 1
                    yield Play(kind, top, length, tuple(r for r in range(start, top + 1)
                                                        for _ in range(width)))
    elif kind in _WINGED_PLANE_MAX:
        lengths = [n] if n is not None else range(2, _WINGED_PLANE_MAX[kind] + 1)
        run = _runs(c, 3)
        for length in lengths:
            for top in range(max(above + 1, length - 1), ACE + 1):
                if run[top] < length:
                    continue
                start = top - length + 1
                body_ranks = range(start, top + 1)
                body = [r for r in body_ranks for _ in range(3)]
                ex = set(body_ranks)
                if kind is T.PLANE_SINGLE:
                    choices = _single_wings(c, ex, length)
                else:
                    choices = _pair_wings(c, ex, length)
                for w in islice(choices, wings):
                    yield _play(kind, top, length, body, w)


def _runs(c: Sequence[int], width: int) -> list[int]:
    """``run[r]``: how many consecutive ranks ending at ``r`` (≤ A) hold ``width`` copies."""
    run = [0] * (ACE + 1)
    n = 0
    for r in range(ACE + 1):
        n = n + 1 if c[r] >= width else 0
        run[r] = n
    return run


ALL_TYPES = tuple(T)


def all_moves(counts: Sequence[int]) -> list[Play]:
    """Every play (with the safe kicker subset) that can be led from ``counts``."""
    out: list[Play] = []
    for kind in ALL_TYPES:
        out.extend(moves_of_type(counts, kind))
    return out


def follow_moves(counts: Sequence[int], prev: Play) -> list[Play]:
    """Every play from ``counts`` that beats ``prev`` (RULES.md §6); pass not included."""
    out: list[Play] = []
    if prev.type is T.ROCKET:
        return out
    if prev.type is T.BOMB:
        out.extend(moves_of_type(counts, T.BOMB, above=prev.main))
    else:
        n = prev.n if prev.type in CHAIN_SHAPES or prev.type in _WINGED_PLANE_MAX else None
        out.extend(moves_of_type(counts, prev.type, n, above=prev.main))
        out.extend(moves_of_type(counts, T.BOMB))
    out.extend(moves_of_type(counts, T.ROCKET))
    return out


def can_beat(counts: Sequence[int], prev: Play, max_cards: int = 20) -> bool:
    """True if some play of at most ``max_cards`` cards from ``counts`` beats ``prev``.

    Used with the unseen cards as ``counts`` to ask whether an opponent holding
    ``max_cards`` cards could possibly beat a play.
    """
    if max_cards >= 2 and counts[SMALL_JOKER] and counts[BIG_JOKER]:
        return True
    if prev.type is T.ROCKET:
        return False
    if max_cards >= 4:
        low = prev.main if prev.type is T.BOMB else -1
        if any(counts[r] == 4 for r in range(low + 1, SMALL_JOKER)):
            return True
    if prev.type is T.BOMB or len(prev.cards) > max_cards:
        return False
    return can_beat_same_type(counts, prev)


def can_beat_same_type(c: Sequence[int], prev: Play) -> bool:
    """True if ``c`` holds a play of ``prev``'s own type and length that beats it (no bombs)."""
    kind = prev.type
    if kind is T.SINGLE:
        return any(c[r] for r in range(prev.main + 1, RANK_COUNT))
    if kind is T.PAIR:
        return any(c[r] >= 2 for r in range(prev.main + 1, SMALL_JOKER))
    if kind is T.TRIO:
        return any(c[r] >= 3 for r in range(prev.main + 1, SMALL_JOKER))
    if kind in CHAIN_SHAPES:
        run = _runs(c, CHAIN_SHAPES[kind][0])
        return any(run[top] >= prev.n for top in range(max(prev.main + 1, prev.n - 1), ACE + 1))
    if kind is T.TRIO_SINGLE:
        size = sum(c)
        return any(c[r] >= 3 and size > c[r] for r in range(prev.main + 1, SMALL_JOKER))
    if kind is T.TRIO_PAIR:
        pairs = [r for r in range(SMALL_JOKER) if c[r] >= 2]
        return any(c[r] >= 3 and (len(pairs) > 1) for r in range(prev.main + 1, SMALL_JOKER))
    n = prev.n if kind in _WINGED_PLANE_MAX else None
    return next(iter(moves_of_type(c, kind, n, above=prev.main)), None) is not None
