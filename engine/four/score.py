"""The score of a four-player deal (RULES.md §11 "Score", §9).

Each farmer–landlord pair scores ``base`` points (the winning bid, 1 when forced); with the house
option ``rules.bomb_doubling`` every bomb played (joker bomb included) doubles each pair's
multiplier, capped at ``rules.multiplier_cap``; off by default (the seed limits bombs instead of
doubling them). A landlord who bid 3 first (头撂) and wins gets 1 extra point per pair. Landlord
wins: each farmer pays the landlord; landlord loses: the landlord pays each farmer. Spring does
not apply. The auto-play penalty and escapes are those of RULES.md §9
(:func:`engine.scoring.settle`).

Rule choice where §11 is silent: the 头撂 bonus is added after the multiplier
(``base × multiplier + 1`` per pair), like a prize, not multiplied by the bombs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.action import Action
from engine.four.allowance import head_bid
from engine.presets import Rules
from engine.scoring import DealResult, ScoredDeal, settle

__all__ = ["HEAD_BID_BONUS", "four_multipliers", "score_four"]

#: RULES.md §11 / seed 004 头撂，勝可加獎1分: points per pair for a winning 头撂 landlord.
HEAD_BID_BONUS = 1


class FourDeal(ScoredDeal, Protocol):
    """What :func:`score_four` reads of a finished deal (``engine.deal.DealState`` is one)."""

    @property
    def first_bidder(self) -> int: ...
    @property
    def history(self) -> tuple[Action, ...]: ...


def four_multipliers(rules: Rules, bombs: int) -> tuple[int, ...]:
    """Each pair's multiplier, farmers in seat order: ``2^bombs`` (capped) with the house option
    ``bomb_doubling``, else 1 (RULES.md §11)."""
    m = 2 ** bombs if rules.bomb_doubling else 1
    if rules.multiplier_cap is not None:
        m = min(m, rules.multiplier_cap)
    return (m,) * (rules.seats - 1)


def score_four(state: FourDeal) -> DealResult:
    """The result of a four-player deal that ended by a seat playing out (RULES.md §11)."""
    rules, landlord = state.rules, state.landlord
    assert landlord is not None
    farmers = tuple(s for s in range(rules.seats) if s != landlord)
    landlord_won = not state.hands[landlord]
    mults = four_multipliers(rules, state.bombs)
    bonus = HEAD_BID_BONUS if landlord_won and head_bid(state.history, state.first_bidder) else 0
    result = DealResult(
        winner="landlord" if landlord_won else "farmers", landlord=landlord, base=state.base,
        bombs=state.bombs, rockets=0, spring=False, anti_spring=False, farmers=farmers,
        multipliers=mults, points=(), bonus=bonus)
    stakes: Sequence[int] = [state.base * m + bonus for m in mults]
    return settle(state, result, stakes)
