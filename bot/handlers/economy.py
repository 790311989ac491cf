"""Bean commands (issue 5, RULES.md §8): /daily, /relief, /give, /balance, /top, /me (/stats) and
the admins' /audit.

Every command makes sure its user is a player (``store.ensure_player``: 1000 beans the first
time). Days (check-in, relief, the /give limit, today's and this week's leaderboards) are calendar
days in the group's time zone; in a private chat, ``Asia/Shanghai`` (the store's default).

A player named in /give or /audit is found, in this order, as the author of the message the
command replies to, a text mention (a tap on a name without @username), ``@username`` of someone
the bot has seen write since it started (``bot_data["usernames"]``; Telegram offers no look-up),
or the user id of a known player.
"""

from __future__ import annotations

import asyncio
import logging

from telegram import Chat, Message, MessageEntity, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import Forbidden, TelegramError
from telegram.ext import Application, CommandHandler, ContextTypes, TypeHandler

from bot import economy_views as ev
from bot import scenes
from bot.economy import Period
from bot.handlers.common import (
    chat_language,
    display_name,
    is_admin,
    photo_cache,
    store,
    user_language,
)
from bot.i18n import match_language, t
from bot.photos import Picture, send_photo
from bot.store import AlreadyClaimed, GiveRefused, NotEligible, Player
from images import render_leaderboard

log = logging.getLogger(__name__)

GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)
TOP_LIMIT = 10
AUDIT_ROWS = 20
#: ``/top`` words (English and Chinese) and what they ask for.
PERIOD_WORDS = {
    "today": "today", "今日": "today", "今天": "today",
    "week": "week", "本周": "week", "本週": "week",
    "all": "all", "总榜": "all", "總榜": "all",
}
GLOBAL_WORDS = frozenset({"global", "全服", "全部"})
#: Each leaderboard ``/top`` shows: the store's period, and whether over all groups.
TOP_QUERIES: dict[str, tuple[Period, bool]] = {
    "today": ("today", False),
    "week": ("week", False),
    "all": ("all", False),
    "global_today": ("today", True),
    "global_week": ("week", True),
    "global": ("all", True),
}
NOT_MEMBERS = frozenset({ChatMemberStatus.LEFT, ChatMemberStatus.BANNED})


def is_group(chat: Chat) -> bool:
    """True in a group or supergroup."""
    return chat.type in GROUP_TYPES


async def ensure(app: Application, user: User) -> Player:
    """The user's player, created with the start balance if new."""
    return await store(app).ensure_player(user.id, display_name(user),
                                          match_language(user.language_code))


async def _reply(update: Update, text: str) -> None:
    await update.effective_message.reply_text(text)


async def _group_only(update: Update, lang: str) -> bool:
    if is_group(update.effective_chat):
        return True
    await _reply(update, t("reply.group_only", lang))
    return False


