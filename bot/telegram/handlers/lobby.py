"""The lobby's buttons and "Play again": entry points into
:class:`bot.game.lobby.Lobby`. Each press is checked
(:func:`~bot.telegram.handlers.common.locked_press`), answered, and only then is the lobby redrawn
or the deal dealt."""

from __future__ import annotations

import asyncio

from telegram import CallbackQuery, Update
from telegram.ext import CallbackQueryHandler

from bot.core import callbacks as cb
from bot.core.i18n import t
from bot.core.table import LOBBY, Table
from bot.game.again import waiting_names
from bot.telegram.handlers.common import (
    Press,
    answer,
    ask_private_first,
    display_name,
    game,
    locked_press,
    may_manage,
    person,
    say,
    tables,
)
from bot.telegram.services import App, Context


async def on_lobby_button(update: Update, context: Context) -> None:
    """Join, Leave, Add bot, Start, Close (``L:`` buttons).

    A Join and a Start are answered before their table's lock (a press is answered
    first; the lock may wait for another worker's step, and the database). A Join by what
    :meth:`~bot.game.lobby.Lobby.join_refusal` says on this process's copy of the table, and by
    what the bot knows of the presser's private chat (:class:`bot.game.reach.PrivateChats`):
    known closed, the answer opens it with the lobby's deep link (whose Start there seats them,
    :func:`~bot.telegram.handlers.common.ask_private_first`) and nobody is seated; known open, "You
    are seated"; not known, "Taking your seat…", promising nothing. It is seated under the lock and
    welcomed once the lock is free (:meth:`~bot.game.lobby.Lobby.welcome`, which tells them
    privately that they sit; a player the bot cannot write to privately is unseated again and
    told in the group, with the deep link under the lobby); a seat gone meanwhile (another
    worker seated the last player) is told in the group too. A Start by the opener is answered
    by what the lobby's copy and the store say (:meth:`~bot.game.lobby.Lobby.start_check`; a
    seat that a Join answered as seated, on any worker, has not stored yet counts as taken),
    never behind the lock (whose holder may wait seconds for the token's budget). A Start
    answered as starting deals once the seats promised are taken
    (:meth:`~bot.game.lobby.Lobby.await_seats`) and the welcomes on their way told, so nobody
    whose hand cannot reach them is dealt in; a refusal found only under the lock (changed
    meanwhile, a promised seat refused) is then told in the group. A Start refused before the
    lock still takes changed terms under it (and tells the group whose beans are short).

    A Leave registers itself before the lock (:meth:`~bot.game.lobby.Lobby.leaving`), so a
    Start answered meanwhile counts the seat as free, and lets a Start answered as starting
    before it take the lock first (:meth:`~bot.game.lobby.Lobby.after_starts`: that Start
    deals the seats it counted). Under the lock it unseats the player, or withdraws a Join of
    theirs answered as seated that no worker has seated yet
    (:meth:`~bot.game.lobby.Lobby.withdraw`; that Join's block then seats nobody): either is
    answered "You left the table". Anything else is answered under the lock.
    """
    app = context.application
    query = update.callback_query
    assert query is not None
    user = query.from_user
    lobby = game(app).lobby
    told: list[str | None] = []  # what the press was answered before the lock (None: refused)
    claimed: list[str] = []  # the table a Join answered as seated claimed a seat at
    leaving: list[str] = []  # the table a Leave is on its way to
    starting: list[tuple[str, asyncio.Event]] = []  # a Start answered as starting, till locked

    async def first(data: cb.Callback, table: Table, lang: str) -> tuple[str | None, bool] | None:
        decided: tuple[str | None, bool] | None = None
        if data.payload == "join":
            refusal = await lobby.join_refusal(table, person(user), lang)
            if refusal is None and table.options.hands != "group" and await ask_private_first(
                    app, query, f"{cb.JOIN_LINK}{table.token}", t("pop.open_private", lang)):
                await lobby.joined(user.id, table.key)  # its claim goes: nobody is seated
                told.append(None)
                return None
            reached = table.options.hands == "group" or game(app).ctx.private_chats.known(user.id)
            decided = (refusal or t("pop.joined" if reached else "pop.seating", lang),
                       refusal is not None)
            if refusal is None:
                claimed.append(table.key)
        elif data.payload == "leave":
            leaving.append(table.key)
            await lobby.leaving(table.key, user.id)
            await lobby.after_starts(table.key)
        elif data.payload == "start" and user.id == table.opener_id:
            popup, _ = await lobby.start_check(table, lang)
            decided = (popup or t("lobby.starting", lang), popup is not None)
            if popup is None:
                starting.append((table.key, lobby.start_answered(table.key)))
        if decided is not None:
            told.append(decided[0] if not decided[1] else None)
        return decided

    try:
        async with locked_press(app, query, first) as press:
            for key, event in starting:
                lobby.start_locked(key, event)
            if press is None:
                return
            welcome, start_later = await _locked(app, query, press, told)
    finally:
        for key, event in starting:
            lobby.start_locked(key, event)
        for key in claimed:
            await lobby.joined(user.id, key)
        for key in leaving:
            await lobby.left(key, user.id)
    if welcome is not None:
        await lobby.welcome(*welcome, user.id)
    if start_later is not None:
        await lobby.await_seats(*start_later)
        async with tables(app).lock(start_later[0]):
            current = tables(app).by_token(start_later[1])
            if current is not None and current.phase == LOBBY:
                await _start(app, query, current, current.lang, answered=True, waited=True)


