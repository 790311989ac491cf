"""The lobby: opening a group's table, Join / Leave / Add bot / Start / Close, expiry, and
"Play again" (issue 3, flow steps 1–3 and 7).

One table per group chat, one per forum topic (key ``chat_id:thread_id``). A player sits at one
table at a time. Join first writes to the player privately: if Telegram refuses (the player never
started the bot), the player gets a pop-up and the lobby shows a deep link that seats them from
the private chat (``/start join_<token>``, handled in :mod:`bot.handlers.commands`).
"""

from __future__ import annotations

import logging
import math
import time

from telegram import Update, User
from telegram.error import TelegramError
from telegram.ext import Application, CallbackQueryHandler, ContextTypes

from bot import callbacks as cb
from bot import timers, views
from bot.handlers import deal
from bot.handlers.common import (
    answer,
    display_name,
    edit_text,
    group_language,
    locked_press,
    may_manage,
    say,
    send_text,
    settings,
    store,
    tables,
    user_language,
)
from bot.i18n import match_language, t
from bot.rooms import room_stake, rules_for
from bot.table import LOBBY, RESULT, Seat, Table, table_key

log = logging.getLogger(__name__)


async def open_table(
    app: Application, chat_id: int, thread_id: int | None, title: str, user: User
) -> tuple[Table | None, str | None]:
    """Open the lobby of a group (or topic) and seat its opener.

    Returns ``(table, None)``, ``(table, refusal)`` when the lobby opened but the opener could not
    sit (the refusal text says why), or ``(None, text)`` when a lobby or deal already runs here
    or the opener already sits at another table.
    """
    key = table_key(chat_id, thread_id)
    group = await store(app).get_group_settings(chat_id)
    lang = group_language(app, group)
    async with tables(app).lock(key):
        existing = tables(app).get(key)
        if existing is not None and existing.phase != RESULT:
            return None, t("reply.table_exists", lang)
        if tables(app).table_of(user.id) is not None:
            return None, t("pop.seated_elsewhere", lang)
        if existing is not None:
            tables(app).remove(existing)
        table = Table(chat_id, thread_id, lang, title=title, opener_id=user.id,
                      preset=rules_for(group).bidding, stake=room_stake(group).stake)
        tables(app).add(table)
        refusal = await seat_player(app, table, user, lang=lang)
        await post_lobby(app, table)
        return table, refusal


async def post_lobby(app: Application, table: Table) -> None:
    """Send a fresh lobby message, store the table and arm its expiry (lock held)."""
    table.lobby_deadline = time.time() + settings(app).lobby_timeout
    text, markup = _lobby(app, table)
    message = await send_text(app.bot, table.chat_id, text, markup, table.thread_id)
    table.message_id = message.message_id
    table.message_photo = False
    await store(app).save_table(table.key, table.to_dict())
    arm_lobby_expiry(app, table)


def _lobby(app: Application, table: Table):
    minutes = math.ceil(timers.seconds_left(table.lobby_deadline) / 60)
    return views.lobby_view(table, app.bot.username, minutes)


async def refresh_lobby(app: Application, table: Table) -> None:
    """Show the lobby's seats as they are now and store the table (lock held)."""
    await store(app).save_table(table.key, table.to_dict())
    if table.message_id is not None:
        text, markup = _lobby(app, table)
        try:
            await edit_text(app.bot, table.chat_id, table.message_id, text, markup)
        except TelegramError as exc:
            log.info("lobby edit at %s failed: %s", table.key, exc)


