"""Computer player for the four-player, two-deck game (RULES.md §11): bids, plays and hints.

It decides from a :class:`engine.view.SeatView` only, and only among ``view.legal_plays()``, so
it never plays a bomb past the seat's allowance (RULES.md §11 bomb limits).

* **Bidding**: :func:`bid_strength` counts controls (bombs by size, the joker bomb, jokers, 2s)
  and the plays the hand needs (:func:`engine.ai.four_plan.plan_cost`); thresholds below.
* **Leading**: the hand's plan (:mod:`engine.ai.four_plan`) is played lowest first, longer plays
  first at similar strength, bombs last; a hand that is one play is played out. Against an
  opponent with one or two cards left it leads what they cannot follow (no single into a
  single, no pair into two cards), and a farmer feeds a partner who has one card left.
* **Following**: an opponent's play is beaten with the cheapest play that keeps the plan (an
  exact part of the plan first, else the play whose remaining hand costs least, if it costs at
  most one turn more); bombs only while the allowance lasts and when it matters: an opponent is
  down to :data:`DANGER` cards or fewer, or the bomb leaves a hand of at most two plays.
  Farmers cooperate: a partner's play is not beaten unless that plays the hand out.
* Levels: ``easy`` follows the cheapest legal play (bombs only to play out); ``normal`` and
  ``hard`` play the plan as above.
"""

from __future__ import annotations

from engine.action import Action, ActionKind
from engine.ai.four_plan import counts_of, plan, plan_cost, strength, without
from engine.cards import BIG_JOKER, SMALL_JOKER, TWO
from engine.combos import ComboType, Play
from engine.four.allowance import is_bomb
from engine.view import SeatView

__all__ = ["BID_THRESHOLDS", "DANGER", "bid_strength", "choose_action_four", "hints_four"]

T = ComboType
#: Strength needed for a bid of 1, 2, 3 (RULES.md §11 bidding). Calibration (300 self-play
#: deals of the ``normal`` level, seat 0 the landlord): its win rate is about 0.50 at a
#: strength of 3–6, 0.63 at 6–9, 0.69 at 9–12 and 0.80 at 12–15 with a bid of 1 (every farmer
#: 1 bomb), and 0.48 / 0.55 / 0.65 / 0.70 after a 头撂 3 (farmers bomb freely).
BID_THRESHOLDS = (6.0, 9.0, 12.0)
#: An opponent with this many cards or fewer is close to playing out: bombs are worth spending.
DANGER = 6
#: Following, the weakest this many beating plays are weighed by what the hand is left with.
FOLLOW_CANDIDATES = 10


def bid_strength(ranks: tuple[int, ...]) -> float:
    """Strength points of a 25-card hand: each bomb 3 + 1 per card beyond four, the joker bomb
    8, each joker 1.5, each 2 outside a bomb 0.7; every play the plan needs beyond 8 costs 1,
    every one below 8 earns 1."""
    c = counts_of(ranks)
    score = 0.0
    if c[SMALL_JOKER] == 2 and c[BIG_JOKER] == 2:
        score += 8.0
    else:
        score += 1.5 * (c[SMALL_JOKER] + c[BIG_JOKER])
    for r in range(SMALL_JOKER):
        if c[r] >= 4:
            score += 3.0 + (c[r] - 4)
    if c[TWO] < 4:
        score += 0.7 * c[TWO]
    return score + 8.0 - plan_cost(ranks)


def choose_action_four(view: SeatView, level: str = "normal") -> Action:
    """The decision of ``view.seat`` (RULES.md §11); always one of ``view.legal_actions()``.

    Raises:
        ValueError: the seat has nothing to decide now.
    """
    seat = view.seat
    if seat not in view.to_act or view.phase not in ("bidding", "playing"):
        raise ValueError(f"seat {seat} has nothing to decide now")
    if view.phase == "bidding":
        return _bid(view)
    plays = view.legal_plays()
    play = _cheapest(view, plays) if level == "easy" else _choose(view, plays)
    if play is None:
        return Action(ActionKind.PASS, seat)
    return Action(ActionKind.PLAY, seat, cards=play.cards, type=play.type)


def hints_four(view: SeatView, limit: int = 5) -> list[Play]:
    """Up to ``limit`` legal plays, best first: the AI's choice, then the plan's parts, then the
    rest, weakest and longest first, bombs last; ``[]`` unless the seat is to play."""
    plays = view.legal_plays()
    if not plays or limit <= 0:
        return []
    first = _choose(view, plays)
    parts = {p.cards for p in plan(view.hand_ranks)}
    ranked = sorted(plays, key=lambda p: (p != first, is_bomb(p), p.cards not in parts,
                                          round(strength(p) * 4), -len(p.cards), p.main))
    return ranked[:limit]


