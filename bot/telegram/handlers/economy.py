"""Bean commands (RULES.md §8): /daily, /relief, /give, /balance, /top, /me (/stats) and
the admins' /audit.

Every command that needs a player makes sure its sender is a person
(:func:`bot.telegram.handlers.senders.player`: anonymous admins and channels get a polite refusal
and no wallet) and a player (``store.ensure_player``: 1000 beans the first time). A player's own
days (check-in, relief, the /give limit) end at midnight Beijing time whatever the group
(:func:`bot.core.beans.player_day`); today's and this week's leaderboards use the group's time zone.
Numbers are ASCII (or full-width) digits only (:func:`bot.core.numbers.parse_whole`); /give says
what is wrong with anything else (not a number, zero or less).
/give is refused while the giver sits at a running deal (the store's hold).

A player named in /give or /audit is found, in this order, as the author of the message the
command replies to, a text mention (a tap on a name without @username), ``@username`` of someone
the bot has seen (Telegram offers no look-up: every update's people are recorded in the store,
:mod:`bot.store.usernames`, so every worker finds them, after a restart too), or the
user id of a known player.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from telegram import Chat, Message, MessageEntity, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import Forbidden, TelegramError
from telegram.ext import Application, CommandHandler, ContextTypes, TypeHandler

from bot.core.beans import Period
from bot.core.i18n import match_language, t
from bot.core.numbers import SQL_INTEGER_MAX, parse_whole, typed_digits
from bot.features.economy import views as ev
from bot.presentation import scenes
from bot.store import AlreadyClaimed, GiveRefused, NotEligible, Player
from bot.telegram.handlers.common import (
    chat_language,
    display_name,
    photo_cache,
    store,
    user_language,
)
from bot.telegram.handlers.senders import NOT_PEOPLE, message_of, person, player, sender_is_admin
from bot.telegram.photos import Picture, send_photo
from bot.telegram.services import bot_data
from images import render_leaderboard

log = logging.getLogger(__name__)

GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)
TOP_LIMIT = 10
AUDIT_ROWS = 20
#: Seconds a message waits at most for its people's usernames to be stored before its
#: handlers run (the write goes on in the background after that).
USERNAME_WAIT = 2.0
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


def is_group(chat: Chat | None) -> bool:
    """True in a group or supergroup."""
    return chat is not None and chat.type in GROUP_TYPES


async def ensure(app: Application, user: User) -> Player:
    """The user's player, created with the start balance if new (``user`` must be a person:
    :func:`bot.telegram.handlers.senders.player`)."""
    return await store(app).ensure_player(user.id, display_name(user),
                                          match_language(user.language_code))


async def _reply(update: Update, text: str) -> None:
    await message_of(update).reply_text(text)


async def _group_only(update: Update, lang: str) -> bool:
    if is_group(update.effective_chat):
        return True
    await _reply(update, t("reply.group_only", lang))
    return False


def _group_id(message: Message) -> int | None:
    """The group a command was sent in, ``None`` in a private chat."""
    return message.chat.id if is_group(message.chat) else None


async def remember_usernames(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Record the @username (or that there is none) of every person the bot sees, for /give
    and /audit: in the store, written only when it changed since this process last stored it
    (:class:`bot.store.usernames.UsernameBook`). A store error is logged and the update goes on (the
    next update of that user tries again). A press's user is recorded in a task of its own:
    a press is answered before any other work. A message waits for its people's writes, so
    that a ``/give @them`` right after finds them, but at most :data:`USERNAME_WAIT` seconds:
    a write held up (with several workers, another worker's transaction on that user frozen
    half-way) must not hold the command, whose reply came once never."""
    app = context.application
    message = update.message or update.edited_message  # written by the sender, not the bot
    users = [update.effective_user]
    if message is not None:
        users = [person(message)]
        if message.reply_to_message is not None:
            users.append(person(message.reply_to_message))
    people = [user for user in users if user is not None and not user.is_bot]
    notes = {app.create_task(_note_username(app, user), name="remember_username")
             for user in people}
    if message is not None and notes:
        await asyncio.wait(notes, timeout=USERNAME_WAIT)


async def _note_username(app: Application, user: User) -> None:
    try:
        await bot_data(app).usernames.note(store(app), user.id, user.username,
                                           display_name(user))
    except Exception:  # a lost username is not worth the update: log it and go on
        log.warning("could not record the username of user %s", user.id, exc_info=True)


# --- Check-in and relief --------------------------------------------------------------------------


