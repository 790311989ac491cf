"""All pass again and again: the house option ``redeal_rule`` (RULES.md §2.3). Pure.

The seeds' tournament rule: "如果庄家连续两局不叫，第三局庄家至少叫两分；如果连续三把无人叫牌，
庄家扣4分，其余两人得2分". The 庄家 is the first bidder, who stays the same through redeals.
``all_passed`` below is the number of deals in a row, right before the one in question, in which
everybody passed (0 for a deal after a played one: the count resets when a deal is played).

* ``redeal``: deal again with the same first bidder, without end (a bot may close a table
  after :data:`REDEAL_VALVE` redeals in a row, and says so).
* ``forced_bid``: after two all-pass deals in a row, the third deal's first bidder may not pass:
  it bids 2 or 3 (``score``) or calls (``rob``). A fourth redeal never happens.
* ``penalty``: the third all-pass deal in a row ends the deal: the first bidder scores −4 and
  each other seat +2 (:data:`PENALTY_POINTS`); the next deal rotates as after any played deal.

A four-player table (RULES.md §11) never redeals (逼打), so none of this applies there.

>>> from engine.presets import SCORE
>>> rules = SCORE.with_options(redeal_rule="forced_bid")
>>> must_bid_seat(rules, first_bidder=2, all_passed=1), must_bid_seat(rules, 2, all_passed=2)
(None, 2)
>>> penalty_points(SCORE.with_options(redeal_rule="penalty"), first_bidder=1)
(2, -4, 2)
"""

from __future__ import annotations

from engine.presets import Rules
from engine.scoring import DealResult

#: All-pass deals in a row after which the next deal's first bidder must bid (``forced_bid``).
FORCED_AFTER = 2
#: The all-pass deal in a row that is scored (``penalty``): the third.
PENALTY_AT = 3
#: Points each other seat gains from the first bidder under ``penalty`` (RULES.md §2.3: 2 each,
#: so the first bidder pays 4 at a three-seat table).
PENALTY_POINTS = 2
#: Redeals in a row after which a bot may close a table under ``redeal`` (RULES.md §2.3: the
#: documented safety valve; nobody pays).
REDEAL_VALVE = 10


def must_bid_seat(rules: Rules, first_bidder: int, all_passed: int) -> int | None:
    """The seat that may not pass in a deal whose ``all_passed`` deals before it all passed:
    the first bidder under ``forced_bid`` once two all-pass deals came in a row, else ``None``
    (RULES.md §2.3). Never at a table that forces a landlord when all pass (§2.1, §11)."""
    if rules.redeal_rule != "forced_bid" or rules.all_pass_forced_landlord:
        return None
    return first_bidder if all_passed >= FORCED_AFTER else None


def scores_all_pass(rules: Rules, all_passed: int) -> bool:
    """Whether everybody passing in this deal (after ``all_passed`` all-pass deals in a row)
    is scored under ``penalty`` instead of dealt again (RULES.md §2.3)."""
    return rules.redeal_rule == "penalty" and not rules.all_pass_forced_landlord \
        and all_passed + 1 >= PENALTY_AT


def penalty_points(rules: Rules, first_bidder: int) -> tuple[int, ...]:
    """Points per seat of a scored all-pass deal (RULES.md §2.3): each other seat gets
    :data:`PENALTY_POINTS`, the first bidder pays them all; sums to zero.

    Raises:
        ValueError: no such seat.
    """
    if not 0 <= first_bidder < rules.seats:
        raise ValueError(f"no seat {first_bidder} at a {rules.seats}-seat table")
    return tuple(-PENALTY_POINTS * (rules.seats - 1) if seat == first_bidder else PENALTY_POINTS
                 for seat in range(rules.seats))


def penalty_result(rules: Rules, first_bidder: int) -> DealResult:
    """The result of a scored all-pass deal (RULES.md §2.3): nobody won, no landlord, nobody
    left; :func:`penalty_points` as its points (beans = points × stake, RULES.md §8)."""
    return DealResult(winner=None, landlord=None, base=0, bombs=0, rockets=0, spring=False,
                      anti_spring=False, farmers=(), multipliers=(),
                      points=penalty_points(rules, first_bidder))


def is_penalty_result(result: DealResult | None) -> bool:
    """``result`` is a scored all-pass deal's (:func:`penalty_result`): no winner, no landlord,
    nobody left, and points moved."""
    return result is not None and result.winner is None and result.landlord is None \
        and not result.escaped and any(result.points)
