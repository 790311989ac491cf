"""The AI's levels and its two entry points: one decision, and hints (RULES.md §2–§4).

* ``easy``: legal but weak, for beginners: the baseline :mod:`engine.ai.simple` (cheapest play
  first, no planning, no card counting) with beginner mistakes drawn from the decision's
  generator (early bombs, pairs broken to lead a single).
* ``normal``: plans its hand (:mod:`engine.ai.decompose`) and cooperates with its partner, but
  counts no cards and searches no endgame.
* ``hard``: everything (:mod:`engine.ai.play`): planning, card counting read with what the
  opponents' passes and follows make likely (a seat that passed on a 9 holds no single above
  it, one that beat a 5 with a K none of 6..Q, bombs apart), alarm blocking, cooperation and
  the endgame search (forced-win proofs, and exact search over deals dealt within those likely
  cards), and in mid-game, where its best plays differ in kind, play-outs of each over such
  deals (:mod:`engine.ai.montecarlo`, the opponents beating whenever they can).
  Auto-play and hints use ``hard``.

Both entry points take a :class:`engine.view.SeatView` only, so the AI cannot read hidden hands.
The four-player two-deck game (RULES.md §11) is played by :mod:`engine.ai.four` at every level.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass

from engine.action import Action, ActionKind, IllegalAction
from engine.ai import bidding, four, montecarlo, simple
from engine.ai.knowledge import knowledge_from_view
from engine.ai.play import HARD, Style, choose_play, hint_choice
from engine.combos import Play
from engine.trick import read_play
from engine.view import SeatView

LEVELS = ("easy", "normal", "hard")
_STYLES = {
    "normal": Style(counting=False, inference=False, cooperate=True, endgame=False,
                    sampling=False),
    "hard": HARD,
}


#: Wall-clock safety net (seconds) for a decision made without a seed; see ``choose_action``.
TIME_CAP = 0.15

Seed = int | str | random.Random | None


def choose_action(view: SeatView, level: str = "normal", *, seed: Seed = None) -> Action:
    """The decision of ``view.seat`` at ``level`` (``"easy"``, ``"normal"``, ``"hard"``).

    Always one of ``view.legal_actions()``; never shows cards (RULES.md §3).

    Determinism: the searches are bounded by position counts, not by time, so the decision is a
    function of the view and ``seed``:

    * ``seed=None``: a generator seeded from the view; a wall-clock cap of :data:`TIME_CAP`
      seconds also guards against an overloaded machine (hitting it, which takes a machine
      several times slower than usual, may change the decision);
    * an ``int`` or ``str``: mixed with the view into a fresh generator, no wall clock: the same
      view and seed give the same decision on every machine (duplicate challenges seed the AI
      seats this way);
    * a :class:`random.Random`: used as is (its state advances), no wall clock.

    Raises:
        ValueError: unknown level, or the seat has nothing to decide now.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown AI level {level!r}")
    seat = view.seat
    if seat not in view.to_act:
        raise ValueError(f"seat {seat} has nothing to decide now")
    if view.rules.variant == "four":
        return four.choose_action_four(view, level)
    rng, deadline = _rng(view, seed)
    if level == "easy":
        return simple.choose_action(view, level, rng=rng)
    if view.phase == "bidding":
        return _bid(view)
    if view.phase == "doubling":
        return _double(view)
    if view.phase != "playing":
        raise ValueError(f"nothing to decide in phase {view.phase!r}")
    if not _supported(view):
        return simple.choose_action(view, level)
    k = knowledge_from_view(view)
    play = choose_play(k, _STYLES[level], rng, deadline)
    if level == "hard":
        play = montecarlo.revise(k, play, rng, deadline)
    return _checked(view, play)


def hints(view: SeatView, limit: int = 5, *, seed: Seed = None) -> list[Play]:
    """The best few legal plays for ``view.seat``, best first (``hard`` level); ``[]`` when the
    seat is not to play. Pass is never listed (the UI has its own pass button). ``seed``: as
    :func:`choose_action` (same view and seed, same hints)."""
    return hint_advice(view, limit, seed=seed).plays


