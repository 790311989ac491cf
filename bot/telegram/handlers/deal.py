"""The deal's buttons: entry points into the game layer.

Each press is parsed and checked (:func:`~bot.telegram.handlers.common.locked_press`: token, phase,
the table's lock), then the seat and the state version; a refused press gets a pop-up and changes
nothing. A decision the seats take at once (doubling, showing cards: RULES.md §3) is taken by a
seat still due to take it whatever the others decided since its button was drawn
(:func:`bot.game.presses.decision_current`); a seat decides it once.

A press is decided by one rule, :mod:`bot.game.presses`, and answered first: what it will be
answered is decided on this process's copy of the table before its lock is taken
(:func:`_first_action`, :func:`_first_select`), then again under the lock on the table as it is
(:func:`_action`, :func:`_select`), so the answer never
waits for the table's other steps (hand messages sent within the token's budget, another
worker, the database); the presser's own hand is redrawn next, then the other seats and the
table.
"""

from __future__ import annotations

from functools import partial

from telegram import CallbackQuery, Update
from telegram.ext import CallbackQueryHandler

from bot.core import callbacks as cb
from bot.core.i18n import t
from bot.core.table import Table
from bot.game.presses import Verdict, judge_action, judge_select
from bot.presentation import views
from bot.telegram.handlers.common import (
    First,
    answer,
    answer_first,
    game,
    locked_press,
    parse_press,
    refuse,
    refuse_press,
    tables,
    user_language,
)
from bot.telegram.services import App, Context
from engine import ActionKind, IllegalAction

#: One decision of a seat: (table key, seat, the state version it is taken at, or for a
#: simultaneous decision its kind: ``"double"`` or ``"show"``, taken once a deal whatever the
#: version).
Claim = tuple[str, int, int | str]
#: Decisions answered as accepted before their table's lock whose block has not finished. A
#: second press of the same decision (a double click, or Double then No double) is stale, as
#: it is once the first one was applied.
_DECIDING: set[Claim] = set()


def _decide(claims: list[Claim], table: Table, seat: int, kind: ActionKind, lang: str
            ) -> tuple[str | None, bool] | None:
    """Claim the seat's decision ``kind`` (an engine action kind) at the table's current state
    for this press; the stale pop-up when another press claimed it."""
    assert table.state is not None
    decision: int | str = table.state.version
    if kind in (ActionKind.DOUBLE, ActionKind.NODOUBLE):
        decision = ActionKind.DOUBLE
    elif kind == ActionKind.SHOW:
        decision = ActionKind.SHOW
    claim = (table.key, seat, decision)
    if claim in _DECIDING:
        return t("pop.stale", lang), False
    _DECIDING.add(claim)
    claims.append(claim)
    return None


def _release(claims: list[Claim]) -> None:
    for claim in claims:
        _DECIDING.discard(claim)


async def _refuse(app: App, query: CallbackQuery, verdict: Verdict) -> None:
    """Answer a refused press under the lock: a seat or version check through
    :func:`~bot.telegram.handlers.common.refuse` (it counts towards the presser's refusals),
    the others as their pop-up."""
    if verdict.check is not None:
        await refuse(app, query, verdict.popup or "", alert=verdict.alert)
    else:
        await answer(query, verdict.popup, alert=verdict.alert)


def _first_action(query: CallbackQuery, claims: list[Claim]) -> First:
    """The answer of an ``A:`` press before the table's lock: :func:`judge_action` on this
    process's copy (``None``: a seat or version check, which the block answers); an accepted
    decision is claimed in ``claims``."""
    async def first(data: cb.Callback, table: Table, lang: str) -> tuple[str | None, bool] | None:
        verdict = judge_action(table, query.from_user.id, data, lang)
        if verdict.check is not None:
            return None
        if verdict.accepted and verdict.action is not None \
                and verdict.action.kind != ActionKind.AUTOPLAY:
            assert verdict.seat is not None
            claimed = _decide(claims, table, verdict.seat, verdict.action.kind, lang)
            if claimed is not None:
                return claimed
        return verdict.popup, verdict.alert
    return first


