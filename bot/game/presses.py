"""What a seated player's press on a deal's buttons comes to, decided by one rule.

A press is judged twice on purpose, by the same functions: first on this process's copy of the
table, so it is answered before the table's lock is taken, then under the lock on the table as
it is (another block may have moved it on meanwhile). :func:`judge_action` judges the ``A:``
buttons (bid, double, show, pass, auto-play), :func:`judge_select` the play keyboard (``S:``: a
rank, Hint, Clear, Play, an offered play). Each gives a :class:`Verdict`: the pop-up to answer
and, when the press is accepted, what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.core import callbacks as cb
from bot.core.i18n import t
from bot.core.selection import holds
from bot.core.table import Table
from bot.presentation import views
from engine import Action, ActionKind, DealState, IllegalAction, apply
from engine.decisions import still_current

#: Checks the copy of a table may answer wrongly when it is behind (the block decides them).
Check = Literal["seat", "version"]
#: What an accepted play-keyboard press does: play (the selection or an offer), Hint, Clear,
#: or a rank tap.
SelectOp = Literal["play", "hint", "clear", "rank"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """A press judged.

    Attributes:
        popup: the pop-up's text (in the presser's language), or ``None`` for none.
        alert: the pop-up is an alert (a refusal the player must read).
        seat: the presser's seat (``None``: not seated).
        check: a refusal of a seat or version check (:data:`Check`), which only the block
            under the lock answers; ``None`` otherwise.
        accepted: the press acts: ``action`` is applied (a decision or a play), or ``op``
            changes the selection.
        action: the engine action an accepted decision or play applies.
        op: what an accepted play-keyboard press does (:data:`SelectOp`).
        redraw: an auto-play switch already so: answered and the hand drawn again, nothing
            applied.
        uncertain: a refused Play of the current selection: the copy may lack the presser's
            own taps still under way, so while a block of the table runs the block decides.
    """

    popup: str | None = None
    alert: bool = False
    seat: int | None = None
    check: Check | None = None
    accepted: bool = False
    action: Action | None = None
    op: SelectOp | None = None
    redraw: bool = False
    uncertain: bool = False


def decision_current(state: DealState, seat: int, data: cb.Callback) -> bool:
    """Whether a decision press of ``seat`` (``A:`` or ``S:`` data drawn at state
    ``data.version``) may act on ``state`` (:func:`engine.decisions.still_current`: drawn for
    this very state, or a simultaneous decision that means now what it meant when drawn,
    RULES.md §3)."""
    if data.kind != cb.ACTION:
        return data.version == state.version
    return still_current(state, seat, cb.ACTION_PAYLOADS[data.payload][0], data.version)


def may_select(table: Table, seat: int) -> bool:
    """The seat is to play now and not on auto-play: its play keyboard works."""
    state = table.state
    return state is not None and state.phase == "playing" and seat in state.to_act \
        and not state.autoplay[seat]


def judge_action(table: Table, user_id: int, data: cb.Callback, lang: str) -> Verdict:
    """An ``A:`` press of ``user_id``: bid, call, rob, double, show, pass, auto-play on or
    off. Refused: not seated (alert), out of date (:func:`decision_current`; an auto-play
    switch is never out of date), not the seat's turn (show cards and auto-play need none),
    an action the engine refuses (alert, its reason). An auto-play switch already so is
    answered and redrawn only."""
    seat, state = table.seat_of(user_id), table.state
    kind, value = cb.ACTION_PAYLOADS[data.payload]
    if seat is None:
        return Verdict(t("pop.not_seated", lang), alert=True, check="seat")
    if state is None or (kind != ActionKind.AUTOPLAY and not decision_current(state, seat, data)):
        return Verdict(t("pop.stale", lang), seat=seat, check="version")
    if kind not in (ActionKind.AUTOPLAY, ActionKind.SHOW) and seat not in state.to_act:
        return Verdict(t("pop.not_your_turn", lang), seat=seat)
    action = Action(kind, seat, value=value)
    if kind == ActionKind.AUTOPLAY:
        popup = t("pop.autoplay_on" if value else "pop.autoplay_off", lang)
        if state.autoplay[seat] == bool(value):
            return Verdict(popup, seat=seat, redraw=True)
        return Verdict(popup, seat=seat, accepted=True, action=action)
    try:
        apply(state, action)
    except IllegalAction as exc:
        return Verdict(views.refusal_text(exc, lang), alert=True, seat=seat)
    return Verdict(seat=seat, accepted=True, action=action)


def judge_select(table: Table, user_id: int, data: cb.Callback, lang: str) -> Verdict:
    """An ``S:`` press of ``user_id``: refused when not seated (alert), drawn for another
    state, not the seat's turn to play (or on auto-play), an offer of cards the hand does not
    hold or a rank it does not hold (alert), Play with nothing selected or a selection the
    engine refuses (alert, its reason; :attr:`Verdict.uncertain`). Accepted: ``op`` says what
    it does; a play carries its ``action``. Hint's answer depends on the advice:
    the caller asks for it."""
    seat, state = table.seat_of(user_id), table.state
    if seat is None:
        return Verdict(t("pop.not_seated", lang), alert=True, check="seat")
    if state is None or data.version != state.version:
        return Verdict(t("pop.stale", lang), seat=seat, check="version")
    if not may_select(table, seat):
        return Verdict(t("pop.not_your_turn", lang), seat=seat)
    hand = state.view(seat).hand_ranks
    offer = data.offer
    if data.payload == "play" or offer is not None:
        if offer is not None and not holds(hand, offer):
            return Verdict(t("pop.invalid", lang), alert=True, seat=seat)
        selection = offer if offer is not None else tuple(table.progress.selections[seat])
        mine = offer is None
        if not selection:
            return Verdict(t("pop.select_first", lang), alert=True, seat=seat, uncertain=mine)
        action = Action(ActionKind.PLAY, seat, cards=selection)
        try:
            apply(state, action)
        except IllegalAction as exc:
            return Verdict(views.refusal_text(exc, lang), alert=True, seat=seat,
                           uncertain=mine)
        return Verdict(seat=seat, accepted=True, action=action, op="play")
    if data.payload == "hint":
        return Verdict(seat=seat, accepted=True, op="hint")
    if data.payload == "clear":
        return Verdict(seat=seat, accepted=True, op="clear")
    if data.rank is None or data.rank not in hand:
        return Verdict(t("pop.invalid", lang), alert=True, seat=seat)
    return Verdict(seat=seat, accepted=True, op="rank")
