"""Commands: /start, /help, /newgame (/ddz), /join, /leave, /stop,
and the confirmation buttons of /leave during a deal (the bean commands are
:mod:`bot.telegram.handlers.economy`)."""

from __future__ import annotations

import logging
from functools import partial

from telegram import (
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
)

from bot.core import callbacks as cb
from bot.core.i18n import match_language, t
from bot.core.rooms import rules_for
from bot.core.table import DEAL, LOBBY, challenge_key, table_key
from bot.features.match import views as match_views
from bot.presentation import views
from bot.telegram.handlers import senders, tournament
from bot.telegram.handlers.common import (
    GROUP_TYPES,
    answer,
    chat_language,
    display_name,
    game,
    locked_press,
    person,
    say,
    store,
    tables,
    user_language,
)
from bot.telegram.markup import to_markup
from bot.telegram.services import bot_data
from engine import IllegalAction

log = logging.getLogger(__name__)


def _thread(message: Message) -> int | None:
    """The forum topic of a message, ``None`` outside topics."""
    return message.message_thread_id if message.is_topic_message else None


async def _group_only(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """True in a group; in a private chat, says (in the user's language) the command is for
    groups."""
    message = senders.message_of(update)
    if message.chat.type in GROUP_TYPES:
        return True
    lang = await chat_language(context.application, update)
    await message.reply_text(t("reply.group_only", lang))
    return False


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/start: in private, a welcome, or with ``join_<token>`` (the lobby's deep link) a seat at
    that table, or with ``challenge_<id>`` (the link of a challenge's Enter pressed before the
    bot could write privately) a word to press Enter again; in a group, the help. The user
    can be written to privately from now on (:class:`bot.game.reach.PrivateChats`)."""
    app = context.application
    message = senders.message_of(update)
    if message.chat.type != ChatType.PRIVATE:
        await cmd_help(update, context)
        return
    user = await senders.player(app, update)
    if user is None:
        return
    game(app).ctx.private_chats.reached(user.id)  # they opened the private chat
    player = await store(app).ensure_player(user.id, display_name(user),
                                            match_language(user.language_code))
    lang = user_language(app, user, player.language)
    await bot_data(app).menus.follow(context.bot, message.chat.id, lang, group=False)
    arg = context.args[0] if context.args else ""
    if arg.startswith(tournament.WATCH_LINK):
        await message.reply_text(t("tour.start_watch_link", lang))
        return
    if arg.startswith(tournament.TOURNAMENT_LINK):
        await message.reply_text(t("tour.start_link", lang))
        return
    if arg.startswith(cb.CHALLENGE_LINK):
        await message.reply_text(t("reply.start_challenge", lang))
        return
    if not arg.startswith(cb.JOIN_LINK):
        text, markup = views.welcome_view(display_name(user), context.bot.username, lang)
        await message.reply_text(text, reply_markup=to_markup(markup))
        return
    table = tables(app).by_token(arg[len(cb.JOIN_LINK):])
    if table is None or table.phase != LOBBY:
        await message.reply_text(t("reply.start_join_failed", lang))
        return
    async with tables(app).lock(table.key):
        if tables(app).by_token(table.token) is not table or table.phase != LOBBY:
            await message.reply_text(t("reply.start_join_failed", lang))
            return
        refusal = await game(app).lobby.seat(table, person(user), lang=lang,
                                             check_private=False)
        if refusal is None:
            await game(app).lobby.refresh(table, at_once=True)
        await message.reply_text(refusal or t("reply.start_joined", lang, group=table.title))


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/help: the rules in a few lines and the commands this chat offers (a group's or a
    private chat's, :func:`bot.presentation.menus.help_commands`), in the chat's language; in a
    group set to the four-player game its rules (RULES.md §11)."""
    app = context.application
    lang = await chat_language(app, update)
    chat = update.effective_chat
    seats = 3
    group = chat is not None and chat.type in GROUP_TYPES
    if chat is not None and group:
        seats = rules_for(await store(app).get_group_settings(chat.id)).seats
    await senders.message_of(update).reply_text(views.help_text(lang, seats, group=group))
    if chat is not None:
        await bot_data(app).menus.follow(context.bot, chat.id, lang, group=group)


async def on_added(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot became a member of a group (a ``my_chat_member`` update: from left or kicked to
    member or administrator): a short greeting in the group's language that says how to start
    (``greet.group``), and the group's own menu if its language needs one
    (:class:`bot.telegram.menus.Menus`). Nothing for a private chat, a channel or a change of
    rights. Any change of the bot's status makes the hands in the group ask again whether the
    bot is an administrator there
    (:meth:`bot.telegram.outlet.hands.EphemeralHands.forget_admin`)."""
    change = update.my_chat_member
    if change is None or change.chat.type not in GROUP_TYPES:
        return
    outlet = getattr(bot_data(context.application), "outlet", None)
    if outlet is not None:  # whether it may send hands without a press: ask again
        outlet.hands.forget_admin(change.chat.id)
    inside = (ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR)
    if change.old_chat_member.status in inside or change.new_chat_member.status not in inside:
        return
    app = context.application
    lang = await chat_language(app, update)
    try:
        await context.bot.send_message(change.chat.id, t("greet.group", lang))
    except TelegramError as error:  # added and removed at once, or not allowed to write
        log.info("no greeting in group %s: %s", change.chat.id, error)
    await bot_data(app).menus.follow(context.bot, change.chat.id, lang, group=True)


async def cmd_newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/newgame, /ddz: open this group's (or topic's) table and seat the opener."""
    if not await _group_only(update, context):
        return
    user = await senders.player(context.application, update)
    if user is None:
        return
    message = senders.message_of(update)
    chat = message.chat
    table, text = await game(context.application).lobby.open_table(
        chat.id, _thread(message), chat.title or "", person(user)
    )
    if text is not None:
        await message.reply_text(text)


async def cmd_join(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/join: take a seat at this group's open lobby (while a deal is played: wait for the
    next lobby)."""
    if not await _group_only(update, context):
        return
    app = context.application
    user = await senders.player(app, update)
    if user is None:
        return
    message = senders.message_of(update)
    key = table_key(message.chat.id, _thread(message))
    async with tables(app).lock(key):
        table = tables(app).get(key)
        if table is None or table.phase != LOBBY:
            lang = await chat_language(app, update)
            playing = table is not None and table.phase == DEAL
            await message.reply_text(t("reply.deal_running" if playing else "reply.no_table",
                                       lang))
            return
        refusal = await game(app).lobby.seat(table, person(user), lang=table.lang)
        if refusal is None:
            await game(app).lobby.refresh(table, at_once=True)
        await message.reply_text(refusal or t("pop.joined", table.lang))


async def cmd_leave(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/leave: leave the lobby at once; during a deal, ask to confirm first (leaving forfeits
    the deal with the escape penalty, RULES.md §9); under a result that offers Play again, free
    the seat at once (as its Leave button). In a private chat it leaves the practice deal
    played there (nobody pays); a challenge deal cannot be left (its result counts, RULES.md
    §10): the reply says so and how auto-play plays it out. As the lobby's Leave button it is
    on its way before the table's lock (a Start answered meanwhile counts the seat as free; a
    Start answered as starting before it takes the lock first) and withdraws a Join answered
    as seated that no worker has seated yet (:meth:`~bot.game.lobby.Lobby.withdraw`)."""
    app = context.application
    message = senders.message_of(update)
    sender = message.from_user
    playing = game(app).tournaments.table_of(sender.id) if sender is not None else None
    if message.chat.type not in GROUP_TYPES and playing is not None and sender is not None:
        await _leave(app, update, playing.key, sender)  # forfeits it (RULES.md §10.1)
        return
    if message.chat.type not in GROUP_TYPES \
            and tables(app).get(table_key(message.chat.id, None)) is None:
        lang = await chat_language(app, update)
        challenge = tables(app).get(challenge_key(message.chat.id))
        if challenge is not None and challenge.phase == DEAL:
            where = t("challenge.notice_where", lang, id=challenge.competition.challenge_id,
                      deal=challenge.competition.challenge_deal)
            await message.reply_text(t("reply.leave_challenge", lang, where=where))
            return
        await message.reply_text(t("reply.not_practising", lang))
        return
    user = await senders.player(app, update)
    if user is None:
        return
    key = table_key(message.chat.id, _thread(message))
    lobby = game(app).lobby
    await lobby.leaving(key, user.id)
    try:
        await lobby.after_starts(key)
        await _leave(app, update, key, user)
    finally:
        await lobby.left(key, user.id)


async def _leave(app: Application, update: Update, key: str, user: User) -> None:
    """:func:`cmd_leave` at table ``key`` by ``user`` (a Leave registered on its way)."""
    message = senders.message_of(update)
    async with tables(app).lock(key):
        table = tables(app).get(key)
        seat = table.seat_of(user.id) if table is not None else None
        if table is not None and table.phase == LOBBY and seat is None \
                and await game(app).lobby.withdraw(table, user.id):  # not seated yet
            await message.reply_text(t("reply.left_lobby", table.lang, name=display_name(user)))
            return
        if table is not None and seat is not None and not table.seats[seat].left \
                and game(app).again.offered(table):  # under a result: as the Leave button
            await game(app).again.leave(table, seat)
            await message.reply_text(t("reply.left_lobby", table.lang, name=display_name(user)))
            return
        if table is None or seat is None or table.phase not in (LOBBY, DEAL) \
                or table.seats[seat].left:
            lang = await chat_language(app, update)
            await message.reply_text(t("reply.not_seated", lang))
            return
        lang = table.lang
        name = display_name(user)
        if table.phase == LOBBY:
            await game(app).lobby.leave(table, user.id)
            await message.reply_text(t("reply.left_lobby", lang, name=name))
            return
        markup = InlineKeyboardMarkup([[
            InlineKeyboardButton(t("btn.leave_practice" if table.practice else "btn.leave_confirm",
                                   lang),
                                 callback_data=cb.make_callback(cb.CONFIRM_LEAVE, table.token,
                                                                0, f"yes{seat}")),
            InlineKeyboardButton(t("btn.cancel", lang),
                                 callback_data=cb.make_callback(cb.CONFIRM_LEAVE, table.token,
                                                                0, f"no{seat}")),
        ]])
        text = t("reply.leave_practice" if table.practice else "reply.leave_confirm", lang,
                 name=name)
        if table.competition.match_id is not None:  # leaving forfeits the match too
            text += "\n" + t("match.leave_warning", lang)
        if table.competition.tournament is not None:  # and a tournament (RULES.md §10.1)
            text += "\n" + t("tour.leave_forfeit", lang, id=table.competition.tournament_id)
        prompt = await message.reply_text(text, reply_markup=markup)
        table.set_leave_prompt(seat, prompt.message_id)
        await store(app).save_table(table.key, table.to_dict())


async def on_leave_confirm(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The /leave confirmation (``Q:`` buttons): "yes" makes the seat that asked leave the deal.
    Only that seat's player may answer, and only on the prompt their /leave got, while it is
    pending (``TableMessages.leave_prompts``): forged data on another message, or a prompt answered
    or replaced already, gets a pop-up and changes nothing."""
    app = context.application
    query = senders.query_of(update)
    async with locked_press(app, query) as press:
        if press is None:
            return
        data, table, lang = press.data, press.table, press.lang
        seat = table.seat_of(query.from_user.id)
        if seat is None:
            await answer(query, t("pop.not_seated", lang), alert=True)
            return
        if seat != data.seat:
            asker = views.seat_name(table.seats[data.seat], data.seat, lang) \
                if data.seat < len(table.seats) else "?"
            await answer(query, t("pop.not_asker", lang, name=asker), alert=True)
            return
        prompts = table.messages.leave_prompts
        pending = prompts[seat] if seat < len(prompts) else None
        # a tournament table's prompt is in the seat's private chat (RULES.md §10.1)
        where = table.chat_id if table.competition.tournament is None else query.from_user.id
        if pending is None or query.message is None or query.message.message_id != pending \
                or query.message.chat.id != where:
            await answer(query, t("pop.leave_not_pending", lang), alert=True)
            return
        table.set_leave_prompt(seat, None)
        await store(app).save_table(table.key, table.to_dict())
        name = views.seat_name(table.seats[seat], seat, table.lang)
        if data.payload.startswith("no"):
            await _close_prompt(query, t("reply.leave_cancelled", table.lang, name=name))
            await answer(query, t("pop.stay", lang))
            return
        try:
            await game(app).deals.leave(table, seat, ack=partial(answer, query))
        except IllegalAction as exc:
            await answer(query, views.refusal_text(exc, lang), alert=True)
            return
        announcement = t("table.left_practice" if table.practice else "table.left_deal",
                         table.lang, name=name)
        if not await _close_prompt(query, announcement):
            await say(app, table, announcement)


async def _close_prompt(query: CallbackQuery, text: str) -> bool:
    """Replace the /leave prompt by ``text`` (its buttons go); ``False`` if it cannot be
    edited any more (deleted)."""
    try:
        await query.edit_message_text(text)
    except TelegramError as exc:
        log.info("closing the leave prompt failed: %s", exc)
        return False
    return True


async def cmd_stop(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/stop (group admins): cancel the running deal, nobody pays; or close the lobby. The
    reply says who stopped it and what it means; the table (or lobby) message loses its buttons
    and says only that the table is closed, so the group reads the notice once."""
    if not await _group_only(update, context):
        return
    app = context.application
    message = senders.message_of(update)
    lang = await chat_language(app, update)
    if not await senders.sender_is_admin(app, message):
        await message.reply_text(t("reply.admin_only", lang))
        return
    key = table_key(message.chat.id, _thread(message))
    stopped = await tournament.stop(app, message.chat.id, _sender_name(message))
    async with tables(app).lock(key):
        table = tables(app).get(key)
        if (table is None or table.phase not in (LOBBY, DEAL)) and not stopped:
            await message.reply_text(t("reply.nothing_to_stop", lang))
            return
        name = _sender_name(message)
        if table is None or table.phase not in (LOBBY, DEAL):
            return
        refund = await game(app).matches.cancel(table)
        if refund is not None:
            text = match_views.cancelled_text(table.lang, name, refund.paid)
            if table.phase == DEAL:
                await game(app).deals.stop(table)
        elif table.phase == DEAL:
            text = t("lobby.stopped", table.lang, name=name)
            await game(app).deals.stop(table)
        else:
            text = views.lobby_closed_text(table, "closed", name)
        # the notice once, as the reply; the table's own message only says it is closed
        await game(app).close_table(table, t("table.closed_mark", table.lang))
        await message.reply_text(text)


def _sender_name(message: Message) -> str:
    """Who sent a command, as the group sees it: the person, or the group's or channel's title
    for a message sent as a chat (an anonymous admin)."""
    user = senders.person(message)
    if user is not None:
        return display_name(user)
    if message.sender_chat is not None:
        return message.sender_chat.title or message.chat.title or "?"
    return message.chat.title or "?"


def register(app: Application) -> None:
    """Route the commands and the /leave confirmation."""
    app.add_handler(CommandHandler("start", cmd_start))
    app.add_handler(CommandHandler("help", cmd_help))
    app.add_handler(CommandHandler(["newgame", "ddz"], cmd_newgame))
    app.add_handler(CommandHandler("join", cmd_join))
    app.add_handler(CommandHandler("leave", cmd_leave))
    app.add_handler(CommandHandler("stop", cmd_stop))
    app.add_handler(ChatMemberHandler(on_added, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(CallbackQueryHandler(on_leave_confirm, pattern=cb.pattern(cb.CONFIRM_LEAVE)))
