"""Group tournaments (锦标赛, RULES.md §10.1): ``/tournament [quick|classic|qualifier] [fee]
[HH:MM] [min N] [max N] [time M]`` (alias ``/jinbiao``; :func:`parse_arguments`) opens one in a
group (its admins, or anyone if the group's
``challenge_open`` setting allows, as for challenges); ``/tournament cancel`` cancels it
(admins or its opener), every fee refunded. Its buttons (``T:``): 报名 Sign up, 退出
Withdraw, 开赛 Start and 取消 Cancel (the opener's and admins') on the sign-up message, 观战
Watch on the board (the table in the presser's private chat, kept up to date). Entry points into
:class:`bot.features.tournament.driver.Tournaments`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from telegram import CallbackQuery, Update
from telegram.ext import CallbackQueryHandler, CommandHandler

from bot.core.i18n import t
from bot.core.numbers import grouped, parse_whole
from bot.features.tournament import views
from bot.features.tournament.driver import MAX_SIGNUP, MAX_TIME_LIMIT
from bot.game.outlet import Unreachable
from bot.store import StoreError
from bot.telegram.handlers import senders
from bot.telegram.handlers.common import (
    GROUP_TYPES,
    answer,
    answer_private_link,
    ask_private_first,
    chat_language,
    display_name,
    game,
    group_language,
    is_admin,
    open_press,
    person,
    refuse,
    store,
    user_language,
)
from bot.telegram.services import App, Context
from engine.match import LIMITS
from engine.tournament import PRESETS

#: ``/tournament cancel`` (also 取消).
CANCEL_WORDS = frozenset({"cancel", "取消"})
#: The ``/start`` argument of the link Sign up answers with when the bot cannot write to the
#: presser privately yet, before the tournament's id.
TOURNAMENT_LINK = "tournament_"
#: The ``/start`` argument of the link 观战 Watch answers with when the bot cannot write to the
#: presser privately, before the tournament's id (its reply says to press Watch again).
WATCH_LINK = "watch_"
_TIME_RE = re.compile(r"([0-9]{1,2})[:：]([0-9]{2})")
#: The option words followed by a number (English, 简体, 繁體): the field's minimum and maximum
#: (players) and each stage's time limit (minutes).
OPTION_WORDS = {"min": "min", "最少": "min", "max": "max", "最多": "max",
                "time": "time", "限时": "time", "限時": "time"}
#: A time limit of none (``time off``; 0 too).
OFF_WORDS = frozenset({"off", "none", "不限"})


class ArgumentError(ValueError):
    """A ``/tournament`` word that cannot be used: ``key`` names the reply (``tour.usage``,
    ``tour.bad_fee``, ``tour.bad_time``, ``tour.bad_min``, ``tour.bad_max``,
    ``tour.bad_field``, ``tour.bad_limit``) and ``params`` its numbers (the range)."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True, slots=True)
class TournamentArguments:
    """What ``/tournament`` asked for: the preset, the entry fee (beans), the start time
    (hour, minute) or ``None``, the field's ``minimum`` and ``maximum`` (players) and the
    stage ``time_limit`` (minutes, 0: none); ``None``: not given (the default)."""

    preset: str = "quick"
    fee: int = 0
    at: tuple[int, int] | None = None
    minimum: int | None = None
    maximum: int | None = None
    time_limit: int | None = None


def parse_arguments(args: list[str], *, table_size: int = 3) -> TournamentArguments:
    """``/tournament``'s words, each optional, in any order: a preset name (default
    ``quick``), the entry fee (whole beans within :data:`engine.match.LIMITS`,
    default 0), the start time ``HH:MM``, ``min N`` and ``max N`` (the field, RULES.md §10.1:
    ``table_size`` ≤ min ≤ max ≤ :data:`~bot.features.tournament.driver.MAX_SIGNUP`; defaults
    one table and that cap) and ``time M`` (each stage's time limit in minutes, 1 to
    :data:`~bot.features.tournament.driver.MAX_TIME_LIMIT`; ``0`` or ``off``: none). The
    option words may be written 最少 / 最多 / 限时 (限時) too, and ``min=6`` as one word.

    >>> asked = parse_arguments(["classic", "100", "20:30", "min", "6", "max", "12"])
    >>> asked.preset, asked.fee, asked.at, asked.minimum, asked.maximum, asked.time_limit
    ('classic', 100, (20, 30), 6, 12, None)
    >>> parse_arguments([]) == TournamentArguments()
    True

    Raises:
        ArgumentError: a word that is none of them, one given twice, an option without its
            number, a fee, a time, a field or a time limit out of its range.
    """
    preset: str | None = None
    fee: int | None = None
    at: tuple[int, int] | None = None
    numbers: dict[str, int] = {}
    words = list(args)
    while words:
        word = words.pop(0)
        low = word.lower()
        head, eq, tail = low.partition("=")
        if head in OPTION_WORDS:
            option = OPTION_WORDS[head]
            value = tail if eq else (words.pop(0).lower() if words else "")
            if option in numbers or not value:
                raise ArgumentError("tour.usage")
            numbers[option] = _option_number(option, value, table_size)
            continue
        if low in PRESETS and preset is None:
            preset = low
            continue
        clock = _TIME_RE.fullmatch(word)
        if clock is not None and at is None:
            hour, minute = int(clock.group(1)), int(clock.group(2))
            if hour > 23 or minute > 59:
                raise ArgumentError("tour.bad_time")
            at = (hour, minute)
            continue
        if word.strip().lstrip("-").isdigit() and fee is None:
            low_fee, high_fee = LIMITS["entry_fee"]
            fee = parse_whole(word, low=low_fee, high=high_fee)
            if fee is None:
                raise ArgumentError("tour.bad_fee")
            continue
        if ":" in word or "：" in word:
            raise ArgumentError("tour.bad_time")
        raise ArgumentError("tour.usage")
    minimum, maximum = numbers.get("min"), numbers.get("max")
    low_field = table_size if minimum is None else minimum
    high_field = MAX_SIGNUP if maximum is None else maximum
    if low_field > high_field:
        raise ArgumentError("tour.bad_field", min=low_field, max=high_field)
    return TournamentArguments(preset or "quick", fee or 0, at, minimum, maximum,
                               numbers.get("time"))


