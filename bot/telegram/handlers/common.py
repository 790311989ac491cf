"""Small helpers shared by the handlers: the typed services
(:class:`bot.telegram.services.BotData`), the language of a chat or a user (one rule for every
message: the group's language in a group, the player's own in private and in pop-ups), checking
button presses, and the admin check. Sending and editing live in :mod:`bot.telegram.outlet.send`
(re-exported here for the handlers)."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from telegram import CallbackQuery, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError

from bot.core import callbacks as cb
from bot.core.i18n import match_language, normalize_language, t
from bot.core.names import clean_name
from bot.core.settings import Settings
from bot.core.table import DEAL, LOBBY, RESULT, Table, Tables, table_key
from bot.features.service import Game
from bot.game.lobby import Person
from bot.game.presses import decision_current
from bot.presentation.views import start_link
from bot.store import Player, Store
from bot.telegram.outlet import send
from bot.telegram.outlet.edits import edited, not_modified
from bot.telegram.outlet.hands import hold_press
from bot.telegram.outlet.send import edit_text, send_text
from bot.telegram.photos import PhotoCache
from bot.telegram.refusals import Verdict
from bot.telegram.services import App, bot_data
from engine import ActionKind

__all__ = [
    "GROUP_TYPES", "First", "Press", "answer", "answer_first", "answer_private_link",
    "ask_private_first", "chat_language",
    "display_name", "edit_text", "edited", "game", "group_language", "is_admin",
    "locked_press", "may_manage", "not_modified",
    "parse_press", "person", "photo_cache", "press_refusal", "pressed_table", "refuse",
    "refuse_press", "say", "send_text", "settings", "store", "tables", "user_language",
]

log = logging.getLogger(__name__)

GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)
ADMIN_STATUSES = frozenset({ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR})
#: How long an admin check is remembered, in seconds.
ADMIN_CACHE_SECONDS = 60.0


def game(app: App) -> Game:
    """The game layer (``BotData.game``, from ``post_init``)."""
    return bot_data(app).game


def tables(app: App) -> Tables:
    """The registry of tables (``BotData.game.tables``)."""
    return bot_data(app).game.tables


def store(app: App) -> Store:
    """The open store (``BotData.store``, from ``post_init``)."""
    return bot_data(app).store


def settings(app: App) -> Settings:
    """The bot's settings (``BotData.settings``)."""
    return bot_data(app).settings


def photo_cache(app: App) -> PhotoCache:
    """The ``file_id`` cache of uploaded pictures (``BotData.photo_cache``)."""
    return bot_data(app).photo_cache


def person(user: User) -> Person:
    """The game layer's view of a Telegram user who wants a seat."""
    return Person(user.id, display_name(user), match_language(user.language_code))


def group_language(app: App, group_settings: dict[str, Any]) -> str:
    """A group's language: its setting, else the bot's ``default_language``.

    Everything posted in a group (lobby, table, results, replies to commands there) is in it.
    """
    return normalize_language(group_settings.get("language"), settings(app).default_language)


def user_language(app: App, user: User | None, fallback: str | None = None) -> str:
    """The language of what one user alone reads: private messages and the pop-ups of their
    presses. Their Telegram ``language_code`` (:func:`bot.core.i18n.match_language`), else
    ``fallback`` (their stored ``Player.language``, or the language of the group the press or
    message belongs to), else the bot's ``default_language``. At a table, a seat's private
    messages follow the same rule with the language stored at sitting down
    (``Table.seat_lang``)."""
    code = user.language_code if user is not None else None
    return match_language(code) or fallback or settings(app).default_language


async def chat_language(app: App, update: Update) -> str:
    """The language to answer an update in its own chat: a group's language in a group
    (:func:`group_language`), the user's in a private chat (:func:`user_language`)."""
    chat = update.effective_chat
    if chat is not None and chat.type in GROUP_TYPES:
        return group_language(app, await store(app).get_group_settings(chat.id))
    return user_language(app, update.effective_user)


def display_name(user: User) -> str:
    """The name a player is shown by: first and last name without bidirectional controls
    (:func:`bot.core.names.clean_name`), else the username, else the id."""
    return clean_name(user.full_name) or user.username or str(user.id)


#: The press answered before its table's lock (:func:`locked_press`'s ``first``): the query id.
#: A context variable: each update is handled in a task of its own.
_ANSWERED_FIRST: ContextVar[str | None] = ContextVar("answered_first", default=None)


