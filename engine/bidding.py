"""Bidding for the landlord: the `score` and `rob` presets (RULES.md §2).

:class:`Bidding` is the public state of the bidding; :func:`bid_step` applies one bidding action
and :func:`bidding_choices` lists what the seat to speak may say. Both are pure.

>>> from engine.presets import SCORE
>>> b = start_bidding(SCORE, first_bidder=1)
>>> b = bid_step(b, SCORE, Action(ActionKind.BID, 1, value=1))
>>> b = bid_step(b, SCORE, Action(ActionKind.BID, 2, value=3))
>>> b.finished, b.high_bidder, b.high_bid
(True, 2, 3)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.action import Action, ActionKind, IllegalAction
from engine.presets import Rules

MAX_BID = 3


@dataclass(frozen=True, slots=True)
class Bidding:
    """Public state of the bidding (RULES.md §2).

    Attributes:
        first_bidder: the seat that spoke first.
        queue: seats still to speak, in order; ``queue[0]`` speaks now; empty when finished.
        spoken: seats that have spoken in the first round, in order (score: bid or pass; rob:
            call or decline).
        stage: ``"bid"`` (score), ``"call"``, ``"rob"`` or ``"last"`` (rob: the caller's last
            chance to rob back), ``"done"``.
        high_bid: score preset, the highest bid so far (0 = none).
        high_bidder: the current landlord candidate: the highest bidder (score), or the caller /
            last robber (rob); ``None`` while nobody has bid or called.
        caller: rob preset, the seat that called.
        declined: rob preset, seats that declined to call (they may not rob).
        robs: rob preset, number of robs so far (each doubles the multiplier).
        must_bid: the seat that may not pass (score: bids 2 or 3) or decline (rob: calls), the
            first bidder of a third deal in a row under ``redeal_rule`` ``forced_bid``
            (RULES.md §2.3, :func:`engine.redeal.must_bid_seat`); ``None`` = nobody.
        barred: per seat, ``True`` for a seat that may only pass (RULES.md §11, seed 004 rule
            5: a player who lost three deals as landlord in a match or tournament stage);
            empty = nobody. A barred first bidder still becomes the forced landlord (逼打)
            when all pass.
    """

    first_bidder: int
    queue: tuple[int, ...]
    spoken: tuple[int, ...] = ()
    stage: str = "bid"
    high_bid: int = 0
    high_bidder: int | None = None
    caller: int | None = None
    declined: tuple[int, ...] = ()
    robs: int = 0
    must_bid: int | None = None
    barred: tuple[bool, ...] = ()

    def is_barred(self, seat: int) -> bool:
        """``seat`` may only pass in this bidding (:attr:`barred`, RULES.md §11)."""
        return 0 <= seat < len(self.barred) and self.barred[seat]

    @property
    def finished(self) -> bool:
        """True once nobody is left to speak."""
        return not self.queue

    @property
    def started(self) -> bool:
        """True once a bid (score) or call (rob) has been made: showing cards for ×4 is over."""
        return self.high_bidder is not None


#: RULES.md §2.3: the lowest bid of a seat that may not pass (score preset).
FORCED_MIN_BID = 2


def start_bidding(rules: Rules, first_bidder: int, *, must_bid: int | None = None,
                  barred: tuple[bool, ...] = ()) -> Bidding:
    """The bidding before anyone speaks; seats speak in seat order from ``first_bidder``.
    ``must_bid``: a seat that may not pass (RULES.md §2.3, ``forced_bid``); ``barred``: per
    seat, may only pass (:attr:`Bidding.barred`, RULES.md §11)."""
    order = tuple((first_bidder + i) % rules.seats for i in range(rules.seats))
    return Bidding(first_bidder, order, stage="call" if rules.bidding == "rob" else "bid",
                   must_bid=must_bid, barred=barred if any(barred) else ())


def shower_calls_first(bidding: Bidding, rules: Rules, seat: int) -> Bidding:
    """Rob preset: ``seat`` showed its cards first before anyone called, so it calls first
    (RULES.md §3, seed 003: 第一个选择明牌的玩家为首叫人).

    ``seat`` speaks next, then the seats still to speak in seat order after it; it becomes
    ``first_bidder`` (the seat forced to be landlord under ``all_pass_forced_landlord``) when
    nobody has spoken yet. A seat that has already declined keeps its decline: the bidding is
    unchanged.
    """
    if seat not in bidding.queue or bidding.started:
        return bidding
    order = [(seat + i) % rules.seats for i in range(rules.seats)]
    queue = tuple(s for s in order if s in bidding.queue)
    first = seat if not bidding.spoken else bidding.first_bidder
    return replace(bidding, queue=queue, first_bidder=first)


def min_bid(bidding: Bidding, rules: Rules) -> int:
    """Lowest bid the seat to speak may make (RULES.md §2.1, house option ``third_min_two``;
    §2.3: a seat that may not pass bids at least 2)."""
    low = bidding.high_bid + 1
    if rules.third_min_two and bidding.high_bid == 0 and len(bidding.spoken) == rules.seats - 1:
        low = max(low, 2)
    if bidding.queue and bidding.queue[0] == bidding.must_bid:
        low = max(low, FORCED_MIN_BID)
    return low


def must_speak(bidding: Bidding) -> bool:
    """The seat to speak may not pass or decline (RULES.md §2.3, ``forced_bid``): it is the
    bidding's ``must_bid`` seat, in the first round (bid, or call while nobody has called)."""
    return bool(bidding.queue) and bidding.queue[0] == bidding.must_bid \
        and bidding.stage in ("bid", "call")