def _option_number(option: str, value: str, table_size: int) -> int:
    """The number of ``min``, ``max`` or ``time`` within its range (see
    :func:`parse_arguments`)."""
    if option == "time":
        if value in OFF_WORDS:
            return 0
        minutes = parse_whole(value, low=0, high=MAX_TIME_LIMIT)
        if minutes is None:
            raise ArgumentError("tour.bad_limit", high=MAX_TIME_LIMIT)
        return minutes
    players = parse_whole(value, low=table_size, high=MAX_SIGNUP)
    if players is None:
        raise ArgumentError(f"tour.bad_{option}", low=table_size, high=MAX_SIGNUP)
    return players


def start_time(at: tuple[int, int], now: datetime, tz: str) -> float:
    """The UTC seconds of the next ``HH:MM`` in the group's time zone ``tz`` after ``now``
    (today if still ahead, else tomorrow)."""
    zone = ZoneInfo(tz)
    local = now.astimezone(zone)
    when = local.replace(hour=at[0], minute=at[1], second=0, microsecond=0)
    if when <= local:
        when += timedelta(days=1)
    return when.timestamp()


async def cmd_tournament(update: Update, context: Context) -> None:
    """/tournament [preset] [fee] [HH:MM] [min N] [max N] [time M]: open a tournament in this
    group (RULES.md §10.1); ``/tournament cancel``: cancel it; in a private chat, say where
    tournaments are opened. A word out of range is answered with its range and nothing
    changes."""
    app = context.application
    message = senders.message_of(update)
    lang = await chat_language(app, update)
    if message.chat.type not in GROUP_TYPES:
        await message.reply_text(t("tour.private", lang))
        return
    args = context.args or []
    if args and args[0].lower() in CANCEL_WORDS:
        await _cancel(app, update, lang)
        return
    group = await store(app).get_group_settings(message.chat.id)
    if group.get("challenge_open") != "anyone" \
            and not await senders.sender_is_admin(app, message):
        await message.reply_text(t("tour.admins_only", lang))
        return
    user = await senders.player(app, update)
    if user is None:
        return
    tournaments = game(app).tournaments
    size = await tournaments.table_size(message.chat.id)
    try:
        asked = parse_arguments(args, table_size=size)
    except ArgumentError as exc:
        params: dict[str, object] = {"high": grouped(LIMITS["entry_fee"][1]),
                                     "fee": grouped(LIMITS["entry_fee"][1]), "max": MAX_SIGNUP,
                                     "min": size, "limit": MAX_TIME_LIMIT, **exc.params}
        await message.reply_text(t(exc.key, lang, **params))
        return
    start_at = None
    if asked.at is not None:
        start_at = start_time(asked.at, datetime.now(UTC), str(group.get("timezone") or "UTC"))
    chat = message.chat
    thread = message.message_thread_id if message.is_topic_message else None
    refusal = await tournaments.open(chat.id, thread, chat.title or "", person(user),
                                     asked.preset, asked.fee, start_at, minimum=asked.minimum,
                                     maximum=asked.maximum, time_limit=asked.time_limit)
    if refusal:
        await message.reply_text(refusal)


async def _cancel(app: App, update: Update, lang: str) -> None:
    """/tournament cancel: an admin (or the opener) cancels the group's tournament, every fee
    refunded once."""
    message = senders.message_of(update)
    tournaments = game(app).tournaments
    record = await tournaments.live_of(message.chat.id)
    if record is None:
        await message.reply_text(t("tour.nothing_to_cancel", lang))
        return
    user = senders.person(message)
    admin = await senders.sender_is_admin(app, message)
    if not admin and (user is None or user.id != record.opener_id):
        await message.reply_text(t("tour.pop_opener_only", lang))
        return
    name = display_name(user) if user is not None else (message.chat.title or "?")
    await tournaments.cancel(record.tournament_id, name)