async def answer(query: CallbackQuery, text: str | None = None, alert: bool = False,
                 url: str | None = None) -> None:
    """Answer a button press (:func:`bot.telegram.outlet.send.answer`, ``url`` a link its app
    opens), unless it was answered before its table's lock already (then whatever its block would
    answer now is dropped: a press gets exactly one answer)."""
    if _ANSWERED_FIRST.get() == query.id:
        return
    await send.answer(query, text, alert, url)


async def answer_first(query: CallbackQuery, text: str | None = None,
                       alert: bool = False) -> None:
    """Answer a press now, before its slow work: what its block would answer later is
    dropped (:func:`answer`)."""
    if _ANSWERED_FIRST.get() != query.id:
        await send.answer(query, text, alert)
        _ANSWERED_FIRST.set(query.id)


async def ask_private_first(app: App, query: CallbackQuery, payload: str, text: str) -> bool:
    """For a press that needs the presser's private chat (a lobby's Join, a challenge's Enter,
    a tournament's Sign up): when this process knows the bot cannot write to them there
    (:class:`bot.game.reach.PrivateChats`), the press is answered at once with ``text`` and a
    link that opens the bot's chat and sends ``/start payload`` at its Start
    (:func:`answer_private_link`); ``True``, and the caller claims nothing (no seat, no entry).
    ``False``, nothing answered: the bot can write to them, or it does not know yet (the
    caller answers without promising, and the outcome is told once the first private message
    was tried)."""
    if game(app).ctx.private_chats.known(query.from_user.id) is not False:
        return False
    await answer_private_link(app, query, payload, text)
    return True


async def answer_private_link(app: App, query: CallbackQuery, payload: str, text: str) -> None:
    """Answer the press with ``text`` and the link to the bot's private chat with ``/start
    payload`` (:func:`bot.presentation.views.start_link`; no link while the bot's username is
    unknown). The answer is the press's one answer: whatever its locked block answers later is
    dropped (:func:`answer`)."""
    username = game(app).ctx.bot_username
    if _ANSWERED_FIRST.get() != query.id:
        await send.answer(query, text, False, start_link(username, payload) if username else None)
        _ANSWERED_FIRST.set(query.id)


#: A press's answer decided before its table's lock (:func:`locked_press`): ``(pop-up or
#: None, alert)``, or ``None`` when only the locked block can tell.
First = Callable[[cb.Callback, Table, str], Awaitable[tuple[str | None, bool] | None]]


#: The table phase each kind of button acts in.
KIND_PHASES = {
    cb.LOBBY: LOBBY,
    cb.ACTION: DEAL,
    cb.SELECT: DEAL,
    cb.MY_CARDS: DEAL,
    cb.CONFIRM_LEAVE: DEAL,
    cb.PLAY_AGAIN: RESULT,
    cb.MATCH_OPTION: LOBBY,
}


def press_refusal(app: App, query: CallbackQuery, data: cb.Callback,
                  table: Table | None) -> str | None:
    """Why a press cannot act on ``table`` (the table found by the press's token, or ``None``), as
    the pop-up says it in the presser's language; ``None`` when the table is in the phase the
    kind of button acts in (:data:`KIND_PHASES`).

    A token that finds no table (an older lobby or deal, or forged): for Play again "The next
    deal has already started" to a player seated at this chat's running deal (a double press),
    "A new game is already open" to others or when the table went back to a lobby; "The game
    has already started" for a lobby button when this group's table deals (a double-clicked
    Start); "This game is over" for a button in a group whose table shows a result; else "This
    button is from an old game". The current token in the wrong phase: "The game has already
    started" (lobby buttons), "This game is not over yet" (Play again), "A new game is already
    open" (Play again in the new lobby), "This game is over", "The game has not started yet"."""
    if table is not None and table.token == data.token:
        phase = table.phase
        if phase == KIND_PHASES[data.kind]:
            return None
        if phase == DEAL:
            key = "pop.game_started" if data.kind in (cb.LOBBY, cb.MATCH_OPTION) \
                else "pop.not_over"
        elif phase == RESULT:
            key = "pop.gone"
        else:
            key = "pop.new_game_open" if data.kind == cb.PLAY_AGAIN else "pop.not_started"
        return t(key, user_language(app, query.from_user, table.lang))
    here = pressed_table(app, query) or _practice_table(app, query)
    lang = user_language(app, query.from_user, here.lang if here is not None else None)
    if here is not None and data.kind == cb.PLAY_AGAIN and here.phase == DEAL \
            and here.seat_of(query.from_user.id) is not None:
        return t("pop.again_started", lang)
    if here is not None and data.kind == cb.PLAY_AGAIN and here.phase in (LOBBY, DEAL):
        return t("pop.new_game_open", lang)
    if here is not None and data.kind in (cb.LOBBY, cb.MATCH_OPTION) and here.phase == DEAL:
        return t("pop.game_started", lang)  # a second press of Start, or a late Join
    if here is not None and data.kind != cb.PLAY_AGAIN and here.phase == RESULT:
        return t("pop.gone", lang)
    return t("pop.old_button", lang)


