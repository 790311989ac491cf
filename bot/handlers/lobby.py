"""The lobby's buttons and "Play again" (issue 3, flow steps 1–3 and 7): entry points into
:class:`bot.game.lobby.Lobby`. Each press is checked (:func:`~bot.handlers.common.locked_press`),
answered, and only then is the lobby redrawn or the deal dealt."""

from __future__ import annotations

from telegram import Update
from telegram.ext import CallbackQueryHandler

from bot import callbacks as cb
from bot.game.again import waiting_names
from bot.handlers.common import (
    answer,
    display_name,
    game,
    locked_press,
    may_manage,
    person,
    say,
)
from bot.i18n import t
from bot.services import App, Context


async def on_lobby_button(update: Update, context: Context) -> None:
    """Join, Leave, Add bot, Start, Close (``L:`` buttons)."""
    app = context.application
    query = update.callback_query
    assert query is not None
    user = query.from_user
    lobby = game(app).lobby
    async with locked_press(app, query) as press:
        if press is None:
            return
        data, table, lang = press.data, press.table, press.lang
        if data.payload == "join":
            refusal = await lobby.seat(table, person(user), lang=lang)
            await answer(query, refusal or t("pop.joined", lang), alert=refusal is not None)
            if refusal is None:
                await lobby.refresh(table)
        elif data.payload == "leave":
            seated = table.seat_of(user.id) is not None
            await answer(query, t("pop.left_lobby" if seated else "pop.not_seated", lang))
            if seated:
                await lobby.leave(table, user.id)
        elif data.payload == "bot":
            if table.seat_of(user.id) is None and not await may_manage(app, table, user.id):
                await answer(query, t("pop.not_seated", lang), alert=True)
            elif not lobby.add_bot(table):
                await answer(query, t("pop.table_full", lang))
            else:
                await answer(query, t("pop.bot_added", lang))
                await lobby.refresh(table)
        elif data.payload == "start":
            if not await may_manage(app, table, user.id):
                await answer(query, t("pop.only_opener", lang), alert=True)
                return
            popup, notice = await lobby.start_refusal(table, lang)
            if popup is not None:
                await answer(query, popup, alert=True)
                if notice is not None:
                    await say(app, table, notice)  # in the background
                return
            await answer(query, t("lobby.starting", lang))
            if table.match_options is not None:
                refused = await game(app).matches.start(table)
                if refused is not None:
                    await say(app, table, refused[1])
                return
            await lobby.deal(table)
        elif await may_manage(app, table, user.id):
            await answer(query)
            await lobby.close(table, display_name(user))
        else:
            await answer(query, t("pop.only_opener", lang), alert=True)


async def on_play_again(update: Update, context: Context) -> None:
    """再来一局 / 离开 under a result (``G:`` buttons, issue 10 item 7): the presser's seat is
    ready, or freed (:class:`bot.game.again.PlayAgain`); each press is answered first. A
    player who is not seated is told to press Join; a second press says whom the table waits
    for; buttons of an older deal were refused by :func:`locked_press`."""
    app = context.application
    query = update.callback_query
    assert query is not None
    again = game(app).again
    async with locked_press(app, query) as press:
        if press is None:
            return
        table, lang = press.table, press.lang
        seat = table.seat_of(query.from_user.id)
        if seat is None or table.seats[seat].left:
            await answer(query, t("pop.again_join", lang), alert=True)
            return
        if not again.offered(table) and not again.offer_late(table):
            await answer(query, t("pop.gone", lang))
            return
        if press.data.payload == "leave":
            await answer(query, t("pop.left_lobby", lang))
            await again.leave(table, seat)
            return
        if table.ready[seat]:
            await answer(query, t("pop.again_already", lang, names=waiting_names(table, lang)))
            return
        others = waiting_names(table, lang, besides=seat)
        if others:
            await answer(query, t("pop.again_ready", lang, names=others))
        elif not await again.would_deal(table):
            changed = await again.new_terms(table)
            await answer(query, t("pop.again_terms" if changed else "pop.again_lobby", lang))
        else:
            await answer(query, None if table.private else t("lobby.starting", lang))
        await again.ready(table, seat)


def register(app: App) -> None:
    """Route the lobby's buttons and "Play again"."""
    app.add_handler(CallbackQueryHandler(on_lobby_button, pattern=cb.pattern(cb.LOBBY)))
    app.add_handler(CallbackQueryHandler(on_play_again, pattern=cb.pattern(cb.PLAY_AGAIN)))