async def stop(app: App, chat_id: int, name: str) -> bool:
    """An admin's /stop in a group: its live tournament is cancelled, every fee refunded once;
    ``False`` when the group has none."""
    tournaments = game(app).tournaments
    record = await tournaments.live_of(chat_id)
    if record is None:
        return False
    return await tournaments.cancel(record.tournament_id, name)


async def on_press(update: Update, context: Context) -> None:
    """A tournament button. Forged, stale (another tournament's, or a message that is not its
    sign-up message or board) and strangers' presses (Start and Cancel are the opener's and
    admins') are refused with a pop-up and change nothing. A Sign up or a Watch by someone the
    bot cannot write to privately signs nobody up (watches nothing) and is answered with the
    link that opens its chat."""
    app = context.application
    pressed = await open_press(app, senders.query_of(update), views.parse_tournament_callback,
                               views.TournamentDataError)
    if pressed is None:
        return
    query, player, lang, press = pressed.query, pressed.player, pressed.lang, pressed.press
    user = query.from_user
    tournaments = game(app).tournaments
    message = query.message
    try:
        record = await store(app).get_tournament(press.tournament_id)
    except StoreError:
        record = None
    if record is None or message is None or message.chat.id != record.chat_id \
            or message.message_id not in (record.message_id, record.board_id):
        await refuse(app, query, t("tour.pop_closed", lang), alert=True)
        return
    if player is None:
        group = await store(app).get_group_settings(record.chat_id)
        lang = user_language(app, user, group_language(app, group))
    if press.op == "watch":
        refusal = await tournaments.watch_refusal(record, press.table, lang)
        if refusal is not None:
            await refuse(app, query, refusal, alert=True)
            return
        await _watch(app, query, record.tournament_id, press.table, lang)
        return
    if press.op in ("start", "cancel"):
        if record.status != "open" and press.op == "start":
            await refuse(app, query, t("tour.pop_closed", lang), alert=True)
            return
        if user.id != record.opener_id and not await is_admin(app, record.chat_id, user.id):
            await refuse(app, query, t("tour.pop_opener_only", lang), alert=True)
            return
        if press.op == "start":
            count = len(await store(app).tournament_entries(record.tournament_id))
            refusal = tournaments.start_refusal(record, count, lang)
            if refusal is not None:
                await refuse(app, query, refusal, alert=True)
                return
            await answer(query, t("tour.pop_starting", lang))
            await tournaments.start(record.tournament_id)
            return
        await answer(query, t("tour.pop_cancelled", lang))
        await tournaments.cancel(record.tournament_id, display_name(user))
        return
    if press.op == "quit":
        await answer(query, await tournaments.withdraw(record.tournament_id, user.id, lang),
                     alert=True)
        return
    link = f"{TOURNAMENT_LINK}{record.tournament_id}"
    opened = t("tour.pop_open_private", lang)
    if await ask_private_first(app, query, link, opened):
        return
    text = await tournaments.sign_up(record.tournament_id, person(user), lang)
    if text == t("tour.pop_signed", lang, id=record.tournament_id):
        try:  # the bot must reach them privately: their table is played there
            sent = await game(app).ctx.outlet.send(user.id, text)
        except Unreachable:
            sent = None
        if sent is None:
            game(app).ctx.private_chats.unreachable(user.id)
            await tournaments.withdraw(record.tournament_id, user.id, lang)
            await answer_private_link(app, query, link, opened)
            return
        game(app).ctx.private_chats.reached(user.id)
    await answer(query, text, alert=True)


async def _watch(app: App, query: CallbackQuery, tournament_id: int, number: int,
                 lang: str) -> None:
    """观战 of table ``number`` (the caller checked it may be watched): the watch's picture
    goes to the presser's private chat, so whether the bot can write there is known before
    the pop-up: when not known yet, a short note there tries it first (as Sign up does). One
    the bot cannot write to is answered with the link that opens its chat (its ``/start``
    says to press Watch again) and watches nothing; else the press is answered, then the
    watch taken (it takes the table's lock)."""
    user = query.from_user
    link = f"{WATCH_LINK}{tournament_id}"
    opened = t("tour.pop_open_private_watch", lang)
    if await ask_private_first(app, query, link, opened):
        return
    chats = game(app).ctx.private_chats
    if chats.known(user.id) is None:
        try:
            sent = await game(app).ctx.outlet.send(
                user.id, t("tour.watch_private", lang, id=tournament_id, n=number))
        except Unreachable:
            sent = None
        if sent is None:
            chats.unreachable(user.id)
            await answer_private_link(app, query, link, opened)
            return
        chats.reached(user.id)
    await answer(query, t("tour.pop_watching", lang))  # first: the watch takes locks
    await game(app).tournaments.watch(tournament_id, number, user.id)


def register(app: App) -> None:
    """Route /tournament (and /jinbiao, its pinyin) and the tournament buttons."""
    app.add_handler(CommandHandler(["tournament", "jinbiao"], cmd_tournament))
    app.add_handler(CallbackQueryHandler(on_press, pattern=f"^{views.PREFIX}:"))