async def refuse_press(app: App, query: CallbackQuery, data: cb.Callback,
                       table: Table | None) -> bool:
    """Answer the :func:`press_refusal` pop-up and return ``True`` when the press cannot act on
    ``table``; ``False`` (nothing answered) when it may."""
    refusal = press_refusal(app, query, data, table)
    if refusal is None:
        return False
    await refuse(app, query, refusal)
    return True


async def refuse(app: App, query: CallbackQuery, text: str, *, alert: bool = False) -> None:
    """Answer a refused press with ``text``, within the presser's rate limit on refusals
    (:class:`bot.telegram.refusals.RefusalLimiter`): over it, one "slow down" pop-up, then silent
    answers at human speed, nothing beyond."""
    verdict = bot_data(app).refusals.take(query.from_user.id)
    if verdict is Verdict.ANSWER:
        await answer(query, text, alert=alert)
    elif verdict is Verdict.WARN:
        await answer(query, t("pop.slow_down", user_language(app, query.from_user)),
                     alert=True)
    elif verdict is Verdict.QUIET:
        await answer(query)


P = TypeVar("P")


@dataclass(frozen=True)
class OpenedPress(Generic[P]):
    """A competition button's press, opened: the query, the presser's player row (``None``
    for a member the bot has not met), the presser's language and the parsed data."""

    query: CallbackQuery
    player: Player | None
    lang: str
    press: P


async def open_press(app: App, query: CallbackQuery, parse: Callable[[object], P],
                     forged: type[Exception]) -> OpenedPress[P] | None:
    """Open a competition button's press (a challenge's, a tournament's): the presser's
    language, and ``parse(query.data)``; ``None`` after a "not a button of mine" pop-up when
    ``parse`` raises ``forged`` (data this bot did not draw: never trusted)."""
    user = query.from_user
    player = await store(app).get_player(user.id)
    lang = user_language(app, user, player.language if player else None)
    try:
        press = parse(query.data)
    except forged:
        await refuse(app, query, t("pop.invalid", lang), alert=True)
        return None
    return OpenedPress(query, player, lang, press)


async def parse_press(query: CallbackQuery, app: App) -> cb.Callback | None:
    """The parsed button data, or ``None`` after a pop-up for data this bot did not draw. The
    press is held for the task (:func:`bot.telegram.outlet.hands.hold_press`): a hand in the
    group its presser lacks may be sent within its 15 s."""
    hold_press(query)
    try:
        return cb.parse_callback(query.data)
    except cb.CallbackError:
        log.info("refused callback data from user %s", query.from_user.id)
        await refuse(app, query, t("pop.invalid", user_language(app, query.from_user)),
                     alert=True)
        return None


@dataclass(frozen=True, slots=True)
class Press:
    """A button press that may act: its parsed data, its table (lock held) and the presser's
    language (:func:`user_language` with the table's language as fallback)."""

    data: cb.Callback
    table: Table
    lang: str