async def remember_usernames(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Record ``@username → User`` of every user the bot sees (for /give and /audit)."""
    names: dict[str, User] = context.application.bot_data.setdefault("usernames", {})
    message = update.effective_message
    users = [update.effective_user]
    if message is not None and message.reply_to_message is not None:
        users.append(message.reply_to_message.from_user)
    for user in users:
        if user is not None and user.username and not user.is_bot:
            names[user.username.lower()] = user


# --- Check-in and relief --------------------------------------------------------------------------


async def cmd_daily(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/daily: the daily check-in (每日签到), ``EconomyRules.daily_amount(streak)`` beans; once a
    day (RULES.md §8)."""
    app = context.application
    chat, user = update.effective_chat, update.effective_user
    lang = await chat_language(app, update)
    await ensure(app, user)
    try:
        claim = await store(app).claim_daily(user.id, chat.id if is_group(chat) else None)
    except AlreadyClaimed as exc:
        await _reply(update, ev.daily_refused_text(exc.next_day, lang))
        return
    await _reply(update, ev.daily_text(display_name(user), claim, lang))


async def cmd_relief(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/relief: relief (救济金) for a balance below ``economy.relief_below``, once a day
    (RULES.md §8)."""
    app = context.application
    chat, user = update.effective_chat, update.effective_user
    lang = await chat_language(app, update)
    player = await ensure(app, user)
    st = store(app)
    try:
        claim = await st.claim_relief(user.id, chat.id if is_group(chat) else None)
    except (NotEligible, AlreadyClaimed) as exc:
        await _reply(update, ev.relief_refused_text(exc.code, lang, below=st.economy.relief_below,
                                                    balance=player.balance))
        return
    await _reply(update, ev.relief_text(display_name(user), claim, lang))


async def cmd_balance(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/balance: the player's beans."""
    app = context.application
    lang = await chat_language(app, update)
    player = await ensure(app, update.effective_user)
    await _reply(update, ev.balance_text(player.name, player.balance, lang,
                                         relief_below=store(app).economy.relief_below))


# --- /give and /audit ---------------------------------------------------------------------------


def _mentioned_user(message: Message) -> User | None:
    """The user of the first text mention in the message, if any."""
    for entity in message.entities:
        if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None:
            return entity.user
    return None


async def _named_player(
    app: Application, message: Message, word: str | None
) -> tuple[int, str, User | None] | None:
    """``(user_id, name, user)`` of the player a command names (see the module docstring);
    ``user`` is the Telegram user when the message carries it. ``None`` if nobody is named or
    the name is unknown."""
    replied = message.reply_to_message
    user = replied.from_user if replied is not None else None
    user = user or _mentioned_user(message)
    if user is not None:
        return user.id, display_name(user), user
    if word is None:
        return None
    if word.startswith("@"):
        user = app.bot_data.get("usernames", {}).get(word[1:].lower())
        return (user.id, display_name(user), user) if user is not None else None
    if not word.isdigit():
        return None
    player = await store(app).get_player(int(word))
    return (player.user_id, player.name, None) if player is not None else None


def _amount(word: str) -> int | None:
    return int(word) if word.isdigit() and len(word) <= 12 else None


async def cmd_give(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/give @user N, /give <user id> N, or /give N in reply to someone: move N beans to another
    player. Only where the group turned /give on, within the daily limit
    (``economy.give_daily_limit``); ledger rows ``give`` for both (RULES.md §8)."""
    app = context.application
    message, user = update.effective_message, update.effective_user
    lang = await chat_language(app, update)
    if not await _group_only(update, lang):
        return
    args = context.args or []
    amount = _amount(args[-1]) if args else None
    target_word = args[0] if len(args) >= 2 else None
    if amount is None:
        await _reply(update, ev.give_refused_text("give_usage", lang))
        return
    target = await _named_player(app, message, target_word)
    if target is None:
        await _reply(update, ev.give_refused_text("give_unknown_target", lang))
        return
    target_id, target_name, target_user = target
    if target_user is not None and target_user.is_bot:
        await _reply(update, ev.give_refused_text("give_bot", lang))
        return
    await ensure(app, user)
    if target_user is not None:
        await ensure(app, target_user)
    try:
        gift = await store(app).give(user.id, target_id, amount, update.effective_chat.id)
    except GiveRefused as exc:
        await _reply(update, ev.give_refused_text(exc.code, lang, exc.remaining))
        return
    await _reply(update, ev.give_text(display_name(user), target_name, gift, lang))


async def cmd_audit(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/audit (group admins) in reply to a player, or /audit @user | <user id>: the player's
    last 20 ledger rows (RULES.md §8), sent to the admin privately. The player must be a member
    of this group."""
    app = context.application
    chat, message, user = update.effective_chat, update.effective_message, update.effective_user
    lang = await chat_language(app, update)
    if not await _group_only(update, lang):
        return
    if not await is_admin(app, chat.id, user.id):
        await _reply(update, t("reply.admin_only", lang))
        return
    args = context.args or []
    target = await _named_player(app, message, args[0] if args else None)
    if target is None:
        await _reply(update, t("audit.usage", lang))
        return
    target_id, target_name, _ = target
    if not await _is_member(app, chat.id, target_id):
        await _reply(update, t("audit.not_member", lang))
        return
    entries = await store(app).ledger(target_id, AUDIT_ROWS)
    group = await store(app).get_group_settings(chat.id)
    text = ev.audit_text(target_name, target_id, entries, group["timezone"],
                         user_language(app, user, lang))  # sent to the admin privately
    try:
        await app.bot.send_message(user.id, text)
    except Forbidden:
        await _reply(update, t("audit.open_private", lang))
        return
    await _reply(update, t("audit.sent", lang, name=display_name(user)))


async def _is_member(app: Application, chat_id: int, user_id: int) -> bool:
    try:
        member = await app.bot.get_chat_member(chat_id, user_id)
    except TelegramError as exc:
        log.info("getChatMember for the audit failed: %s", exc)
        return False
    return member.status not in NOT_MEMBERS


# --- Leaderboards and statistics ------------------------------------------------------------------


def top_kind(args: list[str], in_group: bool) -> str | None:
    """Which leaderboard ``/top <args>`` asks for (a key of :data:`TOP_QUERIES`), or ``None``
    for words it does not know.

    In a group: ``today`` (default), ``week``, ``all`` are this group's; ``global`` alone is
    every player's balance, ``global today``/``global week`` net beans over all groups. In a
    private chat every board is global (``/top`` alone: today over all groups).

    >>> top_kind([], True), top_kind(["week"], True), top_kind(["global"], True)
    ('today', 'week', 'global')
    >>> top_kind(["week"], False), top_kind(["nonsense"], True)
    ('global_week', None)
    """
    words = [word.lower() for word in args]
    periods = [PERIOD_WORDS[word] for word in words if word in PERIOD_WORDS]
    named_global = [word for word in words if word in GLOBAL_WORDS]
    if len(periods) + len(named_global) != len(words) or len(periods) > 1 or len(named_global) > 1:
        return None
    period = periods[0] if periods else ("all" if named_global else "today")
    if in_group and not named_global:
        return period
    return "global" if period == "all" else f"global_{period}"


async def cmd_top(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/top [today|week|all|global]: a leaderboard, best first; ties: fewer deals, then whoever
    got there earlier (see :meth:`bot.store.Store.leaderboard`). In a group with pictures on
    (issue 4), the leaderboard picture (:func:`bot.scenes.leaderboard_scene`) with the text
    board as its caption; otherwise the text."""
    app = context.application
    chat = update.effective_chat
    lang = await chat_language(app, update)
    kind = top_kind(context.args or [], is_group(chat))
    if kind is None:
        await _reply(update, t("top.usage", lang))
        return
    period, over_all_groups = TOP_QUERIES[kind]
    rows = await store(app).leaderboard(None if over_all_groups else chat.id, period,
                                        limit=TOP_LIMIT)
    text = ev.top_text(kind, rows, lang)
    if not is_group(chat) or not (await store(app).get_group_settings(chat.id))["pictures"]:
        await _reply(update, text)
        return
    title, board = scenes.leaderboard_scene(kind, rows)
    picture = Picture(await asyncio.to_thread(render_leaderboard, board, title), "top.png")
    message = update.effective_message
    thread = message.message_thread_id if message.is_topic_message else None
    await send_photo(app.bot, photo_cache(app), chat.id, picture, text, thread_id=thread,
                     reply_to=message.message_id)


async def cmd_me(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/me, /stats: the player's statistics with balance and rank (in this group, or overall
    in a private chat)."""
    app = context.application
    chat, user = update.effective_chat, update.effective_user
    lang = await chat_language(app, update)
    await ensure(app, user)
    in_group = is_group(chat)
    stats = await store(app).player_stats(user.id, chat.id if in_group else None)
    await _reply(update, ev.stats_text(stats, lang, in_group=in_group))


def register(app: Application) -> None:
    """Route the bean commands, and record usernames from every update (group -1)."""
    app.add_handler(TypeHandler(Update, remember_usernames), group=-1)
    app.add_handler(CommandHandler("daily", cmd_daily))
    app.add_handler(CommandHandler("relief", cmd_relief))
    app.add_handler(CommandHandler("balance", cmd_balance))
    app.add_handler(CommandHandler("give", cmd_give))
    app.add_handler(CommandHandler("audit", cmd_audit))
    app.add_handler(CommandHandler("top", cmd_top))
    app.add_handler(CommandHandler(["me", "stats"], cmd_me))