async def _locked(app: App, query: CallbackQuery, press: Press, told: list[str | None]
                  ) -> tuple[tuple[str, str] | None, tuple[str, str] | None]:
    """:func:`on_lobby_button`'s block, with the table's lock held: ``(welcome, start)``,
    each ``(table key, token)`` or ``None``: the Join's welcome due once the lock is free,
    the Start that waits for the welcomes on their way. ``told``: what the press was answered
    before the lock (``None``: a refusal), empty when it was not."""
    user = query.from_user
    lobby = game(app).lobby
    data, table, lang = press.data, press.table, press.lang
    if data.payload == "join":
        if told and told[0] is None:
            return None, None  # refused before the lock: nothing to do
        if await lobby.withdrawn(table, user.id):  # Leave pressed meanwhile: no seat
            await answer(query, t("pop.left_lobby", lang))
            return None, None
        refusal = await lobby.seat(table, person(user), lang=lang, welcome_after=True)
        reached = table.options.hands == "group" or game(app).ctx.private_chats.known(user.id)
        await answer(query, refusal or t("pop.joined" if reached else "pop.seating", lang),
                     alert=refusal is not None)
        if refusal is None:
            if reached:  # else the lobby shows them once their welcome reached them
                await lobby.refresh(table)
            return (table.key, table.token), None
        if told:  # answered as seated, and the seat went meanwhile (another worker's Join)
            await say(app, table, lobby.not_seated_text(table, person(user)))
    elif data.payload == "leave":
        seated = table.seat_of(user.id) is not None
        gone = seated or await lobby.withdraw(table, user.id)
        await answer(query, t("pop.left_lobby" if gone else "pop.not_seated", lang))
        if seated:
            await lobby.leave(table, user.id)
    elif data.payload == "bot":
        if table.seat_of(user.id) is None and not await may_manage(app, table, user.id):
            await answer(query, t("pop.not_seated", lang), alert=True)
        elif (refusal := lobby.bot_refusal(table, lang)) is not None:
            await answer(query, refusal)
        else:
            lobby.add_bot(table)
            await answer(query, t("pop.bot_added", lang))
            await lobby.refresh(table)
    elif data.payload == "start":
        if told and told[0] is None:  # refused before the lock: changed terms are taken now
            _, notice = await lobby.start_refusal(table, lang)
            lobby.shown_config.pop(table.key, None)
            if notice is not None:
                await say(app, table, notice)
        elif not await may_manage(app, table, user.id):
            await answer(query, t("pop.only_opener", lang), alert=True)
        elif not await _start(app, query, table, table.lang if told else lang,
                              answered=bool(told)):
            return None, (table.key, table.token)
    elif await may_manage(app, table, user.id):
        await answer(query)
        await lobby.close(table, display_name(user))
    else:
        await answer(query, t("pop.only_opener", lang), alert=True)
    return None, None


async def _start(app: App, query: CallbackQuery, table: Table, lang: str, *,
                 answered: bool = False, waited: bool = False) -> bool:
    """Start the lobby's deal, or refuse (lock held): the pop-up in ``lang``; for a Start
    ``answered`` already (as starting, before the lock), a refusal is told to the group
    instead (``lang``: the group's). ``False`` when the deal must wait for a seat a Join
    answered as seated has not taken yet (:meth:`bot.game.lobby.Lobby.seats_pending`) or a
    welcome on its way (:meth:`bot.game.lobby.Lobby.welcomes_pending`; the press answered as
    starting): the caller calls this again, ``waited``, once the lock is free and the seats
    and the welcomes came (:meth:`bot.game.lobby.Lobby.await_seats`)."""
    lobby = game(app).lobby
    popup, notice = await lobby.start_refusal(table, lang)
    if popup is not None and not waited and await lobby.seats_pending(table):
        await answer(query, t("lobby.starting", lang))  # dropped when answered before the lock
        return False
    if popup is not None:
        if answered:
            await say(app, table, notice or popup)
            return True
        await answer(query, popup, alert=True)
        if notice is not None:
            await say(app, table, notice)  # in the background
        return True
    if not waited:  # a Start that waited was answered before it did: a press is answered once
        await answer(query, t("lobby.starting", lang))  # dropped when answered before the lock
        if lobby.welcomes_pending(table):
            return False
    if table.competition.match_options is not None:
        refused = await game(app).matches.start(table)
        if refused is not None:
            await say(app, table, refused[1])
        return True
    await lobby.deal(table)
    return True


async def on_play_again(update: Update, context: Context) -> None:
    """再来一局 / 离开 under a result (``G:`` buttons): the presser's seat is
    ready, or freed (:class:`bot.game.again.PlayAgain`); each press is answered first. A
    player who is not seated is told to press Join; a second press says whom the table waits
    for; a player who sat down at another table meanwhile (a practice deal) is told so and
    her seat is not made ready: it waits, as if unanswered, until she presses again once
    free or Play again's time runs out (then the group is told she left); buttons of an older
    deal were refused by :func:`locked_press`."""
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
        if table.progress.ready[seat]:
            await answer(query, t("pop.again_already", lang, names=waiting_names(table, lang)))
            return
        elsewhere = game(app).lobby.seated_elsewhere(query.from_user.id, lang)
        if elsewhere is not None:  # practising meanwhile: the seat waits, unready, till the
            await answer(query, elsewhere, alert=True)  # timeout; she may press again after
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
