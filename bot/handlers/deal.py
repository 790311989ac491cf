"""A running deal: dealing, the buttons of bidding/doubling/play, timers, settlement, restarts.

The path of every change (issue 3): a press or a timer → ``engine.apply`` → ``store`` (state JSON
and table dict in one call) → views (the private hand messages now, a "Your turn" notice for the
seats to act, the group's table message through the coalescing :class:`bot.timers.EditThrottle`;
pictures with the texts as captions, or text only, per the group's ``pictures`` setting, issue 4:
:mod:`bot.handlers.display`) → timers for the next turn. Everything on
one table runs under that table's lock (``Tables.lock``); the functions here whose docstring says
"lock held" must be called with it.

Buttons are checked before anything changes: the token must be the table's current one, the
version the state's current one (except for the auto-play switch), the presser the seat's owner.
A refused press gets a pop-up and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from functools import partial

from telegram import CallbackQuery, Update
from telegram.error import Forbidden, RetryAfter, TelegramError
from telegram.ext import Application, CallbackQueryHandler, ContextTypes

from bot import callbacks as cb
from bot import scenes, timers, views
from bot.handlers.common import (
    answer,
    group_language,
    locked_press,
    parse_press,
    refuse_press,
    say,
    send_text,
    settings,
    store,
    tables,
    throttle,
    user_language,
)
from bot.handlers.display import (
    Drawing,
    clear_turn_notices,
    photo_cache,
    prerendered,
    present,
    set_caption,
    update_turn_notices,
)
from bot.i18n import t
from bot.photos import Picture, send_photo
from bot.rooms import room_stake, rules_for
from bot.store import SeatFacts, SeatRecord
from bot.table import DEAL, LOBBY, RESULT, Table
from engine import (
    Action,
    ComboType,
    DealState,
    IllegalAction,
    SeatView,
    apply,
    auto_action,
    beat_reason,
    classify,
    new_deal,
    next_first_bidder,
)
from engine.ai import choose_action, hints
from images import render_hand, render_result, render_table

log = logging.getLogger(__name__)

ACTIVE = ("bidding", "doubling", "playing")
#: The AI level of auto-play seats when the group chose "ai" (issue 6); bot seats use the
#: group's ``bot_level``.
AUTOPLAY_LEVEL = "hard"
#: The key of the group's table message in ``Table.rendered`` / ``Table.pictured``.
TABLE = "table"
#: Redeals in a row (everybody passed) after which a table closes rather than deal forever.
MAX_REDEALS = 10


# --- Starting a deal ---------------------------------------------------------------------------


async def start_deal(app: Application, table: Table, *, redeal: bool = False) -> None:
    """Deal a new deal at a full table (lock held): the group's current rules, stake, timeouts
    and language, a ``store.create_deal`` record, each human's hand in private, the table
    message in the group.

    The first bidder is random for a table's first deal and rotates afterwards (RULES.md §1.4).
    After a redeal (everybody passed, RULES.md §2) the same seat bids first, the hand messages
    are reused, and seats that were on auto-play stay on it (RULES.md §9: until the owner takes
    back control). Test hook: ``bot_data["deal_seed"]`` (int) fixes the shuffle (plus the
    number of redeals in a row, so a redeal deals other cards) and ``bot_data["first_bidder"]``
    the first bidder of a table's first deal.
    """
    group = await store(app).get_group_settings(table.chat_id)
    table.lang = group_language(app, group)
    rules = rules_for(group)
    table.preset = rules.bidding
    table.stake = room_stake(group).stake
    table.play_timeout = float(group.get("play_timeout") or settings(app).play_timeout)
    table.bid_timeout = float(group.get("bid_timeout") or settings(app).bid_timeout)
    table.autoplay_mode = group.get("autoplay", "simple")
    table.bot_level = group.get("bot_level", "normal")
    table.pictures = bool(group["pictures"])
    old = table.state if redeal else None
    if old is not None:
        first = next_first_bidder(old)
    elif table.first_bidder is None:
        first = app.bot_data.get("first_bidder", random.randrange(rules.seats))
    else:
        first = (table.first_bidder + 1) % rules.seats
    seed = app.bot_data.get("deal_seed")
    if seed is not None and old is not None:
        seed += table.redeals
    state = new_deal(rules, seed=seed, first_bidder=first)
    for seat, _ in table.humans():
        if old is not None and old.autoplay[seat]:
            state = apply(state, Action("autoplay", seat, value=1))
    tables(app).retoken(table)
    table.leave_prompts = [None] * len(table.seats)  # drawn for the old token: void
    table.phase = DEAL
    table.first_bidder = first
    table.state = state
    table.lobby_deadline = None
    table.reset_turn_memory()
    table.rendered.clear()
    if old is None:
        table.redeals = 0
        table.notice = None
        table.reset_messages()
        for seat in table.seats:
            seat.left = False
    records = [
        SeatRecord(None, views.seat_name(s, i, table.lang), True) if s.is_bot
        else SeatRecord(s.user_id, s.name, False)
        for i, s in enumerate(table.seats)
    ]
    table.deal_id = await store(app).create_deal(
        table.key, table.chat_id, records, rules.to_dict(), table.stake, state.to_json(),
        state.version,
    )
    table.deadline = time.time() + _timeout(table, state)
    await store(app).save_table(table.key, table.to_dict())
    timers.cancel(app.job_queue, timers.LOBBY, table.key)
    await show(app, table)


async def redeal(app: Application, table: Table) -> None:
    """Everybody passed (RULES.md §2): cancel this deal (nobody pays) and deal again; after
    :data:`MAX_REDEALS` redeals in a row the table closes instead (lock held)."""
    state = table.state
    assert state is not None
    await store(app).cancel_deal(table.deal_id, state.to_json())
    table.redeals += 1
    if table.redeals >= MAX_REDEALS:
        await close_hands(app, table)
        await close_table(app, table, t(f"table.no_bids_{table.preset}", table.lang,
                                        n=table.redeals))
        return
    await start_deal(app, table, redeal=True)
    table.notice = t(f"table.redeal_{table.preset}", table.lang)
    request_table_edit(app, table)


async def close_table(app: Application, table: Table, text: str) -> None:
    """Forget the table and replace its group message by ``text`` (lock held)."""
    timers.cancel_all(app.job_queue, table.key)
    tables(app).remove(table)
    await store(app).delete_table(table.key)
    if table.message_id is not None:
        await set_caption(app.bot, table.chat_id, table.message_id, table.message_photo, text)


def _timeout(table: Table, state: DealState) -> float:
    return table.play_timeout if state.phase == "playing" else table.bid_timeout


# --- Applying actions --------------------------------------------------------------------------


async def accept(app: Application, table: Table, action: Action) -> None:
    """Apply ``action`` to the table's deal and make it visible (lock held).

    Raises:
        IllegalAction: the engine refused it; nothing changed.
    """
    prev = table.state
    assert prev is not None
    state = apply(prev, action)
    table.state = state
    table.notice = None
    if action.kind not in ("autoplay", "show"):
        table.reset_turn_memory()
    if _turn(prev) != _turn(state) or (action.kind == "autoplay" and action.value == 0):
        table.deadline = time.time() + _timeout(table, state) if state.to_act else None
    if state.phase == "redeal":
        await redeal(app, table)
        return
    if prev.landlord is None and state.landlord is not None:
        table.redeals = 0
    await store(app).save_deal_state(table.deal_id, state.version, state.to_json(),
                                     table.to_dict())
    await show(app, table)


def _turn(state: DealState) -> tuple:
    """What makes a new turn (a fresh deadline): the phase and who is to act, except that in
    the doubling round the seats deciding one after another share one deadline."""
    return (state.phase, () if state.phase == "doubling" else state.to_act)


def is_auto(table: Table, state: DealState, seat: int) -> bool:
    """A seat the bot plays for: a bot seat, or a human seat on auto-play (RULES.md §9)."""
    return table.seats[seat].is_bot or state.autoplay[seat]


async def show(app: Application, table: Table) -> None:
    """Draw the hands and the table, then settle a finished deal or arm the next timers, and
    put seats whose player cannot be written to on auto-play (lock held)."""
    state = table.state
    assert state is not None
    pictures = bool((await store(app).get_group_settings(table.chat_id))["pictures"])
    if pictures != table.pictures:  # the group switched mid-deal: from now on
        table.pictures = pictures
        table.rendered.clear()
    blocked = await refresh_hands(app, table)
    blocked += await notify_turn(app, table)
    request_table_edit(app, table)
    if state.phase == "finished":
        await finish(app, table)
        return
    arm_timers(app, table)
    for seat in dict.fromkeys(blocked):
        if table.state.phase in ACTIVE and not table.state.autoplay[seat]:
            name = views.seat_name(table.seats[seat], seat, table.lang)
            await say(app, table, t("table.blocked", table.lang, name=name))
            await accept(app, table, Action("autoplay", seat, value=1))


async def refresh_hands(app: Application, table: Table) -> list[int]:
    """Send or edit each human's private hand message where it changed; returns the seats whose
    private chat answered 403 (marked ``blocked``)."""
    state = table.state
    assert state is not None
    blocked = []
    seconds = timers.seconds_left(table.deadline)
    for i, seat in table.humans():
        if seat.blocked:
            continue
        drawing = hand_drawing(table, state.view(i), seconds)
        drawn = drawing.signature
        if table.rendered.get(i) == drawn:
            continue
        try:
            table.hand_message_ids[i], table.hand_photos[i] = await present(
                app, seat.user_id, table.hand_message_ids[i], table.hand_photos[i],
                table.pictured.get(i), drawing)
            table.pictured[i] = drawing.key
            table.rendered[i] = drawn
        except Forbidden:
            seat.blocked = True
            blocked.append(i)
        except TelegramError as exc:
            log.warning("hand message for seat %s at %s failed: %s", i, table.key, exc)
    return blocked


def hand_drawing(table: Table, view: SeatView, seconds: float) -> Drawing:
    """A seat's private hand message: in pictures mode the hand's picture with the selection
    raised (:func:`images.render_hand`), under it the selection keyboard, and as caption the same
    text as in text mode (the hand as text, whose turn it is, what to beat)."""
    text, markup = views.hand_view(table, view, seconds)
    if not table.pictures:
        return Drawing(text, markup)
    if not view.hand:  # played out: nothing to draw, the last picture stays
        return Drawing.keeping_picture(text, markup)
    selected = table.selections[view.seat] if view.seat < len(table.selections) else []
    cards, chosen = scenes.hand_picture(view, selected)
    return Drawing(text, markup, (cards, chosen), partial(render_hand, cards, chosen), "hand.png")


def table_drawing(table: Table, seconds: float) -> Drawing:
    """The group's table message: in pictures mode the table's picture from public facts only
    (:func:`bot.scenes.table_scene`) with the table text as caption."""
    view = table.state.view(0)
    text, markup = views.table_view(table, view, seconds, table.notice)
    if not table.pictures:
        return Drawing(text, markup)
    scene = scenes.table_scene(table, view, seconds)
    return Drawing(text, markup, scene, partial(render_table, scene), "table.jpg")


async def notify_turn(app: Application, table: Table) -> list[int]:
    """Notify the human seats now to act, in their private chats, and withdraw the notices of
    the others (:func:`bot.handlers.display.update_turn_notices`); the table is stored when the
    notices changed. Returns the seats whose chat answered 403."""
    state = table.state
    before = list(table.turn_notices)
    due = [s for s in state.to_act if not is_auto(table, state, s)] \
        if state.phase in ACTIVE else []
    blocked = await update_turn_notices(app, table, due)
    if table.turn_notices != before:
        await store(app).save_table(table.key, table.to_dict())
    return blocked


def arm_timers(app: Application, table: Table) -> None:
    """Arm the bot-move job (a bot or auto-play seat is to act) and the turn timeout (a human
    is to act) for the current state; cancel what is not needed."""
    state = table.state
    assert state is not None
    queue = app.job_queue
    stamp = timers.Stamp(table.key, table.token, state.version)
    auto = [s for s in state.to_act if is_auto(table, state, s)]
    human = [s for s in state.to_act if s not in auto]
    if auto:
        timers.arm(queue, timers.BOT_MOVE, stamp, settings(app).bot_move_delay, on_bot_move)
    else:
        timers.cancel(queue, timers.BOT_MOVE, table.key)
    if human and table.deadline is not None:
        timers.arm_at(queue, timers.TURN, stamp, table.deadline, on_turn_timeout)
    else:
        timers.cancel(queue, timers.TURN, table.key)


def request_table_edit(app: Application, table: Table) -> None:
    """Ask for the group's table message to show the current state (coalesced)."""
    throttle(app).request(app.job_queue, table.key, on_table_edit)


