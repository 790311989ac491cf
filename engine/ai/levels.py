"""The AI's levels and its two entry points: one decision, and hints (RULES.md §2–§4).

* ``easy``: legal but weak, for beginners: the baseline :mod:`engine.ai.simple` (cheapest play
  first, no planning, no card counting).
* ``normal``: plans its hand (:mod:`engine.ai.decompose`) and cooperates with its partner, but
  counts no cards and searches no endgame.
* ``hard``: everything (:mod:`engine.ai.play`): planning, card counting, alarm blocking,
  cooperation and the endgame search. Auto-play and hints use ``hard``.

Both entry points take a :class:`engine.view.SeatView` only, so the AI cannot read hidden hands.
The four-player two-deck game (RULES.md §11) is played by :mod:`engine.ai.four` at every level.
"""

from __future__ import annotations

from engine.action import Action, IllegalAction
from engine.ai import bidding, four, simple
from engine.ai.knowledge import knowledge_from_view
from engine.ai.play import HARD, Style, choose_play, hint_plays
from engine.combos import Play
from engine.trick import read_play
from engine.view import SeatView

LEVELS = ("easy", "normal", "hard")
_STYLES = {
    "normal": Style(counting=False, cooperate=True, endgame=False, sampling=False),
    "hard": HARD,
}


def choose_action(view: SeatView, level: str = "normal") -> Action:
    """The decision of ``view.seat`` at ``level`` (``"easy"``, ``"normal"``, ``"hard"``).

    Always one of ``view.legal_actions()``; never shows cards (RULES.md §3).

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
    if level == "easy":
        return simple.choose_action(view, level)
    if view.phase == "bidding":
        return _bid(view)
    if view.phase == "doubling":
        return _double(view)
    if view.phase != "playing":
        raise ValueError(f"nothing to decide in phase {view.phase!r}")
    if not _supported(view):
        return simple.choose_action(view, level)
    return _checked(view, choose_play(knowledge_from_view(view), _STYLES[level]))


def hints(view: SeatView, limit: int = 5) -> list[Play]:
    """The best few legal plays for ``view.seat``, best first (``hard`` level); ``[]`` when the
    seat is not to play. Pass is never listed (the UI has its own pass button)."""
    if view.phase != "playing" or view.seat not in view.to_act or limit <= 0:
        return []
    if view.rules.variant == "four":
        return four.hints_four(view, limit)
    if not _supported(view):
        return simple.hints(view, limit)
    out = []
    for p in hint_plays(knowledge_from_view(view), limit):
        try:
            out.append(read_play(p.cards, p.type, view.trick.play, view.rules))
        except IllegalAction:
            continue
    return out


def _supported(view: SeatView) -> bool:
    return view.rules.seats == 3 and view.rules.decks == 1


def _checked(view: SeatView, play: Play | None) -> Action:
    """The action for ``play``, or a legal fallback if the rules of this room refuse it."""
    if play is None:
        if not view.leading:
            return Action("pass", view.seat)
    else:
        try:
            read_play(play.cards, play.type, view.trick.play, view.rules)
            return Action("play", view.seat, cards=play.cards, type=play.type)
        except IllegalAction:
            pass
    return simple.choose_action(view)


def _bid(view: SeatView) -> Action:
    legal = view.legal_actions()
    kinds = {a.kind: a for a in legal}
    ranks = view.hand_ranks
    if "bid" in kinds or ("pass" in kinds and "call" not in kinds and "rob" not in kinds):
        want = bidding.bid_value(ranks)
        bids = [a for a in legal if a.kind == "bid" and (a.value or 0) <= want]
        return max(bids, key=lambda a: a.value or 0) if bids else kinds["pass"]
    if "call" in kinds:
        return kinds["call"] if bidding.wants_call(ranks) else kinds["decline"]
    if "rob" in kinds:
        return kinds["rob"] if bidding.wants_rob(ranks) else kinds["norob"]
    return next(a for a in legal if a.kind != "show")


def _double(view: SeatView) -> Action:
    wants = bidding.wants_double(view.hand_ranks, view.seat == view.landlord)
    return Action("double" if wants else "nodouble", view.seat)


__all__ = ["LEVELS", "choose_action", "hints"]