async def on_action_button(update: Update, context: Context) -> None:
    """Bidding, doubling, show cards, pass, auto-play on / take back (``A:`` buttons)."""
    app = context.application
    query = update.callback_query
    assert query is not None
    claims: list[Claim] = []
    try:
        await _action(app, query, _first_action(query, claims))
    finally:
        _release(claims)


async def _action(app: App, query: CallbackQuery, first: First) -> None:
    async with locked_press(app, query, first) as press:
        if press is None:
            return
        verdict = judge_action(press.table, query.from_user.id, press.data, press.lang)
        if verdict.seat is None or not (verdict.accepted or verdict.redraw):
            await _refuse(app, query, verdict)
            return
        if verdict.redraw:
            await answer(query, verdict.popup)
            await game(app).redraw_hand(press.table, verdict.seat)
            return
        assert verdict.action is not None
        try:
            await game(app).act(press.table, verdict.seat, verdict.action,
                                partial(answer, query, verdict.popup))
        except IllegalAction as exc:
            await answer(query, views.refusal_text(exc, press.lang), alert=True)


def _first_select(app: App, query: CallbackQuery, claims: list[Claim]) -> First:
    """The answer of an ``S:`` press before the table's lock: :func:`judge_select` on this
    process's copy (``None``: a seat or version check, or a Play of the selection refused
    while a block of the table runs here: it may be one of the presser's own taps); Hint's
    answer from the advice as :meth:`~bot.features.service.Game.hint` will give it."""
    the_game = game(app)

    async def first(data: cb.Callback, table: Table, lang: str) -> tuple[str | None, bool] | None:
        verdict = judge_select(table, query.from_user.id, data, lang)
        if verdict.check is not None or (
                verdict.uncertain and the_game.tables.local_lock(table.key).locked()):
            return None
        if not verdict.accepted:
            return verdict.popup, verdict.alert
        assert verdict.seat is not None
        if verdict.op == "hint":
            hinted = await the_game.next_hint(table, verdict.seat)
            if hinted is None:
                return t("pop.no_hint", lang), False
            return (t("pop.hint_pass", lang) if hinted == "pass" else None), False
        if verdict.op == "play":
            return _decide(claims, table, verdict.seat, ActionKind.PLAY, lang) or (None, False)
        return None, False
    return first


async def on_select_button(update: Update, context: Context) -> None:
    """The play keyboard (``S:`` buttons): select a rank, Hint, Clear, Play, or an offered play
    (an offer's cards are checked against the hand). A tap, Hint
    or Clear changes the presser's keyboard and caption only (no picture is uploaded)."""
    app = context.application
    query = update.callback_query
    assert query is not None
    claims: list[Claim] = []
    try:
        await _select(app, query, _first_select(app, query, claims))
    finally:
        _release(claims)


async def _select(app: App, query: CallbackQuery, first: First) -> None:
    the_game = game(app)
    async with locked_press(app, query, first) as press:
        if press is None:
            return
        table, lang = press.table, press.lang
        verdict = judge_select(table, query.from_user.id, press.data, lang)
        seat = verdict.seat
        if seat is None or not verdict.accepted:
            await _refuse(app, query, verdict)
            return
        if verdict.op == "play":
            assert verdict.action is not None
            try:
                await the_game.act(table, seat, verdict.action, partial(answer, query))
            except IllegalAction as exc:
                await answer(query, views.refusal_text(exc, lang), alert=True)
            return
        if verdict.op == "clear":
            the_game.clear(table, seat)
        elif verdict.op == "hint":
            hinted = await the_game.hint(table, seat)
            if hinted is None:
                await answer(query, t("pop.no_hint", lang))
                return
            if hinted == "pass":
                await answer(query, t("pop.hint_pass", lang))
                await the_game.redraw_hand(table, seat)
                return
        else:
            assert press.data.rank is not None
            the_game.select(table, seat, press.data.rank)
        await answer(query)
        await the_game.redraw_hand(table, seat)