# --- Timer jobs ----------------------------------------------------------------------------------


def _current(app: Application, stamp: timers.Stamp) -> Table | None:
    """The table a job was armed for, if its deal and state are still the same."""
    table = tables(app).get(stamp.key)
    if table is None or table.token != stamp.token or table.phase != DEAL:
        return None
    if table.state is None or table.state.version != stamp.version:
        return None
    return table


async def on_bot_move(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Job: the first bot or auto-play seat to act plays (bot seats: ``engine.ai``; auto-play:
    the group's choice of the seeds' rule or the AI, RULES.md §9)."""
    app = context.application
    stamp: timers.Stamp = context.job.data
    async with tables(app).lock(stamp.key):
        table = _current(app, stamp)
        if table is None:
            return
        state = table.state
        seat = next((s for s in state.to_act if is_auto(table, state, s)), None)
        if seat is None:
            return
        if table.seats[seat].is_bot:
            action = choose_action(state.view(seat), table.bot_level)
        elif table.autoplay_mode == "ai":
            action = choose_action(state.view(seat), AUTOPLAY_LEVEL)
        else:
            action = auto_action(state, seat)
        try:
            await accept(app, table, action)
        except IllegalAction as exc:
            log.warning("AI move refused at %s (%s); playing the seeds' default", stamp.key,
                        exc.code)
            await accept(app, table, auto_action(state, seat))


async def on_turn_timeout(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Job: every human seat still to act when the deadline passed gets the engine's timeout
    action and goes on auto-play (RULES.md §9)."""
    app = context.application
    stamp: timers.Stamp = context.job.data
    async with tables(app).lock(stamp.key):
        table = _current(app, stamp)
        if table is None:
            return
        late = [s for s in table.state.to_act if not is_auto(table, table.state, s)]
        for seat in late:
            state = table.state
            if table.token != stamp.token:
                break  # the timeout ended the deal or dealt again
            if state.phase in ACTIVE and seat in state.to_act and not state.autoplay[seat]:
                await accept(app, table, Action("timeout", seat))


async def on_table_edit(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Job: edit the group's table message to show the latest state (at most once per
    ``settings.table_edit_interval``; a 429 schedules another try after ``retry_after``; a
    message that can no longer be edited is replaced by a new one).

    The throttle counts from when the request leaves, after the picture is rendered, so that
    Telegram sees the edits spaced; changes made while the job waited for the table's lock are
    in the state it draws."""
    app = context.application
    key: str = context.job.data
    async with tables(app).lock(key):
        try:
            table, drawing = await _table_edit(app, key)
        finally:
            throttle(app).done(key)  # from here on, a change needs another edit
        if table is None or drawing is None:
            return
        try:
            # A table message that is gone (deleted by an admin) or changes between text and
            # picture is posted again.
            shown = await present(app, table.chat_id, table.message_id, table.message_photo,
                                  table.pictured.get(TABLE), drawing, table.thread_id)
            table.pictured[TABLE] = drawing.key
            table.rendered[TABLE] = drawing.signature
            if shown != (table.message_id, table.message_photo):
                table.message_id, table.message_photo = shown
                await store(app).save_table(table.key, table.to_dict())
        except RetryAfter as exc:
            delay = exc.retry_after
            seconds = delay.total_seconds() if hasattr(delay, "total_seconds") else float(delay)
            app.job_queue.run_once(_retry_table_edit, seconds, data=key,
                                   job_kwargs=timers.RUN_LATE)
        except TelegramError as exc:
            log.warning("table message edit at %s failed: %s", key, exc)


async def _table_edit(app: Application, key: str) -> tuple[Table | None, Drawing | None]:
    """The table of ``key`` and its message's drawing (picture rendered already), or ``None``
    when there is nothing to draw or nothing changed (an edit would be "not modified")."""
    table = tables(app).get(key)
    if table is None or table.state is None or table.message_id is None:
        return None, None
    if table.phase not in (DEAL, RESULT):
        return None, None
    drawing = table_drawing(table, timers.seconds_left(table.deadline))
    if table.rendered.get(TABLE) == drawing.signature:
        return None, None
    return table, await prerendered(drawing, table.pictured.get(TABLE))


async def _retry_table_edit(context: ContextTypes.DEFAULT_TYPE) -> None:
    table = tables(context.application).get(context.job.data)
    if table is not None:
        request_table_edit(context.application, table)


# --- The end of a deal --------------------------------------------------------------------------


async def finish(app: Application, table: Table) -> None:
    """Settle a finished deal exactly once (``store.settle_deal`` is idempotent), post the
    result with "Play again", and keep the table in the result phase (lock held)."""
    state = table.state
    assert state is not None and state.result is not None
    timers.cancel_all(app.job_queue, table.key)
    settlement = await store(app).settle_deal(
        table.deal_id, list(state.result.points), state.to_json(), seat_facts(state),
        version=state.version,
    )
    table.phase = RESULT
    table.deadline = None
    tables(app).retoken(table)
    view = state.view(0)
    text, markup = views.result_view(table, view, settlement.points, settlement.beans)
    scene = scenes.result_scene(table, view, state.hands, settlement.points, settlement.beans) \
        if table.pictures else None
    try:
        if scene is None:
            await send_text(app.bot, table.chat_id, text, markup, table.thread_id)
        else:
            picture = Picture(await asyncio.to_thread(render_result, scene), "result.png")
            await send_photo(app.bot, photo_cache(app), table.chat_id, picture, text, markup,
                             table.thread_id)
    except TelegramError as exc:
        log.warning("result message at %s failed: %s", table.key, exc)
    await store(app).save_table(table.key, table.to_dict())


def seat_facts(state: DealState) -> list[SeatFacts]:
    """Per seat, what it did in a finished deal, for the store's statistics."""
    result = state.result
    assert result is not None
    if result.landlord is None:
        return []
    bombs = [0] * state.rules.seats
    for action in state.history:
        if action.kind == "play":
            readings = classify(action.cards or (), state.rules)
            if readings and readings[0].type in (ComboType.BOMB, ComboType.ROCKET):
                bombs[action.seat] += 1
    facts = []
    for seat in range(state.rules.seats):
        landlord = seat == result.landlord
        won = (result.winner == "landlord") == landlord if result.winner else False
        facts.append(SeatFacts(
            role="landlord" if landlord else "farmer", won=won, bombs=bombs[seat],
            spring=won and (result.spring or result.anti_spring),
            escaped=seat in result.escaped,
        ))
    return facts


async def close_hands(app: Application, table: Table) -> None:
    """Take the buttons off every hand message of a deal that was stopped, and withdraw the
    turn notices (lock held)."""
    state = table.state
    await clear_turn_notices(app, table)
    for i, seat in table.humans():
        message_id = table.hand_message_ids[i] if i < len(table.hand_message_ids) else None
        if message_id is None or seat.blocked or state is None:
            continue
        text = views.hand_stopped_text(table, state.view(i))
        photo = i < len(table.hand_photos) and table.hand_photos[i]
        await set_caption(app.bot, seat.user_id, message_id, photo, text)


# --- Buttons -------------------------------------------------------------------------------------


async def _seat_for_press(
    query: CallbackQuery, table: Table, data: cb.Callback, lang: str, *,
    check_version: bool = True,
) -> int | None:
    """The presser's seat if the press (already past :func:`~bot.handlers.common.press_refusal`)
    may act on ``table`` now; else answers with a pop-up in ``lang`` and returns ``None``."""
    seat = table.seat_of(query.from_user.id)
    if seat is None:
        await answer(query, t("pop.not_seated", lang), alert=True)
        return None
    if check_version and data.version != table.state.version:
        await answer(query, t("pop.stale", lang))
        return None
    return seat


async def on_action_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Bidding, doubling, show cards, pass, auto-play on / take back (``A:`` buttons)."""
    app = context.application
    query = update.callback_query
    async with locked_press(app, query) as press:
        if press is None:
            return
        data, table, lang = press.data, press.table, press.lang
        kind, value = cb.ACTION_PAYLOADS[data.payload]
        seat = await _seat_for_press(query, table, data, lang, check_version=kind != "autoplay")
        if seat is None:
            return
        state = table.state
        if kind not in ("autoplay", "show") and seat not in state.to_act:
            await answer(query, t("pop.not_your_turn", lang))
            return
        if table.seats[seat].blocked:
            # A press from the private chat: the player is back; draw their hand again.
            table.seats[seat].blocked = False
            table.rendered.pop(seat, None)
        if kind == "autoplay" and state.autoplay[seat] == bool(value):
            await refresh_hands(app, table)
            await answer(query, t("pop.autoplay_on" if value else "pop.autoplay_off", lang))
            return
        try:
            await accept(app, table, Action(kind, seat, value=value))
        except IllegalAction as exc:
            await answer(query, views.illegal_text(exc.code, lang), alert=True)
            return
        if kind == "autoplay":
            await answer(query, t("pop.autoplay_on" if value else "pop.autoplay_off", lang))
        else:
            await answer(query)


async def on_select_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The play keyboard (``S:`` buttons): select a rank, Hint, Clear, Play (issue 3, step 5)."""
    app = context.application
    query = update.callback_query
    async with locked_press(app, query) as press:
        if press is None:
            return
        data, table, lang = press.data, press.table, press.lang
        seat = await _seat_for_press(query, table, data, lang)
        if seat is None:
            return
        state = table.state
        if state.phase != "playing" or seat not in state.to_act or state.autoplay[seat]:
            await answer(query, t("pop.not_your_turn", lang))
            return
        view = state.view(seat)
        if data.payload == "play":
            await _play_selection(app, query, table, seat, lang)
            return
        if data.payload == "clear":
            table.selections[seat] = []
        elif data.payload == "hint":
            options = hints(view)
            if not options:
                await answer(query, t("pop.no_hint", lang))
                return
            table.selections[seat] = sorted(options[table.hint_index[seat] % len(options)].cards)
            table.hint_index[seat] += 1
        elif data.rank not in view.hand_ranks:
            await answer(query, t("pop.invalid", lang), alert=True)
            return
        else:
            table.selections[seat] = views.cycle_selection(view.hand_ranks,
                                                           table.selections[seat], data.rank)
        await refresh_hands(app, table)
        await answer(query)


async def _play_selection(
    app: Application, query: CallbackQuery, table: Table, seat: int, lang: str
) -> None:
    """Play the seat's selection; an illegal one gets a pop-up (in ``lang``) saying why
    (RULES.md §5, §6)."""
    state = table.state
    selection = tuple(table.selections[seat])
    if not selection:
        await answer(query, t("pop.select_first", lang), alert=True)
        return
    readings = classify(selection, state.rules)
    if not readings:
        await answer(query, views.illegal_text("invalid_combination", lang), alert=True)
        return
    prev = state.trick.play
    if prev is not None and not any(beat_reason(r, prev) is None for r in readings):
        same = [r for r in readings if r.type == prev.type] or readings
        await answer(query, views.beat_text(beat_reason(same[0], prev), prev, lang), alert=True)
        return
    try:
        await accept(app, table, Action("play", seat, cards=selection))
    except IllegalAction as exc:
        await answer(query, views.illegal_text(exc.code, lang), alert=True)
        return
    await answer(query)


async def on_my_cards(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """"My cards" on the group's table message: the presser's own hand, in a pop-up only they
    see; anyone else is told they are not seated."""
    app = context.application
    query = update.callback_query
    data = await parse_press(query, app)
    if data is None:
        return
    table = tables(app).by_token(data.token)
    if await refuse_press(app, query, data, table):
        return
    lang = user_language(app, query.from_user, table.lang)
    seat = await _seat_for_press(query, table, data, lang, check_version=False)
    if seat is None:
        return
    lang = user_language(app, query.from_user, table.seat_lang(seat))
    await answer(query, views.my_cards_text(table.state.view(seat), lang), alert=True)


# --- Leaving and stopping ------------------------------------------------------------------------


async def leave_deal(app: Application, table: Table, seat: int) -> None:
    """The seat's player leaves the running deal: the engine's ``leave`` (escape penalty,
    RULES.md §9); the seat is auto-played to the end (lock held). The caller tells the group
    (the /leave prompt becomes the announcement).

    Raises:
        IllegalAction: the engine refused (e.g. the seat already left).
    """
    await accept(app, table, Action("leave", seat))
    table.seats[seat].left = True
    await store(app).save_table(table.key, table.to_dict())


async def stop_deal(app: Application, table: Table) -> None:
    """Cancel the running deal: nobody pays (``store.cancel_deal``); the table closes (lock
    held)."""
    state = table.state
    timers.cancel_all(app.job_queue, table.key)
    if table.deal_id is not None and state is not None:
        await store(app).cancel_deal(table.deal_id, state.to_json())
    await close_hands(app, table)


# --- Restarts ------------------------------------------------------------------------------------


async def restore(app: Application) -> None:
    """Reload every stored table and running deal after a start (issue 3, "Survives restarts").

    A running deal continues: hands are drawn again, timers get the time that was left (the
    deadlines are absolute), and the table message says play continues. A deal that had finished
    but was not settled is settled now (exactly once, the store makes sure). An open lobby gets
    its expiry back. Tables whose deal is gone and running deals without a table are cleaned up.
    """
    from bot.handlers.lobby import arm_lobby_expiry, expire_lobby

    st = store(app)
    running = {deal.deal_id: deal for deal in await st.running_deals()}
    restored: set[int] = set()
    for key, data in (await st.load_tables()).items():
        try:
            table = tables(app).get(key) or Table.from_dict(data)
        except ValueError as exc:
            log.warning("dropping stored table %s: %s", key, exc)
            await st.delete_table(key)
            continue
        if table.phase == DEAL:
            record = running.get(table.deal_id)
            if record is None:
                log.warning("table %s lost its deal %s; closing it", key, table.deal_id)
                await st.delete_table(key)
                continue
            table.state = DealState.from_json(record.state_json)
            restored.add(record.deal_id)
        tables(app).add(table)
        async with tables(app).lock(key):
            if table.phase == DEAL:
                table.notice = t("table.continues", table.lang)
                if table.state.phase == "redeal":
                    await redeal(app, table)
                else:
                    await show(app, table)
            elif table.phase == LOBBY:
                if timers.seconds_left(table.lobby_deadline) <= 0:
                    await expire_lobby(app, table)
                else:
                    arm_lobby_expiry(app, table)
    for deal_id, record in running.items():
        if deal_id not in restored:
            log.warning("cancelling deal %s of %s: its table is gone", deal_id, record.table_key)
            await st.cancel_deal(deal_id)


def register(app: Application) -> None:
    """Route the deal's buttons."""
    app.add_handler(CallbackQueryHandler(on_action_button, pattern=cb.pattern(cb.ACTION)))
    app.add_handler(CallbackQueryHandler(on_select_button, pattern=cb.pattern(cb.SELECT)))
    app.add_handler(CallbackQueryHandler(on_my_cards, pattern=cb.pattern(cb.MY_CARDS)))