async def cmd_daily(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/daily: the daily check-in (每日签到), ``EconomyRules.daily_amount(streak)`` beans; once a
    player's day (RULES.md §8, :func:`bot.core.beans.player_day`)."""
    app = context.application
    user = await player(app, update)
    if user is None:
        return
    lang = await chat_language(app, update)
    await ensure(app, user)
    try:
        claim = await store(app).claim_daily(user.id, _group_id(message_of(update)))
    except AlreadyClaimed as exc:
        await _reply(update, ev.daily_refused_text(exc.next_day, lang))
        return
    await _reply(update, ev.daily_text(display_name(user), claim, lang))


async def cmd_relief(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/relief: relief (救济金) for a balance below ``economy.relief_below``, once a player's day
    (RULES.md §8)."""
    app = context.application
    user = await player(app, update)
    if user is None:
        return
    lang = await chat_language(app, update)
    account = await ensure(app, user)
    st = store(app)
    try:
        claim = await st.claim_relief(user.id, _group_id(message_of(update)))
    except (NotEligible, AlreadyClaimed) as exc:
        await _reply(update, ev.relief_refused_text(exc.code, lang, below=st.economy.relief_below,
                                                    balance=account.balance))
        return
    await _reply(update, ev.relief_text(display_name(user), claim, lang))


async def cmd_balance(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/balance: the player's beans."""
    app = context.application
    user = await player(app, update)
    if user is None:
        return
    lang = await chat_language(app, update)
    account = await ensure(app, user)
    await _reply(update, ev.balance_text(account.name, account.balance, lang,
                                         relief_below=store(app).economy.relief_below))


# --- /give and /audit ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Named:
    """The player a command names: user id, display name, and the Telegram user when the
    message carries it."""

    user_id: int
    name: str
    user: User | None = None


def _mentioned_user(message: Message) -> User | None:
    """The user of the first text mention in the message, if any."""
    for entity in message.entities:
        if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None:
            return entity.user
    return None


async def _named_player(app: Application, message: Message, word: str | None) -> Named | str:
    """The player a command names (see the module docstring), or why there is none: the
    refusal code ``give_bot`` (a bot), ``give_not_person`` (an anonymous admin or a channel),
    ``give_unknown_target`` (nobody named, an unknown name, a malformed id)."""
    replied = message.reply_to_message
    if replied is not None:
        if person(replied) is not None:
            user: User | None = replied.from_user
        elif replied.sender_chat is None and replied.from_user is not None \
                and replied.from_user.id not in NOT_PEOPLE:
            return "give_bot"
        else:
            return "give_not_person"
    else:
        user = _mentioned_user(message)
    if user is not None:
        return Named(user.id, display_name(user), user)
    if word is None:
        return "give_unknown_target"
    if word.startswith("@"):
        owner = await store(app).username_owner(word)
        return Named(owner.user_id, owner.name) if owner is not None else "give_unknown_target"
    user_id = parse_whole(word, low=1)
    known = await store(app).get_player(user_id) if user_id is not None else None
    return Named(known.user_id, known.name) if known is not None else "give_unknown_target"


async def cmd_give(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/give @user N, /give <user id> N, or /give N in reply to someone: move N beans to another
    player. Only where the group turned /give on, within the giver's daily limit
    (``economy.give_daily_limit``, per player's day), and never while the giver sits at a
    running deal (it may still take the beans); ledger rows ``give`` for both
    (RULES.md §8).

    The checks run in the order that tells a player the first thing worth fixing:
    /give being off in this group comes first (no change to the command helps), then the
    command's shape (no amount, or more words than a player and an amount: ``/give @bob 5 6``
    gives neither 5 nor 6), the amount (not a number, zero or less), whom it names, and last
    what the store decides (a running deal, today's limit, more than the balance, which says the
    balance)."""
    app = context.application
    message = message_of(update)
    lang = await chat_language(app, update)
    if not await _group_only(update, lang):
        return
    user = await player(app, update)
    if user is None:
        return
    if not (await store(app).get_group_settings(message.chat.id))["give_enabled"]:
        await _reply(update, ev.give_refused_text("give_disabled", lang))
        return
    args = context.args or []
    if not args or len(args) > 2:  # /give @bob 5 6: which number is meant? the usage says
        await _reply(update, ev.give_refused_text("give_usage", lang))
        return
    amount = _give_amount(args[-1])
    if isinstance(amount, str):
        await _reply(update, ev.give_refused_text(amount, lang, word=args[-1]))
        return
    target = await _named_player(app, message, args[0] if len(args) >= 2 else None)
    if isinstance(target, str):
        await _reply(update, ev.give_refused_text(target, lang))
        return
    if target.user is not None and target.user.is_bot:
        await _reply(update, ev.give_refused_text("give_bot", lang))
        return
    await ensure(app, user)
    if target.user is not None:
        await ensure(app, target.user)
    else:  # known by id or @username: a username's holder may not have played yet
        await store(app).ensure_player(target.user_id, target.name)
    try:
        gift = await store(app).give(user.id, target.user_id, amount, message.chat.id,
                                     request=f"{message.chat.id}:{message.message_id}")
    except GiveRefused as exc:
        balance = await store(app).balance(user.id) if exc.code == "give_insufficient" else 0
        asked = args[-1][:32] if amount == SQL_INTEGER_MAX else amount  # as typed, not capped
        await _reply(update, ev.give_refused_text(exc.code, lang, exc.remaining, amount=asked,
                                                  balance=balance))
        return
    await _reply(update, ev.give_text(display_name(user), target.name, gift, lang))


def _give_amount(word: str) -> int | str:
    """The beans ``/give`` names, or the refusal code: ``give_not_number`` (not a whole number
    in ASCII or full-width digits, e.g. ``lots``, ``1.5``, ``²``), ``give_invalid_amount`` (zero
    or less); a number too large for any balance reads as itself capped (the store refuses it
    as more than the balance)."""
    word = typed_digits(word)
    digits = word.removeprefix("-").removeprefix("+")
    if not (digits.isascii() and digits.isdigit()):
        return "give_not_number"
    if word.startswith("-") or int(digits) == 0:
        return "give_invalid_amount"
    return parse_whole(digits) or SQL_INTEGER_MAX


async def cmd_audit(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/audit (group admins) in reply to a player, or /audit @user | <user id>: the player's
    last 20 ledger rows (RULES.md §8), sent to the admin privately. The player must be a member
    of this group. An anonymous admin is asked to send it as themselves (there is nobody to
    write to privately)."""
    app = context.application
    message = message_of(update)
    chat = message.chat
    lang = await chat_language(app, update)
    if not await _group_only(update, lang):
        return
    if not await sender_is_admin(app, message):
        await _reply(update, t("reply.admin_only", lang))
        return
    admin = person(message)
    if admin is None:
        await _reply(update, t("audit.anonymous", lang))
        return
    args = context.args or []
    target = await _named_player(app, message, args[0] if args else None)
    if isinstance(target, str):
        await _reply(update, t("audit.usage", lang))
        return
    if not await _is_member(app, chat.id, target.user_id):
        await _reply(update, t("audit.not_member", lang))
        return
    entries = await store(app).ledger(target.user_id, AUDIT_ROWS)
    group = await store(app).get_group_settings(chat.id)
    text = ev.audit_text(target.name, target.user_id, entries, group["timezone"],
                         user_language(app, admin, lang))  # sent to the admin privately
    try:
        await app.bot.send_message(admin.id, text)
    except Forbidden:
        await _reply(update, t("audit.open_private", lang))
        return
    await _reply(update, t("audit.sent", lang, name=display_name(admin)))


async def _is_member(app: Application, chat_id: int, user_id: int) -> bool:
    try:
        member = await app.bot.get_chat_member(chat_id, user_id)
    except TelegramError as exc:
        log.info("getChatMember for the audit failed: %s", exc)
        return False
    return member.status not in NOT_MEMBERS


# --- Leaderboards and statistics ------------------------------------------------------------------


#: ``/top matches``: the group's match winners.
MATCH_TOP_WORDS = (["matches"], ["match"], ["比赛"], ["比賽"])
#: ``/top tournaments``: the group's tournament winners.
TOURNAMENT_TOP_WORDS = (["tournaments"], ["tournament"], ["锦标赛"], ["錦標賽"])


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
    """/top [today|week|all|global|matches|tournaments]: a leaderboard, best first; ties:
    fewer deals, then whoever got there earlier (see :meth:`bot.store.Store.leaderboard`). In a
    group with pictures on, the leaderboard picture
    (:func:`bot.presentation.scenes.leaderboard_scene`) with the text board as its caption;
    otherwise the text."""
    app = context.application
    message = message_of(update)
    chat = message.chat
    lang = await chat_language(app, update)
    if [w.lower() for w in context.args or []] in MATCH_TOP_WORDS and is_group(chat):
        week = await store(app).match_leaderboard(chat.id, "week", limit=TOP_LIMIT)
        ever = await store(app).match_leaderboard(chat.id, "all", limit=TOP_LIMIT)
        await _reply(update, ev.match_top_text(week, ever, lang))
        return
    if [w.lower() for w in context.args or []] in TOURNAMENT_TOP_WORDS and is_group(chat):
        week = await store(app).tournament_leaderboard(chat.id, "week", limit=TOP_LIMIT)
        ever = await store(app).tournament_leaderboard(chat.id, "all", limit=TOP_LIMIT)
        await _reply(update, ev.match_top_text(week, ever, lang, tournaments=True))
        return
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
    board = scenes.leaderboard_scene(kind, rows, lang)
    picture = Picture(await asyncio.to_thread(render_leaderboard, board), "top.png")
    thread = message.message_thread_id if message.is_topic_message else None
    await send_photo(app.bot, photo_cache(app), chat.id, picture, text, thread_id=thread,
                     reply_to=message.message_id)


async def cmd_me(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/me, /stats: the player's statistics with balance and rank (in this group, or overall
    in a private chat)."""
    app = context.application
    user = await player(app, update)
    if user is None:
        return
    lang = await chat_language(app, update)
    await ensure(app, user)
    group_id = _group_id(message_of(update))
    in_group = group_id is not None
    stats = await store(app).player_stats(user.id, group_id)
    matches = await store(app).match_stats(user.id)
    tournaments = await store(app).tournament_stats(user.id)
    await _reply(update, ev.stats_text(stats, lang, in_group=in_group, matches=matches,
                                       tournaments=tournaments))


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