@dataclass(frozen=True, slots=True)
class Advice:
    """What Hint says: ``pass_first`` when the AI's own choice is to pass on
    a trick it follows (e.g. a partner's play that wins: bombing it is no hint), and ``plays``,
    the best few legal plays best first (:func:`hints`)."""

    pass_first: bool
    plays: list[Play]


def hint_advice(view: SeatView, limit: int = 5, *, seed: Seed = None) -> Advice:
    """:class:`Advice` for ``view.seat`` at the ``hard`` level (``seed``: as
    :func:`choose_action`). Pass is advised only by the three-player AI (the four-player and
    the seeds' hints keep bombs last instead)."""
    if view.phase != "playing" or view.seat not in view.to_act or limit <= 0:
        return Advice(False, [])
    if view.rules.variant == "four":
        return Advice(False, four.hints_four(view, limit))
    if not _supported(view):
        return Advice(False, simple.hints(view, limit))
    rng, deadline = _rng(view, seed)
    k = knowledge_from_view(view)
    first, plays = hint_choice(k, limit, rng, deadline)
    better = montecarlo.revise(k, first, rng, deadline)
    if better != first:  # the choice of choose_action: hints lead with it too
        first = better
        plays = ([better] if better is not None else []) + [p for p in plays if p != better]
    out = []
    for p in plays[:limit]:
        try:
            out.append(read_play(p.cards, p.type, view.trick.play, view.rules))
        except IllegalAction:
            continue
    return Advice(first is None and view.trick.play is not None, out)


def _rng(view: SeatView, seed: Seed) -> tuple[random.Random, float | None]:
    """The decision's generator and wall-clock deadline (see :func:`choose_action`)."""
    if isinstance(seed, random.Random):
        return seed, None
    # the kinds' words (not the members' repr): the key, so a seed's decision, stays the same
    history = tuple((a.seat, a.kind.value, a.value, a.cards) for a in view.history)
    key = repr((seed, view.seat, view.hand, view.counts, view.shown_hands, history))
    rng = random.Random(int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest()))
    return rng, (time.perf_counter() + TIME_CAP if seed is None else None)


def _supported(view: SeatView) -> bool:
    return view.rules.seats == 3 and view.rules.decks == 1


def _checked(view: SeatView, play: Play | None) -> Action:
    """The action for ``play``, or a legal fallback if the rules of this room refuse it."""
    if play is None:
        if not view.leading:
            return Action(ActionKind.PASS, view.seat)
    else:
        try:
            read_play(play.cards, play.type, view.trick.play, view.rules)
            return Action(ActionKind.PLAY, view.seat, cards=play.cards, type=play.type)
        except IllegalAction:
            pass
    return simple.choose_action(view)


def _bid(view: SeatView) -> Action:
    """The level's bid; a seat that may not pass or decline (RULES.md §2.3, ``forced_bid``)
    takes its lowest bid or calls instead."""
    wanted = _wanted_bid(view)
    legal = [a for a in view.legal_actions() if a.kind != ActionKind.SHOW]
    return wanted if wanted in legal else legal[0]


def _wanted_bid(view: SeatView) -> Action:
    legal = view.legal_actions()
    kinds = {a.kind: a for a in legal}
    ranks = view.hand_ranks
    if ActionKind.BID in kinds or (ActionKind.PASS in kinds and ActionKind.CALL not in kinds
                                   and ActionKind.ROB not in kinds):
        want = bidding.bid_value(ranks)
        bids = [a for a in legal if a.kind == ActionKind.BID and (a.value or 0) <= want]
        return max(bids, key=lambda a: a.value or 0) if bids \
            else Action(ActionKind.PASS, view.seat)
    if ActionKind.CALL in kinds:
        return kinds[ActionKind.CALL] if bidding.wants_call(ranks) \
            else Action(ActionKind.DECLINE, view.seat)
    if ActionKind.ROB in kinds:
        return kinds[ActionKind.ROB] if bidding.wants_rob(ranks) else kinds[ActionKind.NOROB]
    return next(a for a in legal if a.kind != ActionKind.SHOW)


def _double(view: SeatView) -> Action:
    wants = bidding.wants_double(view.hand_ranks, view.seat == view.landlord)
    return Action(ActionKind.DOUBLE if wants else ActionKind.NODOUBLE, view.seat)


__all__ = ["LEVELS", "choose_action", "hints"]