async def on_my_cards(update: Update, context: Context) -> None:
    """"My cards" on the table message: the presser's own hand, in a pop-up only they see;
    记牌器 on a waiting seat's hand: the card counter and the status line in the same way
    (:func:`bot.presentation.views.counter_popup`); anyone else is told they are not seated.
    上一轮 (on the hand and on the table message): the last trick that is over, to anyone,
    players and watchers (:func:`bot.presentation.views.last_trick_popup`, public facts only).
    Needs no lock: it changes nothing."""
    app = context.application
    query = update.callback_query
    assert query is not None
    data = await parse_press(query, app)
    if data is None:
        return
    table = tables(app).by_token(data.token)
    if await refuse_press(app, query, data, table):
        return
    assert table is not None and table.state is not None
    lang = user_language(app, query.from_user, table.lang)
    if data.payload == cb.LAST_TRICK:  # public: watchers too; a view for the rules only
        await answer(query, views.last_trick_popup(table, table.state.view(0), lang),
                     alert=True)
        return
    seat = table.seat_of(query.from_user.id)
    if seat is None:
        await refuse(app, query, t("pop.not_seated", lang), alert=True)
        return
    lang = user_language(app, query.from_user, table.seat_lang(seat))
    view = table.state.view(seat)
    if data.payload == cb.COUNTER:
        await answer(query, views.counter_popup(table, view, lang), alert=True)
        return
    if data.payload in (cb.HANDS_GROUP, cb.HANDS_PRIVATE):
        to_group = data.payload == cb.HANDS_GROUP
        refusal = game(app).deals.move_refusal(table, seat, to_group)
        if refusal is not None:
            await answer(query, t(refusal, lang), alert=True)
            return
        done = t("pop.hands_group" if to_group else "pop.hands_private", lang)
        if to_group or game(app).ctx.private_chats.known(query.from_user.id):
            await answer_first(query, done, alert=True)
        # else only trying tells whether the private chat takes it: answered after it
        refusal = await _move_hand(app, query, to_group)
        await answer(query, t(refusal, lang) if refusal else done, alert=True)
        return
    if table.seats[seat].in_group:
        await _bring_hand(app, query)
        return
    await answer(query, views.my_cards_text(view, lang), alert=True)


async def _bring_hand(app: App, query: CallbackQuery) -> None:
    """🂠 My cards of a player whose hand is shown in the group: answered at once, then their
    hand is sent afresh within the press's 15 s, the one it replaces deleted
    (:meth:`bot.game.deal.DealDriver.bring_hand`)."""
    await answer_first(query)
    async with locked_press(app, query) as press:
        if press is None:
            return
        seat = press.table.seat_of(query.from_user.id)
        if seat is not None:
            await game(app).deals.bring_hand(press.table, seat)


async def _move_hand(app: App, query: CallbackQuery, to_group: bool) -> str | None:
    """The button on a hand that moves it into the group or the private chat: the move
    (:meth:`bot.game.deal.DealDriver.move_hand`); the i18n key of why it did not, if so."""
    async with locked_press(app, query) as press:
        if press is None:
            return None
        seat = press.table.seat_of(query.from_user.id)
        if seat is None:
            return None
        return await game(app).deals.move_hand(press.table, seat, to_group)


def register(app: App) -> None:
    """Route the deal's buttons."""
    app.add_handler(CallbackQueryHandler(on_action_button, pattern=cb.pattern(cb.ACTION)))
    app.add_handler(CallbackQueryHandler(on_select_button, pattern=cb.pattern(cb.SELECT)))
    app.add_handler(CallbackQueryHandler(on_my_cards, pattern=cb.pattern(cb.MY_CARDS)))