def bidding_choices(bidding: Bidding, rules: Rules) -> list[tuple[ActionKind, int | None]]:
    """``(kind, value)`` pairs the seat ``bidding.queue[0]`` may choose; empty when finished."""
    if bidding.finished:
        return []
    forced = must_speak(bidding)
    if bidding.stage == "bid":
        if bidding.is_barred(bidding.queue[0]) and not forced:  # RULES.md §11
            return [(ActionKind.PASS, None)]
        bids: list[tuple[ActionKind, int | None]] = [
            (ActionKind.BID, v) for v in range(min_bid(bidding, rules), MAX_BID + 1)]
        return bids if forced else bids + [(ActionKind.PASS, None)]
    if bidding.stage == "call":
        call = (ActionKind.CALL, None)
        return [call] if forced else [call, (ActionKind.DECLINE, None)]
    return [(ActionKind.ROB, None), (ActionKind.NOROB, None)]


def bid_step(bidding: Bidding, rules: Rules, action: Action) -> Bidding:
    """Apply one bidding action of the seat to speak (RULES.md §2.1 / §2.2).

    Raises:
        IllegalAction: ``not_your_turn``; ``must_bid`` (a pass or decline of the seat that may
            not, RULES.md §2.3); ``barred`` (a bid of a seat that may only pass, RULES.md §11;
            a seat that must bid is not barred); ``not_allowed`` (a kind this preset or stage
            does not use); ``bid_not_allowed`` (a bid outside 1..3, a 1 under
            ``third_min_two`` or from the seat that must bid); ``bid_too_low`` (not higher than
            the highest bid).
    """
    if bidding.finished:
        raise IllegalAction("wrong_phase", "The bidding is over.")
    seat = bidding.queue[0]
    if action.seat != seat:
        raise IllegalAction("not_your_turn", f"It is seat {seat}'s turn to bid.")
    if action.kind == ActionKind.BID and bidding.stage == "bid" and bidding.is_barred(seat) \
            and not must_speak(bidding):
        raise IllegalAction("barred", "You lost three deals as landlord: you may only pass "
                                      "(RULES.md §11).")
    allowed = {kind for kind, _ in bidding_choices(bidding, rules)}
    if must_speak(bidding) and action.kind in (ActionKind.PASS, ActionKind.DECLINE):
        word = "bid 2 or 3" if bidding.stage == "bid" else "call the landlord"
        raise IllegalAction("must_bid", f"Everybody passed two deals in a row: you must {word}.")
    if action.kind not in allowed:
        words = " or ".join(sorted(allowed))
        raise IllegalAction("not_allowed", f"Now the choice is {words}, not {action.kind}.")
    if action.kind == ActionKind.BID:
        return _bid(bidding, rules, action.value or 0)
    if action.kind == ActionKind.PASS:
        return replace(bidding, queue=bidding.queue[1:], spoken=bidding.spoken + (seat,))
    if action.kind == ActionKind.CALL:
        return _after_rob_turn(replace(bidding, queue=bidding.queue[1:],
                                       spoken=bidding.spoken + (seat,), stage="rob",
                                       caller=seat, high_bidder=seat))
    if action.kind == ActionKind.DECLINE:
        return _done_if_empty(replace(bidding, queue=bidding.queue[1:],
                                      spoken=bidding.spoken + (seat,),
                                      declined=bidding.declined + (seat,)))
    if action.kind == ActionKind.ROB:
        bidding = replace(bidding, robs=bidding.robs + 1, high_bidder=seat)
    return _after_rob_turn(replace(bidding, queue=bidding.queue[1:]))


def _bid(bidding: Bidding, rules: Rules, value: int) -> Bidding:
    seat = bidding.queue[0]
    if not 1 <= value <= MAX_BID:
        raise IllegalAction("bid_not_allowed", f"A bid is 1, 2 or 3, not {value}.")
    low = min_bid(bidding, rules)
    if value < low:
        if value > bidding.high_bid:
            why = ("Everybody passed two deals in a row: you must bid 2 or 3."
                   if bidding.must_bid == seat else
                   "After two passes the third seat may only bid 2 or 3.")
            raise IllegalAction("bid_not_allowed", why)
        raise IllegalAction("bid_too_low",
                            f"The bid must be higher than {bidding.high_bid}.")
    queue = () if value == MAX_BID else bidding.queue[1:]
    return _done_if_empty(replace(bidding, queue=queue, spoken=bidding.spoken + (seat,),
                                  high_bid=value, high_bidder=seat))


def _after_rob_turn(bidding: Bidding) -> Bidding:
    """After a call or rob turn: next robber, the caller's last chance, or done (RULES §2.2)."""
    if bidding.queue:
        return bidding
    if bidding.stage == "rob" and bidding.robs > 0 and bidding.caller is not None:
        return replace(bidding, stage="last", queue=(bidding.caller,))
    return replace(bidding, stage="done")


def _done_if_empty(bidding: Bidding) -> Bidding:
    return replace(bidding, stage="done") if not bidding.queue else bidding
