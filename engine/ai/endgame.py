"""Endgame search: find a play that wins whatever the hidden cards are (RULES.md §4, §6).

The opponents' hidden cards are treated as the *union* of every card this seat has not seen: an
opponent holding ``k`` cards is assumed able to make any play of at most ``k`` cards from that
union. A win proven under that assumption is a real win, whatever the deal is.

A proof is a sequence of own plays where every play but the last cannot be beaten by any
opponent (so the lead comes back), and the last play empties the hand. The search is exhaustive
over own plays with memoisation and a node budget and a time budget; when either runs out it
answers "no proof" (``None``), never late.
"""

from __future__ import annotations

import time

from engine.ai.hand import all_moves, can_beat, follow_moves, minus
from engine.ai.knowledge import Knowledge
from engine.combos import Play


class _Budget(Exception):
    pass


def is_safe(k: Knowledge, play: Play) -> bool:
    """True if no opponent of ``k.seat`` can beat ``play`` (card counting over unseen cards)."""
    return not any(can_beat(k.cards_of(e), play, k.counts[e]) for e in k.enemies)


def forced_win(k: Knowledge, *, max_nodes: int = 4000, time_budget: float = 0.03) -> Play | None:
    """A play from which this seat surely empties its hand first, or ``None`` if none is proven.

    Considers beating ``k.prev`` when following (a proof never passes). ``time_budget`` is in
    seconds; ``max_nodes`` caps the positions visited.
    """
    deadline = time.perf_counter() + time_budget
    memo: dict[tuple[int, ...], Play | None] = {}
    nodes = [0]
    safe_cache: dict[Play, bool] = {}

    def safe(play: Play) -> bool:
        s = safe_cache.get(play)
        if s is None:
            s = safe_cache[play] = is_safe(k, play)
        return s

    def lead_win(hand: tuple[int, ...]) -> Play | None:
        if hand in memo:
            return memo[hand]
        nodes[0] += 1
        if nodes[0] > max_nodes or time.perf_counter() > deadline:
            raise _Budget
        memo[hand] = None
        result = _first_win(hand, all_moves(hand))
        memo[hand] = result
        return result

    def _first_win(hand: tuple[int, ...], moves: list[Play]) -> Play | None:
        size = sum(hand)
        for m in moves:
            if len(m.cards) == size:
                return m
        # Safe plays that leave the fewest cards are tried first.
        for m in sorted(moves, key=lambda p: -len(p.cards)):
            if safe(m) and lead_win(minus(hand, m.cards)) is not None:
                return m
        return None

    try:
        if k.prev is None:
            return lead_win(k.hand)
        return _first_win(k.hand, follow_moves(k.hand, k.prev))
    except _Budget:
        return None
