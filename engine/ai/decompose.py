"""Plan a hand as a set of combinations (RULES.md §5) and value the plan.

A *plan* splits a hand (count vector, see :mod:`engine.ai.hand`) into combinations that can be
played one per trick: singles, pairs, trios (with a kicker when a low single or pair is spare),
straights, pair chains, planes (with wings), bombs and the rocket. Bombs and the rocket are kept
whole for control; four-with-two is never planned.

The value of a plan follows the usual hand-value heuristic of Dou Dizhu programs:
``score = Σ value(combination) − TURN_COST × turns``, where ``value`` grows with the main rank
(a low single is a liability, a 2 or a joker is control) and ``turns`` is the number of
combinations after kickers are attached. Fewer turns and higher cards score higher.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.cards import ACE, BIG_JOKER, SMALL_JOKER, TWO
from engine.combos import ComboType, Play

T = ComboType

#: Points a combination costs just by needing a turn of its own.
TURN_COST = 7.0
#: Highest rank that is attached as a kicker (an A; 2s and jokers are kept for control).
KICKER_MAX = ACE

# Body kinds used inside the search (ints are faster than enum members).
_SINGLE, _PAIR, _TRIO, _BOMB, _STRAIGHT, _PAIR_CHAIN, _PLANE, _ROCKET = range(8)
_GROUP_KIND = {1: _SINGLE, 2: _PAIR, 3: _TRIO, 4: _BOMB}
_CHAINS = ((_STRAIGHT, 1, 5), (_PAIR_CHAIN, 2, 3), (_PLANE, 3, 2))


def combo_value(kind: ComboType, main: int, n: int = 1) -> float:
    """Heuristic value of holding one combination (higher = stronger; RULES.md §6 order)."""
    if kind is T.ROCKET:
        return 20.0
    if kind is T.BOMB:
        return 12.0 + main * 0.5
    if kind is T.STRAIGHT:
        return main - 10 + 1.0
    if kind is T.PAIR_CHAIN:
        return main - 10 + 2.0
    if kind in (T.PLANE, T.PLANE_SINGLE, T.PLANE_PAIR):
        return main - 10 + 4.0
    return float(main - 10)


_BODY_VALUE: dict[int, Callable[[int, int], float]] = {
    _SINGLE: lambda r, n: float(r - 10),
    _PAIR: lambda r, n: float(r - 10),
    _TRIO: lambda r, n: float(r - 10),
    _BOMB: lambda r, n: 12.0 + r * 0.5,
    _STRAIGHT: lambda r, n: r - 9.0,
    _PAIR_CHAIN: lambda r, n: r - 8.0,
    _PLANE: lambda r, n: r - 6.0,
    _ROCKET: lambda r, n: 20.0,
}


@dataclass(frozen=True, slots=True)
class Plan:
    """A hand split into combinations.

    Attributes:
        combos: the combinations, kickers attached, lowest value first.
        score: the plan's value (see module doc); higher is better.
        turns: number of combinations (plays needed with no interruption).
    """

    combos: tuple[Play, ...]
    score: float
    turns: int


#: A body of a plan: (its kind, its top rank, its length in ranks).
Body = tuple[int, int, int]
#: Kickers attached to trios and planes: body → (1 singles / 2 pairs, their ranks).
Attached = dict[Body, tuple[int, tuple[int, ...]]]


def _enumerate(c: list[int], r: int, acc: list[Body], out: list[tuple[Body, ...]]) -> None:
    while r <= TWO and c[r] == 0:
        r += 1
    if r > TWO:
        out.append(tuple(acc))
        return
    k = c[r]
    if r <= ACE:
        for kind, width, min_len in _CHAINS:
            if k < width:
                continue
            end = r
            while end <= ACE and c[end] >= width:
                end += 1
            for top in range(r + min_len - 1, end):
                for i in range(r, top + 1):
                    c[i] -= width
                acc.append((kind, top, top - r + 1))
                _enumerate(c, r, acc, out)
                acc.pop()
                for i in range(r, top + 1):
                    c[i] += width
    c[r] = 0
    acc.append((_GROUP_KIND[k], r, 1))
    _enumerate(c, r + 1, acc, out)
    acc.pop()
    c[r] = k


def _score(bodies: Sequence[Body], jokers: list[Body]) -> tuple[float, int, Attached]:
    """Score one body split; returns (score, turns, kicker assignment)."""
    value = 0.0
    singles: list[int] = []
    pairs: list[int] = []
    slots: list[tuple[int, int, int]] = []
    for b in (*bodies, *jokers):
        kind, main, n = b
        value += _BODY_VALUE[kind](main, n)
        if kind == _SINGLE:
            singles.append(main)
        elif kind == _PAIR:
            pairs.append(main)
        elif kind in (_TRIO, _PLANE):
            slots.append(b)
    turns = len(bodies) + len(jokers)
    attach: Attached = {}
    if slots:
        singles = sorted(s for s in singles if s <= KICKER_MAX)
        pairs = sorted(p for p in pairs if p <= KICKER_MAX)
        si = pi = 0
        # Longer planes first: they need several wings of one kind.
        for b in sorted(slots, key=lambda x: (-x[2], x[1])):
            need = b[2]
            s_ok = len(singles) - si >= need
            p_ok = len(pairs) - pi >= need
            if s_ok and (not p_ok or singles[si] <= pairs[pi]):
                got = singles[si:si + need]
                si += need
                attach[b] = (1, tuple(got))
            elif p_ok:
                got = pairs[pi:pi + need]
                pi += need
                attach[b] = (2, tuple(got))
            else:
                continue
            for w in got:
                value -= w - 10
                value += TURN_COST
            turns -= need
    return value - TURN_COST * (len(bodies) + len(jokers)), turns, attach


def _joker_bodies(c: Sequence[int]) -> list[tuple[int, int, int]]:
    if c[SMALL_JOKER] and c[BIG_JOKER]:
        return [(_ROCKET, BIG_JOKER, 1)]
    return [(_SINGLE, r, 1) for r in (SMALL_JOKER, BIG_JOKER) if c[r]]


#: Plans remembered. A full collection of the garbage collector visits every entry of an
#: ``lru_cache`` (its key and result), so the size is also a pause: 2^17 plans cost about 25 ms
#: per full collection on this machine, landing in whichever decision runs; 2^14 hold the plans
#: of some hundred deals for about 3 ms.
PLAN_CACHE = 1 << 14


@lru_cache(maxsize=PLAN_CACHE)
def _best(counts: tuple[int, ...]) -> tuple[
        float, int, tuple[Body, ...], tuple[tuple[Body, tuple[int, tuple[int, ...]]], ...], int]:
    """The best plan of a hand (count vector): (score, turns, bodies, attached kickers as
    pairs, how many splits were scored)."""
    jokers = _joker_bodies(counts)
    out: list[tuple[Body, ...]] = []
    _enumerate(list(counts), 0, [], out)
    best: tuple[tuple[float, int, Attached], tuple[Body, ...]] | None = None
    for bodies in out:
        s = _score(bodies, jokers)
        if best is None or s[0] > best[0][0]:
            best = (s, bodies)
    assert best is not None
    # Tuples of numbers only: the garbage collector stops tracking them (the cache's own
    # traversal still visits them, see PLAN_CACHE).
    return (best[0][0], best[0][1], best[1] + tuple(jokers), tuple(best[0][2].items()),
            len(out))


def hand_score(counts: Sequence[int]) -> float:
    """Value of the best plan of a hand (count vector); an empty hand scores 0 + a big bonus."""
    t = tuple(counts)
    if not any(t):
        return EMPTY_SCORE
    return _best(t)[0]


#: Score of an empty hand: better than any hand that still has cards.
EMPTY_SCORE = 100.0


def hand_turns(counts: Sequence[int]) -> int:
    """Number of combinations in the best plan (0 for an empty hand)."""
    t = tuple(counts)
    return _best(t)[1] if any(t) else 0


def plan_work(counts: Sequence[int]) -> int:
    """The planner's real work for a hand: the number of splits it scores (0 for an empty
    hand). The same whether or not the plan is remembered, so a search may charge it and stay
    deterministic; a split costs about as much as four moves of a Monte Carlo rollout."""
    t = tuple(counts)
    return _best(t)[4] if any(t) else 0


_KIND_TYPE = {
    _SINGLE: T.SINGLE, _PAIR: T.PAIR, _TRIO: T.TRIO, _BOMB: T.BOMB, _STRAIGHT: T.STRAIGHT,
    _PAIR_CHAIN: T.PAIR_CHAIN, _PLANE: T.PLANE, _ROCKET: T.ROCKET,
}
_WIDTH = {_SINGLE: 1, _PAIR: 2, _TRIO: 3, _BOMB: 4, _STRAIGHT: 1, _PAIR_CHAIN: 2, _PLANE: 3}


def plan_hand(counts: Sequence[int]) -> Plan:
    """The best plan of a hand (count vector of length 15).

    Kickers attached to a trio or plane are removed from the singles and pairs they came from.
    """
    t = tuple(counts)
    if not any(t):
        return Plan((), EMPTY_SCORE, 0)
    score, turns, bodies, attached, _ = _best(t)
    attach = dict(attached)
    used_single: dict[int, int] = {}
    used_pair: dict[int, int] = {}
    combos: list[Play] = []
    for b in bodies:
        kind, main, n = b
        if kind == _ROCKET:
            combos.append(Play(T.ROCKET, BIG_JOKER, 1, (SMALL_JOKER, BIG_JOKER)))
            continue
        width = _WIDTH[kind]
        body = tuple(r for r in range(main - n + 1, main + 1) for _ in range(width))
        if b in attach:
            wkind, wings = attach[b]
            for w in wings:
                (used_single if wkind == 1 else used_pair)[w] = (
                    (used_single if wkind == 1 else used_pair).get(w, 0) + 1)
            extra = tuple(w for w in wings for _ in range(wkind))
            if kind == _TRIO:
                ptype = T.TRIO_SINGLE if wkind == 1 else T.TRIO_PAIR
            else:
                ptype = T.PLANE_SINGLE if wkind == 1 else T.PLANE_PAIR
            combos.append(Play(ptype, main, n, tuple(sorted(body + extra))))
        else:
            combos.append(Play(_KIND_TYPE[kind], main, n, body))
    final: list[Play] = []
    for p in combos:
        pool = used_single if p.type is T.SINGLE else used_pair if p.type is T.PAIR else None
        if pool is not None and pool.get(p.main, 0) > 0:
            pool[p.main] -= 1
            continue
        final.append(p)
    final.sort(key=lambda p: (combo_value(p.type, p.main, p.n), -len(p.cards)))
    return Plan(tuple(final), score, turns)