async def seat_player(
    app: Application, table: Table, user: User, *, lang: str, check_private: bool = True
) -> str | None:
    """Seat ``user`` in the lobby; ``None`` on success, else the text saying why not, in
    ``lang`` (the group's for a reply in the group, the user's for a pop-up or in private).

    Refuses: not a lobby any more, already seated here or at another table, no free seat, a
    balance below the room's minimum (RULES.md §8), or (``check_private``) a private chat the
    bot cannot write to — then the lobby gets its deep-link button (lock held). The seat keeps
    the player's own language (``Player.language``) for their private messages.
    """
    if table.phase != LOBBY:
        return t("pop.game_started", lang)
    if table.seat_of(user.id) is not None:
        return t("pop.already_seated", lang)
    if tables(app).table_of(user.id) is not None:
        return t("pop.seated_elsewhere", lang)
    if table.is_full():
        return t("pop.table_full", lang)
    name = display_name(user)
    player = await store(app).ensure_player(user.id, name, match_language(user.language_code))
    tier = room_stake(await store(app).get_group_settings(table.chat_id))
    if player.balance < tier.min_balance:
        return t("pop.need_beans", lang, minimum=tier.min_balance, balance=player.balance)
    if check_private:
        welcome = t("hand.welcome", player.language or table.lang, group=table.title)
        try:
            await send_text(app.bot, user.id, welcome)
        except TelegramError as exc:
            log.info("cannot write to user %s privately: %s", user.id, exc)
            if not table.join_link:
                table.join_link = True
                await refresh_lobby(app, table)
            return t("pop.need_private", lang)
    table.seats.append(Seat(user.id, name, lang=player.language))
    return None


def arm_lobby_expiry(app: Application, table: Table) -> None:
    """Close the lobby when ``table.lobby_deadline`` passes unless a deal started."""
    stamp = timers.Stamp(table.key, table.token)
    deadline = table.lobby_deadline or time.time()
    timers.arm_at(app.job_queue, timers.LOBBY, stamp, deadline, on_lobby_expired)


