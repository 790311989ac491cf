"""The deal's buttons (issue 3, flow steps 4–6): entry points into the game layer.

Each press is parsed and checked (:func:`~bot.handlers.common.locked_press`: token, phase, the
table's lock), then the seat and the state version; a refused press gets a pop-up and changes
nothing. An accepted press is answered *before* anything is stored, drawn or sent (the game
layer calls the answer back once the engine accepted the action); the presser's own hand is
redrawn next, then the other seats and the table.
"""

from __future__ import annotations

from functools import partial

from telegram import CallbackQuery, Update
from telegram.ext import CallbackQueryHandler

from bot import callbacks as cb
from bot import views
from bot.game.table import Table
from bot.handlers.common import (
    answer,
    game,
    locked_press,
    parse_press,
    refuse,
    refuse_press,
    tables,
    user_language,
)
from bot.i18n import t
from bot.services import App, Context
from engine import Action, IllegalAction


def _seat(query: CallbackQuery, table: Table, data: cb.Callback, lang: str, *,
          check_version: bool = True) -> tuple[int | None, str | None]:
    """The presser's seat if the press may act on ``table`` now, else the pop-up saying why
    (in ``lang``) and whether it is an alert."""
    seat = table.seat_of(query.from_user.id)
    if seat is None:
        return None, t("pop.not_seated", lang)
    if check_version and (table.state is None or data.version != table.state.version):
        return None, t("pop.stale", lang)
    return seat, None


async def on_action_button(update: Update, context: Context) -> None:
    """Bidding, doubling, show cards, pass, auto-play on / take back (``A:`` buttons)."""
    app = context.application
    query = update.callback_query
    assert query is not None
    async with locked_press(app, query) as press:
        if press is None:
            return
        data, table, lang = press.data, press.table, press.lang
        kind, value = cb.ACTION_PAYLOADS[data.payload]
        seat, refusal = _seat(query, table, data, lang, check_version=kind != "autoplay")
        if seat is None:
            await refuse(app, query, refusal or "", alert=refusal == t("pop.not_seated", lang))
            return
        state = table.state
        assert state is not None
        if kind not in ("autoplay", "show") and seat not in state.to_act:
            await answer(query, t("pop.not_your_turn", lang))
            return
        if kind == "autoplay":
            popup = t("pop.autoplay_on" if value else "pop.autoplay_off", lang)
            if state.autoplay[seat] == bool(value):
                await answer(query, popup)
                await game(app).redraw_hand(table, seat)
                return
        else:
            popup = None
        try:
            await game(app).act(table, seat, Action(kind, seat, value=value),
                                partial(answer, query, popup))
        except IllegalAction as exc:
            await answer(query, views.refusal_text(exc, lang), alert=True)


async def on_select_button(update: Update, context: Context) -> None:
    """The play keyboard (``S:`` buttons): select a rank, Hint, Clear, Play, or an offered play
    (issue 3 step 5, issue 10 item 4; an offer's cards are checked against the hand). Hint
    shows its choice on the keyboard and the hand picture of the presser only."""
    app = context.application
    query = update.callback_query
    assert query is not None
    the_game = game(app)
    async with locked_press(app, query) as press:
        if press is None:
            return
        data, table, lang = press.data, press.table, press.lang
        seat, refusal = _seat(query, table, data, lang)
        if seat is None:
            await refuse(app, query, refusal or "", alert=refusal == t("pop.not_seated", lang))
            return
        if not the_game.may_select(table, seat):
            await answer(query, t("pop.not_your_turn", lang))
            return
        offer = data.offer
        if data.payload == "play" or offer is not None:
            selection = offer if offer is not None else the_game.selection(table, seat)
            if offer is not None and not the_game.holds(table, seat, offer):
                await answer(query, t("pop.invalid", lang), alert=True)
                return
            if not selection:
                await answer(query, t("pop.select_first", lang), alert=True)
                return
            try:
                await the_game.act(table, seat, Action("play", seat, cards=selection),
                                   partial(answer, query))
            except IllegalAction as exc:
                await answer(query, views.refusal_text(exc, lang), alert=True)
            return
        if data.payload == "clear":
            the_game.clear(table, seat)
        elif data.payload == "hint":
            hinted = await the_game.hint(table, seat)
            if hinted is None:
                await answer(query, t("pop.no_hint", lang))
                return
            if hinted == "pass":
                await answer(query, t("pop.hint_pass", lang))
                await the_game.redraw_hand(table, seat)
                return
        elif data.rank is None or not the_game.select(table, seat, data.rank):
            await answer(query, t("pop.invalid", lang), alert=True)
            return
        await answer(query)
        await the_game.redraw_hand(table, seat)


async def on_my_cards(update: Update, context: Context) -> None:
    """"My cards" on the table message: the presser's own hand, in a pop-up only they see;
    记牌器 on a waiting seat's hand: the card counter and the status line in the same way
    (:func:`bot.views.counter_popup`); anyone else is told they are not seated. Needs no
    lock: it changes nothing."""
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
    seat, refusal = _seat(query, table, data, lang, check_version=False)
    if seat is None:
        await refuse(app, query, refusal or "", alert=True)
        return
    lang = user_language(app, query.from_user, table.seat_lang(seat))
    view = table.state.view(seat)
    if data.payload == cb.COUNTER:
        await answer(query, views.counter_popup(table, view, lang), alert=True)
        return
    await answer(query, views.my_cards_text(view, lang), alert=True)


def register(app: App) -> None:
    """Route the deal's buttons."""
    app.add_handler(CallbackQueryHandler(on_action_button, pattern=cb.pattern(cb.ACTION)))
    app.add_handler(CallbackQueryHandler(on_select_button, pattern=cb.pattern(cb.SELECT)))
    app.add_handler(CallbackQueryHandler(on_my_cards, pattern=cb.pattern(cb.MY_CARDS)))
