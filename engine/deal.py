"""One deal as an immutable state machine (RULES.md §1–§4, §7, §9, §11).

Both games run here: the three-player game and the four-player, two-deck game of RULES.md §11
(``rules.variant == "four"``), whose combinations, bomb allowances and score come from
:mod:`engine.four`; its bidding is the score bidding with 逼打 (``all_pass_forced_landlord``).

``new_deal`` deals the cards; ``apply(state, action)`` returns the next state and never changes
the old one; an action the rules forbid raises :class:`IllegalAction` with a stable ``code``.

Phases: ``"bidding"`` → (``"doubling"`` if ``rules.doubling``) → ``"playing"`` → ``"finished"``;
or ``"bidding"`` → ``"redeal"`` when everybody passes (RULES.md §2), unless the house option
``redeal_rule`` scores a third all-pass deal in a row (``"finished"``, RULES.md §2.3,
:mod:`engine.redeal`); a seat leaving during
bidding ends the deal at once (``"finished"`` with an escape result, RULES.md §9).

Rule choices where RULES.md is silent (in RULES terms):

* **Out of turn**: ``show``, ``autoplay`` and ``leave`` may be taken by any seat whenever their
  own conditions hold; every other action only by a seat in ``to_act``.
* **Show cards** (RULES.md §3): ×4 for a seat showing during bidding before the first bid (score)
  or call (rob); ×2 for the landlord after taking the kitty and before the first play. A show
  multiplies every pair, like a rob, and only the largest factor of the deal counts
  (:func:`engine.scoring.pair_multipliers`). In the ``rob`` preset the first seat to show before
  anyone has called becomes the first caller (seed 003: 第一个选择明牌的玩家为首叫人): it speaks
  next, then the seats that have not spoken, in seat order after it. A seat that has already
  declined keeps its decline (its show only multiplies), and ``DealState.first_bidder`` stays the
  dealt first bidder (rotation and a redeal follow it, RULES.md §1.4, §2.2).
* **Timeout** (RULES.md §9): auto-play goes on, then the seeds' default action is taken
  (:func:`auto_action`). The history records the ``timeout`` followed by that action.
* **Auto-play penalty** (RULES.md §9): a farmer counts as "on auto-play" once a play or a pass of
  theirs in the playing phase was made by auto-play (a timeout, or made while the seat was on
  auto-play by the toggle) while they held 2 or more cards (``DealState.autoplayed``). Taking
  back control does not undo it; a decision made by auto-play with the last card in hand does
  not count (seed 003: 剩下最后1张牌托管或断线，输赢得分正常计算), nor do bidding and doubling
  decisions, nor being on auto-play without a turn coming.
* **Leaving** (RULES.md §9): during doubling or play the seat goes on auto-play for the rest of the
  deal (it cannot switch it off) and at the end pays instead of the normal result
  (:func:`engine.scoring.escape_points`); during bidding the deal is cancelled at once and the
  leaver pays 6 points before anyone bid or called, else ``max(6, 3 × highest bid so far ×
  multiplier so far)`` (:func:`engine.scoring.bidding_escape_result`). If every seat has left,
  the deal ends at once with zero points.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine import combos
from engine.action import Action, ActionKind, IllegalAction
from engine.bidding import (
    Bidding,
    bid_step,
    min_bid,
    must_speak,
    shower_calls_first,
    start_bidding,
)
from engine.cards import DECK, card_rank, format_ranks, shuffled_deck
from engine.codec import (
    action_from_dict,
    action_to_dict,
    bidding_from_dict,
    bidding_to_dict,
    result_from_dict,
    result_to_dict,
    trick_from_dict,
    trick_to_dict,
)
from engine.combos import ComboType, Play
from engine.four.allowance import bomb_limits, is_bomb
from engine.four.score import four_multipliers, score_four
from engine.presets import Rules
from engine.redeal import must_bid_seat, penalty_result, scores_all_pass
from engine.scoring import DealResult, bidding_escape_result, pair_multipliers, score_deal
from engine.trick import Trick, read_play
from engine.view import SeatView

__all__ = [
    "Action", "DealResult", "DealState", "IllegalAction", "SeatView", "Trick", "apply",
    "auto_action", "new_deal", "next_first_bidder",
]

ACTIVE_PHASES = ("bidding", "doubling", "playing")
_JSON_FORMAT = 1


@dataclass(frozen=True, slots=True)
class DealState:
    """The whole state of one deal. Immutable: :func:`apply` returns a new one.

    Attributes:
        rules: the deal's rules (``engine.presets.Rules``).
        first_bidder: the seat that bid first (RULES.md §1.4).
        phase: ``"bidding"``, ``"doubling"``, ``"playing"``, ``"finished"`` or ``"redeal"``.
        hands: per seat, its cards (card ids ``0..53``, sorted); the landlord's includes the kitty.
        kitty: the kitty's cards (revealed in views once the landlord is decided).
        to_act: seats that may act now: one seat, except in the doubling round, where every
            undecided seat may (listed in seat order starting with the landlord); empty when over.
        bidding: the public bidding state (RULES.md §2).
        landlord: the landlord seat once decided.
        base: the base score: the highest bid so far (score preset) or 1 (rob preset).
        doubled: per seat, ``True``/``False`` once decided in the doubling round, else ``None``.
        shown: per seat, the show-cards factor taken (4 or 2), 0 if not shown (RULES.md §3).
        trick: the current trick (RULES.md §4).
        play_counts: per seat, the number of plays made (passes excluded).
        last_cards: per seat, the card ids its latest play took from its hand (public: played
            cards are face up, RULES.md §4), ``None`` before its first play. The engine takes a
            played rank's lowest card id from the hand, so these are the very cards that left it.
        bombs: bombs, rockets and joker bombs played so far (RULES.md §7, §11).
        rockets: rockets played so far (also counted in ``bombs``).
        seat_bombs: per seat, the bombs (rockets, joker bombs) it has played.
        bomb_limits: per seat, how many bombs it may play in the deal, ``None`` = any number:
            the farmers' allowances of the four-player game, set when the landlord is decided
            (RULES.md §11, :func:`engine.four.allowance.bomb_limits`); always ``None`` in the
            three-player game.
        autoplay: per seat, auto-play is on now (RULES.md §9).
        autoplayed: per seat, a play or pass of the playing phase was made by auto-play while
            the seat held 2+ cards; never cleared (the auto-play penalty, RULES.md §9).
        escaped: per seat, left the deal (RULES.md §9).
        history: every applied action in order (a ``timeout`` is followed by its resolution).
        version: +1 per applied action (0 when dealt).
        result: the result once ``phase == "finished"``, else ``None``.
        all_passed: deals in a row right before this one in which everybody passed (RULES.md
            §2.3: the first bidder of a third may have to bid, or a third is scored).
    """

    rules: Rules
    first_bidder: int
    phase: str
    hands: tuple[tuple[int, ...], ...]
    kitty: tuple[int, ...]
    to_act: tuple[int, ...]
    bidding: Bidding
    landlord: int | None
    base: int
    doubled: tuple[bool | None, ...]
    shown: tuple[int, ...]
    trick: Trick
    play_counts: tuple[int, ...]
    last_cards: tuple[tuple[int, ...] | None, ...]
    bombs: int
    rockets: int
    seat_bombs: tuple[int, ...]
    bomb_limits: tuple[int | None, ...]
    autoplay: tuple[bool, ...]
    autoplayed: tuple[bool, ...]
    escaped: tuple[bool, ...]
    history: tuple[Action, ...]
    version: int
    result: DealResult | None
    all_passed: int = 0

    @property
    def counts(self) -> tuple[int, ...]:
        """Number of cards per seat."""
        return tuple(len(h) for h in self.hands)

    @property
    def farmers(self) -> tuple[int, ...]:
        """The farmer seats in seat order (empty before the landlord is decided)."""
        if self.landlord is None:
            return ()
        return tuple(s for s in range(self.rules.seats) if s != self.landlord)

    def multipliers(self) -> tuple[int, ...]:
        """Each farmer–landlord pair's multiplier, farmers in seat order (RULES.md §7).

        So far (robs, doubling, shown cards, bombs and rockets played); once finished, the final
        values including spring / anti-spring. Empty before the landlord is decided.
        """
        if self.result is not None and self.result.multipliers:
            return self.result.multipliers
        if self.landlord is None:
            return ()
        if self.rules.variant == "four":
            return four_multipliers(self.rules, self.bombs)
        return pair_multipliers(self.rules, landlord=self.landlord, robs=self.bidding.robs,
                                doubled=self.doubled, shown=self.shown, bombs=self.bombs)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may see: its own hand and the public information.

        Raises:
            ValueError: no such seat.
        """
        _check_seat(self.rules, seat)
        revealed = self.landlord is not None
        played = sorted(r for a in self.history if a.kind == ActionKind.PLAY for r in a.cards or ())
        return SeatView(
            seat=seat, rules=self.rules, phase=self.phase, version=self.version,
            to_act=self.to_act, hand=self.hands[seat], counts=self.counts,
            kitty=self.kitty if revealed else None,
            shown_hands=tuple(h if f else None for h, f in zip(self.hands, self.shown,
                                                                strict=True)),
            history=self.history, trick=self.trick, bidding=self.bidding,
            landlord=self.landlord, base=self.base, multipliers=self.multipliers(),
            doubled=self.doubled, autoplay=self.autoplay, escaped=self.escaped,
            alarm=tuple(self.phase == "playing" and 0 < c <= self.rules.alarm_at
                        for c in self.counts),
            played=tuple(played), last_cards=self.last_cards, result=self.result,
            seat_bombs=self.seat_bombs, bomb_limits=self.bomb_limits)

    def legal_actions(self, seat: int) -> list[Action]:
        """The game decisions ``seat`` may take now (see :meth:`SeatView.legal_actions`)."""
        return self.view(seat).legal_actions()

    def to_dict(self) -> dict[str, Any]:
        """A plain JSON-ready dict; :meth:`from_dict` is its exact inverse."""
        return {
            "format": _JSON_FORMAT, "rules": self.rules.to_dict(),
            "first_bidder": self.first_bidder, "phase": self.phase,
            "hands": [list(h) for h in self.hands], "kitty": list(self.kitty),
            "to_act": list(self.to_act), "bidding": bidding_to_dict(self.bidding),
            "landlord": self.landlord, "base": self.base, "doubled": list(self.doubled),
            "shown": list(self.shown), "trick": trick_to_dict(self.trick),
            "play_counts": list(self.play_counts),
            "last_cards": [None if c is None else list(c) for c in self.last_cards],
            "bombs": self.bombs, "rockets": self.rockets, "seat_bombs": list(self.seat_bombs),
            "bomb_limits": list(self.bomb_limits),
            "autoplay": list(self.autoplay), "autoplayed": list(self.autoplayed),
            "escaped": list(self.escaped), "history": [action_to_dict(a) for a in self.history],
            "version": self.version, "result": result_to_dict(self.result),
            "all_passed": self.all_passed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DealState:
        """Inverse of :meth:`to_dict`. A state stored before ``last_cards`` existed reads with
        ``None`` for every seat (no play's cards known); one stored before ``seat_bombs`` and
        ``bomb_limits`` with no bombs counted per seat and no limits (three-player states). A
        state without ``autoplayed`` reads as no seat marked; one stored while a take-back still
        cleared the mark keeps the marks it had (RULES.md §9); one stored before ``all_passed``
        with 0.

        Raises:
            ValueError: an unknown format or malformed data.
        """
        if data.get("format") != _JSON_FORMAT:
            raise ValueError(f"unknown deal state format {data.get('format')!r}")
        try:
            return cls(
                rules=Rules.from_dict(data["rules"]), first_bidder=data["first_bidder"],
                phase=data["phase"], hands=tuple(tuple(h) for h in data["hands"]),
                kitty=tuple(data["kitty"]), to_act=tuple(data["to_act"]),
                bidding=bidding_from_dict(data["bidding"]), landlord=data["landlord"],
                base=data["base"], doubled=tuple(data["doubled"]), shown=tuple(data["shown"]),
                trick=trick_from_dict(data["trick"]), play_counts=tuple(data["play_counts"]),
                last_cards=_last_cards_from(data.get("last_cards"), len(data["hands"])),
                bombs=data["bombs"], rockets=data["rockets"],
                seat_bombs=tuple(data.get("seat_bombs") or (0,) * len(data["hands"])),
                bomb_limits=tuple(data.get("bomb_limits") or (None,) * len(data["hands"])),
                autoplay=tuple(data["autoplay"]),
                autoplayed=tuple(data.get("autoplayed") or (False,) * len(data["hands"])),
                escaped=tuple(data["escaped"]),
                history=tuple(action_from_dict(a) for a in data["history"]),
                version=data["version"], result=result_from_dict(data["result"]),
                all_passed=int(data.get("all_passed", 0)))
        except (KeyError, TypeError, IllegalAction) as exc:
            raise ValueError(f"malformed deal state: {exc}") from exc

    def to_json(self) -> str:
        """Lossless JSON text of the state (for the store and restarts)."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> DealState:
        """Inverse of :meth:`to_json`.

        Raises:
            ValueError: not a deal state.
        """
        return cls.from_dict(json.loads(text))


def new_deal(rules: Rules, *, seed: int | None = None, first_bidder: int = 0,
             hands: Sequence[Sequence[int]] | None = None,
             kitty: Sequence[int] | None = None, all_passed: int = 0,
             barred: Sequence[bool] = ()) -> DealState:
    """Deal a new deal (RULES.md §1): ``rules.hand_size`` cards per seat, the rest as the kitty.

    Without ``hands``, a deck shuffled by ``random.Random(seed)`` is dealt (the same seed gives
    the same deal). With ``hands`` (card ids per seat), ``kitty`` defaults to the cards left over.
    ``all_passed``: deals in a row before this one in which everybody passed (a redeal's
    count; RULES.md §2.3, ``rules.redeal_rule``: the first bidder may have to bid).
    ``barred`` (the four-player game, RULES.md §11): per seat, ``True`` for a seat that may only
    pass in the bidding, having lost three deals as landlord in its match or tournament stage
    (the caller counts them); all four passing still makes the first bidder landlord (逼打),
    barred or not. Empty: nobody.

    >>> from engine.presets import SCORE
    >>> state = new_deal(SCORE, seed=7, first_bidder=1)
    >>> state.phase, state.to_act, state.counts
    ('bidding', (1,), (17, 17, 17))

    Raises:
        ValueError: a bad seat, or hands/kitty that are not exactly the deck dealt to size, or
            a negative ``all_passed``, or ``barred`` that is not one flag per seat or given
            outside the four-player game.
    """
    _check_seat(rules, first_bidder)
    if all_passed < 0:
        raise ValueError("all_passed counts deals: 0 or more")
    bar = _barred(rules, barred)
    n = rules.seats
    deck = [c for _ in range(rules.decks) for c in DECK]
    if n * rules.hand_size + rules.kitty_size != len(deck):
        raise ValueError("rules: seats × hand_size + kitty_size must use the whole deck")
    if hands is None:
        if kitty is not None:
            raise ValueError("a kitty can only be given together with the hands")
        dealt = shuffled_deck(random.Random(seed), decks=rules.decks)
        size = rules.hand_size
        hands = [dealt[i * size:(i + 1) * size] for i in range(n)]
        kitty = dealt[n * size:]
    else:
        if len(hands) != n or any(len(h) != rules.hand_size for h in hands):
            raise ValueError(f"need {n} hands of {rules.hand_size} cards")
        if kitty is None:
            kitty = list((Counter(deck) - Counter(c for h in hands for c in h)).elements())
    if Counter(c for h in hands for c in h) + Counter(kitty) != Counter(deck) \
            or len(kitty) != rules.kitty_size:
        raise ValueError("hands and kitty must be exactly the deck")
    no, zero = (False,) * n, (0,) * n
    return DealState(
        rules=rules, first_bidder=first_bidder, phase="bidding",
        hands=tuple(tuple(sorted(h)) for h in hands), kitty=tuple(sorted(kitty)),
        to_act=(first_bidder,),
        bidding=start_bidding(rules, first_bidder,
                              must_bid=must_bid_seat(rules, first_bidder, all_passed),
                              barred=bar),
        landlord=None,
        base=1 if rules.bidding == "rob" else 0, doubled=(None,) * n, shown=zero, trick=Trick(),
        play_counts=zero, last_cards=(None,) * n, bombs=0, rockets=0, seat_bombs=zero,
        bomb_limits=(None,) * n, autoplay=no,
        autoplayed=no, escaped=no, history=(), version=0, result=None, all_passed=all_passed)


def next_first_bidder(state: DealState, *, winner_bids_first: bool | None = None) -> int:
    """First bidder of the next deal (RULES.md §1.4, §2.1, §2.3).

    After a redeal the same seat bids first; otherwise it rotates one seat (also after a
    scored all-pass deal, §2.3). With ``winner_bids_first`` (RULES.md §1.4 option; ``None``:
    ``state.rules.winner_bids_first``) the seat that played out bids first.
    """
    if state.phase == "redeal":
        return state.first_bidder
    if winner_bids_first is None:
        winner_bids_first = state.rules.winner_bids_first
    if winner_bids_first and state.result is not None and state.result.winner is not None:
        return state.counts.index(0)
    return (state.first_bidder + 1) % state.rules.seats


def apply(state: DealState, action: Action) -> DealState:
    """The state after ``action`` (RULES.md §2–§4, §9); ``state`` itself never changes.

    Raises:
        IllegalAction: the action is not allowed now (``code``: ``bad_action``,
            ``wrong_phase``, ``not_your_turn``, ``bid_too_low``, ``bid_not_allowed``,
            ``leader_cannot_pass``, ``cannot_beat``, ``invalid_combination``, ``not_in_hand``,
            ``already_decided``, ``not_allowed``; ``bomb_limit``: a farmer of the four-player
            game past their bomb allowance, RULES.md §11; ``barred``: a bid of a seat that may
            only pass, RULES.md §11).
    """
    if not isinstance(action, Action):
        raise IllegalAction("bad_action", "Not an action.")
    if action.seat >= state.rules.seats:
        raise IllegalAction("bad_action", f"There is no seat {action.seat}.")
    new = _HANDLERS[action.kind](state, action)
    if new.phase == "finished" and new.result is None:
        score = score_four if new.rules.variant == "four" else score_deal
        new = replace(new, result=score(new))
    return replace(new, version=state.version + 1)


def auto_action(state: DealState, seat: int) -> Action:
    """The seeds' default action for ``seat``, which must be in ``to_act`` (RULES.md §9).

    Bidding: pass / decline / norob, except that a seat that may not pass (RULES.md §2.3,
    ``forced_bid``) makes the lowest bid it may (2) or calls; doubling: nodouble; leading: the
    smallest single card;
    following: pass, except that a last card that beats the trick is played (seed 003:
    如果剩下最后1张牌托管，系统自动跟牌).

    Raises:
        IllegalAction: ``wrong_phase`` or ``not_your_turn``.
    """
    _need_active(state)
    if seat not in state.to_act:
        raise IllegalAction("not_your_turn", f"Seat {seat} is not to act.")
    if state.phase == "bidding":
        if must_speak(state.bidding):
            if state.bidding.stage == "call":
                return Action(ActionKind.CALL, seat)
            return Action(ActionKind.BID, seat, value=min_bid(state.bidding, state.rules))
        kind = {"bid": ActionKind.PASS, "call": ActionKind.DECLINE}.get(state.bidding.stage,
                                                                       ActionKind.NOROB)
        return Action(kind, seat)
    if state.phase == "doubling":
        return Action(ActionKind.NODOUBLE, seat)
    hand = state.hands[seat]
    lowest = (card_rank(hand[0]),)
    prev = state.trick.play
    if prev is None:
        return Action(ActionKind.PLAY, seat, cards=lowest)
    if len(hand) == 1 and any(combos.beats(p, prev) for p in combos.classify(lowest, state.rules)):
        return Action(ActionKind.PLAY, seat, cards=lowest)
    return Action(ActionKind.PASS, seat)


# --- handlers: each checks one kind of action and returns the next state (history included) ---


def _bidding_action(state: DealState, action: Action) -> DealState:
    if state.phase != "bidding":
        raise IllegalAction("wrong_phase", f"'{action.kind}' is a bidding action; "
                                           f"the deal is in {state.phase}.")
    bidding = bid_step(state.bidding, state.rules, action)
    state = replace(state, bidding=bidding, to_act=bidding.queue[:1],
                    base=bidding.high_bid if state.rules.bidding == "score" else 1,
                    history=state.history + (action,))
    return _end_bidding(state) if bidding.finished else state


def _end_bidding(state: DealState) -> DealState:
    """Landlord takes the kitty (RULES.md §1.3); all passed → redeal, forced landlord, or the
    third all-pass deal in a row scored (RULES.md §2.3, ``redeal_rule`` ``penalty``)."""
    rules, bidding = state.rules, state.bidding
    landlord, base = bidding.high_bidder, state.base
    if landlord is None:
        if scores_all_pass(rules, state.all_passed):
            return replace(state, phase="finished", to_act=(),
                           result=penalty_result(rules, state.first_bidder))
        if not rules.all_pass_forced_landlord:
            return replace(state, phase="redeal", to_act=())
        landlord, base = bidding.first_bidder, 1
    hands = list(state.hands)
    hands[landlord] = tuple(sorted(hands[landlord] + state.kitty))
    limits = bomb_limits(rules, state.history, first_bidder=bidding.first_bidder,
                         landlord=landlord)
    state = replace(state, bomb_limits=limits)
    if rules.doubling:
        phase = "doubling"
        to_act = tuple((landlord + i) % rules.seats for i in range(rules.seats))
    else:
        phase, to_act = "playing", (landlord,)
    return replace(state, phase=phase, to_act=to_act, landlord=landlord, base=base,
                   hands=tuple(hands))


def _pass(state: DealState, action: Action) -> DealState:
    if state.phase == "playing":
        return _pass_trick(state, action)
    return _bidding_action(state, action)


def _double(state: DealState, action: Action) -> DealState:
    if state.phase != "doubling":
        raise IllegalAction("wrong_phase", "Doubling is only after the landlord takes the kitty.")
    seat = action.seat
    if state.doubled[seat] is not None:
        raise IllegalAction("already_decided", "You have already decided about doubling.")
    doubled = list(state.doubled)
    doubled[seat] = action.kind == ActionKind.DOUBLE
    to_act = tuple(s for s in state.to_act if s != seat)
    state = replace(state, doubled=tuple(doubled), to_act=to_act,
                    history=state.history + (action,))
    if not to_act:
        assert state.landlord is not None
        state = replace(state, phase="playing", to_act=(state.landlord,))
    return state


def _play(state: DealState, action: Action) -> DealState:
    seat = _need_turn(state, action, "playing")
    hand = list(state.hands[seat])
    taken = []
    for rank in action.cards or ():
        index = next((i for i, c in enumerate(hand) if card_rank(c) == rank), None)
        if index is None:
            raise IllegalAction("not_in_hand",
                                f"You do not hold {format_ranks(action.cards or ())}.")
        taken.append(hand.pop(index))
    play = read_play(action.cards or (), action.type, state.trick.play, state.rules)
    limit = state.bomb_limits[seat]
    if is_bomb(play) and limit is not None and state.seat_bombs[seat] >= limit:
        raise IllegalAction("bomb_limit", _bomb_limit_text(limit))
    return _after_play(state, action, play, tuple(hand), tuple(sorted(taken)))


def _after_play(state: DealState, action: Action, play: Play, hand: tuple[int, ...],
                taken: tuple[int, ...]) -> DealState:
    seat, n = action.seat, state.rules.seats
    hands = list(state.hands)
    hands[seat] = hand
    counts = list(state.play_counts)
    counts[seat] += 1
    last_cards = list(state.last_cards)
    last_cards[seat] = taken
    is_rocket = play.type == ComboType.ROCKET
    bomb = is_bomb(play)
    seat_bombs = list(state.seat_bombs)
    seat_bombs[seat] += bomb
    state = replace(_mark_autoplay(state, seat), hands=tuple(hands), play_counts=tuple(counts),
                    last_cards=tuple(last_cards), bombs=state.bombs + bomb,
                    rockets=state.rockets + is_rocket, seat_bombs=tuple(seat_bombs),
                    history=state.history + (action,), trick=Trick(play, seat, 0))
    if not hand:
        return replace(state, phase="finished", to_act=())
    return replace(state, to_act=((seat + 1) % n,))


def _pass_trick(state: DealState, action: Action) -> DealState:
    seat = _need_turn(state, action, "playing")
    trick = state.trick
    if trick.play is None or trick.seat is None:
        raise IllegalAction("leader_cannot_pass", "You lead this trick: play any combination.")
    history = state.history + (action,)
    state = _mark_autoplay(state, seat)
    if trick.passes + 1 == state.rules.seats - 1:
        return replace(state, trick=Trick(), to_act=(trick.seat,), history=history)
    return replace(state, trick=replace(trick, passes=trick.passes + 1),
                   to_act=((seat + 1) % state.rules.seats,), history=history)


def _show(state: DealState, action: Action) -> DealState:
    _need_active(state)
    seat = action.seat
    if not state.rules.show_cards:
        raise IllegalAction("not_allowed", "Showing cards is off at this table.")
    if state.shown[seat]:
        raise IllegalAction("already_decided", "Your cards are already shown.")
    factor = state.view(seat).may_show()
    if not factor:
        raise IllegalAction("not_allowed", "Cards may be shown before the first bid, or by the "
                                           "landlord before the first play if nobody has shown.")
    first_show = not any(state.shown)
    shown = list(state.shown)
    shown[seat] = factor
    state = replace(state, shown=tuple(shown), history=state.history + (action,))
    if first_show and state.phase == "bidding" and state.rules.bidding == "rob":
        bidding = shower_calls_first(state.bidding, state.rules, seat)
        state = replace(state, bidding=bidding, to_act=bidding.queue[:1])
    return state


def _autoplay(state: DealState, action: Action) -> DealState:
    _need_active(state)
    seat, on = action.seat, action.value == 1
    if state.autoplay[seat] == on:
        raise IllegalAction("not_allowed", f"Auto-play is already {'on' if on else 'off'}.")
    if state.escaped[seat]:
        raise IllegalAction("not_allowed", "A seat that left stays on auto-play.")
    return replace(state, autoplay=_set(state.autoplay, seat, on),
                   history=state.history + (action,))


def _timeout(state: DealState, action: Action) -> DealState:
    _need_active(state)
    seat = action.seat
    if seat not in state.to_act:
        raise IllegalAction("not_your_turn", f"Seat {seat} is not to act.")
    state = replace(state, autoplay=_set(state.autoplay, seat, True),
                    history=state.history + (action,))
    resolved = auto_action(state, seat)
    return _HANDLERS[resolved.kind](state, resolved)


def _leave(state: DealState, action: Action) -> DealState:
    _need_active(state)
    seat = action.seat
    if state.escaped[seat]:
        raise IllegalAction("not_allowed", "You have already left this deal.")
    history = state.history + (action,)
    if state.phase == "bidding":
        return replace(state, phase="finished", to_act=(), history=history,
                       escaped=_set(state.escaped, seat, True),
                       result=bidding_escape_result(state.rules, seat, state.bidding,
                                                    state.shown))
    escaped = _set(state.escaped, seat, True)
    state = replace(state, escaped=escaped, autoplay=_set(state.autoplay, seat, True),
                    history=history)
    if all(escaped):
        n = state.rules.seats
        result = DealResult(winner=None, landlord=state.landlord, base=state.base,
                            bombs=state.bombs, rockets=state.rockets, spring=False,
                            anti_spring=False, farmers=state.farmers,
                            multipliers=state.multipliers(), points=(0,) * n,
                            escaped=tuple(range(n)))
        state = replace(state, phase="finished", to_act=(), result=result)
    return state


_HANDLERS: dict[ActionKind, Callable[[DealState, Action], DealState]] = {
    ActionKind.BID: _bidding_action, ActionKind.CALL: _bidding_action,
    ActionKind.DECLINE: _bidding_action, ActionKind.ROB: _bidding_action,
    ActionKind.NOROB: _bidding_action, ActionKind.PASS: _pass, ActionKind.DOUBLE: _double,
    ActionKind.NODOUBLE: _double, ActionKind.PLAY: _play, ActionKind.SHOW: _show,
    ActionKind.AUTOPLAY: _autoplay, ActionKind.TIMEOUT: _timeout, ActionKind.LEAVE: _leave,
}


def _mark_autoplay(state: DealState, seat: int) -> DealState:
    """Before ``seat``'s play or pass in the playing phase: if auto-play makes it (the seat is on
    auto-play now, by a timeout or the toggle) and the seat holds 2 or more cards, mark the seat
    for the auto-play penalty (RULES.md §9; seed 003: the last card does not count). The mark
    stays when the seat takes back control."""
    if not state.autoplay[seat] or len(state.hands[seat]) < 2 or state.autoplayed[seat]:
        return state
    return replace(state, autoplayed=_set(state.autoplayed, seat, True))


def _bomb_limit_text(limit: int) -> str:
    if limit == 0:
        return "A farmer in this deal may play no bomb (RULES.md §11 bomb limits)."
    word = "bomb" if limit == 1 else "bombs"
    return f"You have played your {limit} {word}; no more in this deal (RULES.md §11)."


def _need_active(state: DealState) -> None:
    if state.phase not in ACTIVE_PHASES:
        raise IllegalAction("wrong_phase", f"The deal is over ({state.phase}).")


def _need_turn(state: DealState, action: Action, phase: str) -> int:
    if state.phase != phase:
        raise IllegalAction("wrong_phase", f"'{action.kind}' is not possible during "
                                           f"{state.phase}.")
    if action.seat not in state.to_act:
        raise IllegalAction("not_your_turn", f"It is seat {state.to_act[0]}'s turn.")
    return action.seat


def _set(flags: tuple[bool, ...], seat: int, value: bool) -> tuple[bool, ...]:
    return flags[:seat] + (value,) + flags[seat + 1:]


def _last_cards_from(data: Any, seats: int) -> tuple[tuple[int, ...] | None, ...]:
    """``last_cards`` from JSON; absent (a state stored before the field) → ``None`` per seat."""
    if data is None:
        return (None,) * seats
    return tuple(None if c is None else tuple(c) for c in data)


def _barred(rules: Rules, barred: Sequence[bool]) -> tuple[bool, ...]:
    """``new_deal``'s ``barred`` checked: one flag per seat, four-player game only (RULES.md
    §11); empty stays empty."""
    flags = tuple(bool(b) for b in barred)
    if not flags:
        return ()
    if len(flags) != rules.seats:
        raise ValueError(f"barred: one flag per seat ({rules.seats}), not {len(flags)}")
    if any(flags) and rules.variant != "four":
        raise ValueError("barred: only the four-player game bars a seat (RULES.md §11)")
    return flags


def _check_seat(rules: Rules, seat: int) -> None:
    if not isinstance(seat, int) or not 0 <= seat < rules.seats:
        raise ValueError(f"no seat {seat!r} at a {rules.seats}-seat table")