# --- bidding -----------------------------------------------------------------------------------


def _bid(view: SeatView) -> Action:
    want = sum(1 for t in BID_THRESHOLDS if bid_strength(view.hand_ranks) >= t)
    bids = [a for a in view.legal_actions()
            if a.kind == ActionKind.BID and (a.value or 0) <= want]
    return max(bids, key=lambda a: a.value or 0) if bids else Action(ActionKind.PASS, view.seat)


# --- play --------------------------------------------------------------------------------------


def _partners(view: SeatView, seat: int) -> bool:
    return seat != view.seat and view.landlord not in (seat, view.seat)


def _opponents(view: SeatView) -> list[int]:
    return [s for s in range(len(view.counts))
            if s != view.seat and not _partners(view, s) and view.counts[s] > 0]


def _cost_after(view: SeatView, play: Play) -> float:
    return plan_cost(without(view.hand_ranks, play.cards))


def _cheapest(view: SeatView, plays: list[Play]) -> Play | None:
    if not plays:
        return None
    out = [p for p in plays if len(p.cards) == len(view.hand)]
    if out:
        return out[0]
    quiet = [p for p in plays if not is_bomb(p)]
    if not quiet:
        return None if not view.leading else plays[0]
    return min(quiet, key=lambda p: (p.main, -len(p.cards)))


def _choose(view: SeatView, plays: list[Play]) -> Play | None:
    if not plays:
        return None
    hand = view.hand_ranks
    out = [p for p in plays if len(p.cards) == len(hand)]
    if out:
        return out[0]
    if view.leading:
        return _lead(view, plays)
    return _follow(view, plays)


def _lead(view: SeatView, plays: list[Play]) -> Play:
    legal = set(plays)
    parts = [p for p in plan(view.hand_ranks) if p in legal]
    if not parts:  # the plan's plays are bombs past the allowance: break one up
        return min(plays, key=lambda p: (p.main, -len(p.cards)))
    quiet = [p for p in parts if not is_bomb(p)]
    if len(quiet) <= 1 and quiet:
        # one play left besides bombs: bombs first win the lead back, then play out
        bombs = [p for p in parts if is_bomb(p)]
        return bombs[0] if bombs and view.bombs_left() != 0 else quiet[0]
    candidates = quiet or parts
    danger = min((view.counts[s] for s in _opponents(view)), default=99)
    partner_one = any(_partners(view, s) and view.counts[s] == 1 for s in range(len(view.counts)))
    if partner_one and view.landlord is not None and view.seat != view.landlord:
        singles = [p for p in plays if p.type is T.SINGLE]
        if singles:
            return min(singles, key=lambda p: p.main)
    if danger <= 2:
        safe = [p for p in candidates if len(p.cards) > danger
                or p.type not in (T.SINGLE, T.PAIR)]
        if safe:
            candidates = safe
        else:  # only small plays: lead the strongest so the opponent cannot follow
            return max(candidates, key=strength)
    return min(candidates, key=lambda p: (round(strength(p) * 4), -len(p.cards), p.main))


def _follow(view: SeatView, plays: list[Play]) -> Play | None:
    trick_seat = view.trick.seat
    if trick_seat is not None and _partners(view, trick_seat):
        return None  # cooperate: never top a partner (playing out was handled before)
    quiet = [p for p in plays if not is_bomb(p)]
    parts = {p.cards for p in plan(view.hand_ranks)}
    exact = [p for p in quiet if p.cards in parts]
    if exact:
        return min(exact, key=lambda p: (strength(p), p.main))
    now = plan_cost(view.hand_ranks)
    danger = min((view.counts[s] for s in _opponents(view)), default=99)
    cheapest = sorted(range(len(quiet)), key=lambda i: (strength(quiet[i]), -len(quiet[i].cards)))
    scored = sorted((_cost_after(view, quiet[i]), strength(quiet[i]), quiet[i].main, i)
                    for i in cheapest[:FOLLOW_CANDIDATES])
    limit = 1.6 if danger <= DANGER else 1.0
    for cost, _, _, i in scored:
        if cost <= now + limit - 1.0 or danger <= 2:
            return quiet[i]
        break
    bombs = [p for p in plays if is_bomb(p)]
    if bombs and view.bombs_left() != 0:
        bomb = min(bombs, key=lambda p: (p.n, p.main) if p.type is T.BOMB else (99, 99))
        left = plan(without(view.hand_ranks, bomb.cards))
        if danger <= DANGER or sum(1 for p in left if not is_bomb(p)) <= 2:
            return bomb
    return None