async def on_lobby_expired(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Job: the lobby nobody started closes and says so."""
    app = context.application
    stamp: timers.Stamp = context.job.data
    async with tables(app).lock(stamp.key):
        table = tables(app).get(stamp.key)
        if table is not None and table.phase == LOBBY and table.token == stamp.token:
            await expire_lobby(app, table)


async def expire_lobby(app: Application, table: Table) -> None:
    """Close an expired lobby (lock held)."""
    await deal.close_table(app, table, views.lobby_closed_text(table, "expired"))


async def on_lobby_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Join, Leave, Add bot, Start, Close (``L:`` buttons)."""
    app = context.application
    query = update.callback_query
    user = query.from_user
    async with locked_press(app, query) as press:
        if press is None:
            return
        data, table, lang = press.data, press.table, press.lang
        if data.payload == "join":
            refusal = await seat_player(app, table, user, lang=lang)
            if refusal is None:
                await refresh_lobby(app, table)
            await answer(query, refusal or t("pop.joined", lang), alert=refusal is not None)
        elif data.payload == "leave":
            if await leave_lobby(app, table, user.id):
                await answer(query, t("pop.left_lobby", lang))
            else:
                await answer(query, t("pop.not_seated", lang))
        elif data.payload == "bot":
            await _add_bot(app, query, table)
        elif data.payload == "start":
            await _start(app, query, table)
        elif await may_manage(app, table, user.id):
            await deal.close_table(app, table, views.lobby_closed_text(table, "closed",
                                                                  display_name(user)))
            await answer(query)
        else:
            await answer(query, t("pop.only_opener", lang), alert=True)


async def leave_lobby(app: Application, table: Table, user_id: int) -> bool:
    """Take the player's seat away (lock held); ``False`` if they did not sit here. The opener
    role passes to the next human; a lobby without humans closes."""
    seat = table.seat_of(user_id)
    if seat is None:
        return False
    del table.seats[seat]
    humans = [s for _, s in table.humans()]
    if not humans:
        await deal.close_table(app, table, views.lobby_closed_text(table, "empty"))
        return True
    if table.opener_id == user_id:
        table.opener_id = humans[0].user_id
    await refresh_lobby(app, table)
    return True


async def _add_bot(app: Application, query, table: Table) -> None:
    lang = user_language(app, query.from_user, table.lang)
    user_id = query.from_user.id
    if table.seat_of(user_id) is None and not await may_manage(app, table, user_id):
        await answer(query, t("pop.not_seated", lang), alert=True)
    elif table.is_full():
        await answer(query, t("pop.table_full", lang))
    else:
        index = len(table.seats)
        table.seats.append(Seat(None, t("seat.bot", table.lang, n=index + 1), True))
        await refresh_lobby(app, table)
        await answer(query, t("pop.bot_added", lang))


async def _start(app: Application, query, table: Table) -> None:
    lang = user_language(app, query.from_user, table.lang)
    if not await may_manage(app, table, query.from_user.id):
        await answer(query, t("pop.only_opener", lang), alert=True)
    elif not table.is_full():
        await answer(query, t("pop.need_three", lang), alert=True)
    elif (lacking := await lacking_beans(app, table))[1]:
        minimum, short = lacking
        await say(app, table, _need_beans_text(table, short, minimum, table.lang))
        await answer(query, _need_beans_text(table, short, minimum, lang)[:200], alert=True)
    else:
        await deal.start_deal(app, table)
        await answer(query, t("lobby.starting", lang))


def _need_beans_text(table: Table, short: list[int], minimum: int, lang: str) -> str:
    names = ", ".join(views.seat_name(table.seats[i], i, lang) for i in short)
    return t("pop.start_need_beans", lang, names=names, minimum=minimum)


async def lacking_beans(app: Application, table: Table) -> tuple[int, list[int]]:
    """The room's minimum balance to sit (RULES.md §8) and the human seats below it now: beans
    may have gone since they sat down (a deal elsewhere, /give, a changed stake tier), so Start
    checks again (lock held)."""
    minimum = room_stake(await store(app).get_group_settings(table.chat_id)).min_balance
    return minimum, [i for i, seat in table.humans()
                     if await store(app).balance(seat.user_id) < minimum]


async def on_play_again(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """"Play again" under a result: a new lobby with the same seats (minus players who left the
    deal, sit elsewhere now or fell below the room's minimum balance) and the group's current
    settings; the presser becomes its opener (issue 3, flow step 7)."""
    app = context.application
    query = update.callback_query
    async with locked_press(app, query) as press:
        if press is None:
            return
        table = press.table
        if table.seat_of(query.from_user.id) is None:
            await answer(query, t("pop.not_at_table", press.lang), alert=True)
            return
        registry = tables(app)
        group = await store(app).get_group_settings(table.chat_id)
        minimum = room_stake(group).min_balance  # RULES.md §8: below it nobody sits
        table.seats = [
            Seat(s.user_id, s.name, s.is_bot, lang=s.lang) for s in table.seats
            if s.is_bot or (not s.left and registry.table_of(s.user_id) is None
                            and await store(app).balance(s.user_id) >= minimum)
        ]
        table.lang = group_language(app, group)
        table.preset = rules_for(group).bidding
        table.stake = room_stake(group).stake
        registry.retoken(table)
        table.phase = LOBBY
        table.opener_id = query.from_user.id
        table.deal_id = None
        table.state = None
        table.deadline = None
        table.join_link = False
        table.hand_message_ids = []
        table.rendered.clear()
        table.reset_turn_memory()
        try:
            await query.edit_message_reply_markup(None)
        except TelegramError as exc:
            log.info("removing Play again at %s failed: %s", table.key, exc)
        await post_lobby(app, table)
        await answer(query)


def register(app: Application) -> None:
    """Route the lobby's buttons and "Play again"."""
    app.add_handler(CallbackQueryHandler(on_lobby_button, pattern=cb.pattern(cb.LOBBY)))
    app.add_handler(CallbackQueryHandler(on_play_again, pattern=cb.pattern(cb.PLAY_AGAIN)))