@asynccontextmanager
async def locked_press(app: App, query: CallbackQuery,
                       first: First | None = None) -> AsyncIterator[Press | None]:
    """Check a press and hold its table's lock: yields the :class:`Press` while the table
    found by the press's token is in the phase its kind of button acts in
    (:data:`KIND_PHASES`), the lock held for the whole block; else answers the pop-up
    (:func:`parse_press`, :func:`press_refusal`) and yields ``None``. The phase is checked
    under the lock, on the table looked up again: whatever held the lock may have moved it on
    (a new token, the next phase).

    Refusals that need no lock are answered before taking it: an unknown
    token, the wrong phase, a presser who does not sit at a running deal, a decision on an older
    state; so a flood of forged or stale presses never queues behind a table's lock.

    ``first`` (a press is answered first): what the press will be answered, decided
    on this process's copy of the table (brought up to date before the handlers), is answered
    before the lock is taken, so the answer never waits for another block of the table (its
    hands still being sent within the token's budget, another worker's step, the database);
    answers the block gives later are dropped (:func:`answer`). A block that finds the table
    moved on meanwhile (the press a double click, or too late) changes nothing, as before,
    only without a second pop-up."""
    data = await parse_press(query, app)
    if data is None:
        yield None
        return
    table = tables(app).by_token(data.token)
    if await refuse_press(app, query, data, table) or table is None:
        yield None
        return
    early = _early_refusal(app, query, data, table)
    if early is not None:
        await refuse(app, query, early[0], alert=early[1])
        yield None
        return
    if first is not None:
        lang = user_language(app, query.from_user, table.lang)
        decided = await first(data, table, lang)
        if decided is not None:
            await send.answer(query, decided[0], decided[1])
            _ANSWERED_FIRST.set(query.id)
    if _ANSWERED_FIRST.get() != query.id:
        send.ANSWER_PENDING.set(True)  # what the block sends before its answer goes first
    async with tables(app).lock(table.key):
        current = tables(app).by_token(data.token)
        if await refuse_press(app, query, data, current) or current is None:
            yield None  # refuse_press answered (a table that is gone is always refused)
            return
        yield Press(data, current, user_language(app, query.from_user, current.lang))


def _early_refusal(app: App, query: CallbackQuery, data: cb.Callback,
                   table: Table) -> tuple[str, bool] | None:
    """The pop-up (and whether it is an alert) for a deal press that cannot act whatever the
    lock's holder does: the presser is not seated, or a decision carries an older state's
    version (versions only grow) and is not a simultaneous decision still due
    (:func:`bot.game.presses.decision_current`). ``None``: check under the lock."""
    if data.kind not in (cb.ACTION, cb.SELECT) or table.state is None:
        return None
    lang = user_language(app, query.from_user, table.lang)
    seat = table.seat_of(query.from_user.id)
    if seat is None:
        return t("pop.not_seated", lang), True
    versioned = data.kind == cb.SELECT \
        or cb.ACTION_PAYLOADS[data.payload][0] != ActionKind.AUTOPLAY
    if versioned and data.version < table.state.version \
            and not decision_current(table.state, seat, data):
        return t("pop.stale", lang), False
    return None


def pressed_table(app: App, query: CallbackQuery) -> Table | None:
    """The table of the group (or forum topic) whose message was pressed; ``None`` for a
    private chat or a message Telegram no longer gives."""
    message = query.message
    if not isinstance(message, Message) or message.chat.type not in GROUP_TYPES:
        return None
    thread = message.message_thread_id if message.is_topic_message else None
    return tables(app).get(table_key(message.chat.id, thread))


def _practice_table(app: App, query: CallbackQuery) -> Table | None:
    """The practice table of the private chat whose message was pressed, if any."""
    message = query.message
    if not isinstance(message, Message) or message.chat.type != ChatType.PRIVATE:
        return None
    table = tables(app).get(table_key(message.chat.id))
    return table if table is not None and table.private else None


async def say(app: App, table: Table, text: str) -> None:
    """Tell the table's audience something in a short message of its own, in the background
    (failures are only logged)."""
    game(app).deals.say(table, text)


async def is_admin(app: App, chat_id: int, user_id: int) -> bool:
    """True if the user is the group's owner or an administrator (``getChatMember``; a yes is
    remembered for :data:`ADMIN_CACHE_SECONDS`, a no is asked again, so a new admin counts at
    once)."""
    cache = bot_data(app).admin_cache
    now = time.monotonic()
    if now - cache.get((chat_id, user_id), -ADMIN_CACHE_SECONDS) < ADMIN_CACHE_SECONDS:
        return True
    try:
        member = await app.bot.get_chat_member(chat_id, user_id)
    except TelegramError as exc:
        log.info("getChatMember %s failed: %s", chat_id, exc)
        return False
    if member.status not in ADMIN_STATUSES:
        return False
    cache[(chat_id, user_id)] = now
    return True


async def may_manage(app: App, table: Table, user_id: int) -> bool:
    """The lobby's opener or a group admin may start and close it."""
    return user_id == table.opener_id or await is_admin(app, table.chat_id, user_id)

