"""The lobby: opening a table, Join / Leave / Add bot / Start / Close, expiry, "Play again",
and practice tables (``/practice``).

One table per group chat, one per forum topic (key ``chat_id:thread_id``), one practice table per
private chat. A player sits at one table at a time: the check and the seat are taken in one step
with no await between (:meth:`Lobby.seat`), and the player is claimed while being seated (with
several workers in every worker, and checked against the stored tables), so two tables racing
for the same player cannot both seat them. A Leave registers itself before its table's lock (a
Start answered meanwhile counts the seat as free) and withdraws a Join of the player's that is
answered as seated but not seated yet (:meth:`Lobby.withdraw`).

Joining writes to the player privately (a welcome): if the outlet says the chat is closed, the
player is not seated and the lobby shows a deep link that seats them from the private chat. A
Join press is seated and answered first and welcomed after (:meth:`Lobby.welcome`: the answer
never waits for the token's budget); a player the welcome cannot reach is unseated again and
told so in the group, and Start waits for the welcomes still on their way
(:meth:`Lobby.await_welcomes`), so nobody is dealt in whose hand cannot reach them.

A lobby exists only once its message does: if the lobby message cannot be sent, the table is
dropped again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

from bot.core.i18n import join_names, t
from bot.core.numbers import grouped
from bot.core.rooms import preset_name
from bot.core.table import (
    DEAL,
    LOBBY,
    RESULT,
    Competition,
    Seat,
    Table,
    TableOptions,
    challenge_key,
    table_key,
)
from bot.game import timers
from bot.game.config import TableConfig
from bot.game.context import GameContext
from bot.game.deal import DealDriver
from bot.game.drawing import Drawing
from bot.game.outlet import PRESSER, BoardJob, Unreachable
from bot.presentation import views
from bot.presentation.keyboards import Keyboard
from bot.store import Player

log = logging.getLogger(__name__)

#: The key of the lobby message in ``TableMessages.rendered``.
LOBBY_MESSAGE = "lobby"
#: Bot seats of a practice table (``/practice``): one human, two AI seats.
PRACTICE_BOTS = 2
#: Seconds a seat's welcome may be on its way (:attr:`Seat.welcoming`) before Start stops
#: waiting for it (its worker died before telling: the deal's hands tell instead).
WELCOME_WAIT = 20.0
#: Seconds between two looks at the welcomes a Start waits for.
WELCOME_POLL = 0.2



#: Characters of a group's title a pop-up names (a pop-up holds 200).
TITLE_CHARS = 40


def _sits_elsewhere(other: Table | None, lang: str) -> str | None:
    """Why a player who sits at table ``other`` cannot sit down, in ``lang``: a practice deal
    is left in its private chat; a group's table is named by the group's title, and at a
    running deal the player is warned that ``/leave`` there forfeits it (RULES.md §9)
    (``pop.seated_elsewhere`` for a table without a title). ``None`` without such a table."""
    if other is None:
        return None
    if other.private:
        return t("pop.practising", lang)
    title = " ".join(other.title.split())[:TITLE_CHARS]
    if not title:
        return t("pop.seated_elsewhere", lang)
    return t("pop.seated_deal" if other.phase == DEAL else "pop.seated_at", lang, group=title)

@dataclass(frozen=True, slots=True)
class Person:
    """Someone who wants a seat: Telegram user id, the name shown for them, their Telegram
    language (matched to ours, or ``None``)."""

    user_id: int
    name: str
    language: str | None = None


#: Draws a match's lobby: (table, bot username, seconds left) → (text, keyboard).
MatchLobbyView = Callable[[Table, str | None, float], tuple[str, Keyboard]]


class Lobby:
    """Lobbies of every table (see the module docstring)."""

    def __init__(self, ctx: GameContext, deals: DealDriver) -> None:
        self.ctx = ctx
        self.deals = deals
        #: Draws a match's lobby (table, bot username, seconds left → text, keyboard): the
        #: match feature sets it (:class:`bot.features.match.driver.Matches`).
        self.match_lobby_view: MatchLobbyView | None = None
        #: Per table key, the settings snapshot its lobby showed when Start was last accepted
        #: by :meth:`start_refusal` (the deal is dealt with it, not with a later read).
        self.shown_config: dict[str, TableConfig] = {}
        #: Players being seated here (a Join answered as seated whose block has not ended, or
        #: another way to a seat under way: :meth:`seat`): user id → table key.
        self._joining: dict[int, str] = {}
        #: Joins of ``_joining`` that a Leave withdrew (:meth:`withdraw`): (user id, key).
        self._withdrawn: set[tuple[int, str]] = set()
        #: Leaves on their way to their block (:meth:`leaving`): (user id, key) → how many.
        self._leaving: Counter[tuple[int, str]] = Counter()
        #: Per table key, the Starts answered as starting that have not taken the table's lock
        #: yet (:meth:`start_answered`).
        self._starts: dict[str, list[asyncio.Event]] = {}
        #: (table key, user id) of the players this process told their cards come privately
        #: (``hand.welcome``): told once per table (its group or topic), not at every lobby.
        self._welcomed: set[tuple[str, int]] = set()

    async def open_table(
        self, chat_id: int, thread_id: int | None, title: str, person: Person,
        match_options: dict[str, Any] | None = None,
    ) -> tuple[Table | None, str | None]:
        """Open the lobby of a group (or topic) and seat its opener; with ``match_options``
        the lobby of a competition (:mod:`bot.features.match.driver`).

        Returns ``(table, None)``, ``(table, refusal)`` when the lobby opened but the opener
        could not sit (the refusal text says why), or ``(None, text)`` when a lobby or deal
        already runs here, the last deal's players are answering Play again under its result
        (:mod:`bot.game.again`: they still sit), a match plays at this table (between two of
        its deals too, also when the worker that was to deal on died: the table is the
        match's until it is over, :meth:`bot.features.match.driver.Matches.resume`), the opener
        already sits at another table, or the lobby message could not be sent.
        """
        ctx = self.ctx
        key = table_key(chat_id, thread_id)
        probe = Table(chat_id, thread_id, ctx.settings.default_language)
        config = await ctx.config(probe)
        lang = config.lang
        async with ctx.tables.lock(key):
            existing = ctx.tables.get(key)
            if existing is not None and existing.again_offered():  # its players still sit
                return None, t("reply.again_pending", lang)
            if existing is not None and existing.competition.match_id is not None:
                # a match's table between two deals (its next deal, or its end, may wait for
                # the worker that takes it over) belongs to the match until it frees it
                return None, t("reply.match_running", lang)
            if existing is not None and existing.phase != RESULT:
                return None, t("reply.table_exists", lang)
            elsewhere = self.seated_elsewhere(person.user_id, lang) \
                or await self._stored_elsewhere(key, person.user_id, lang)
            if elsewhere is not None:
                return None, elsewhere
            if existing is not None:
                ctx.tables.remove(existing)
            table = Table(chat_id, thread_id, lang, title=title, opener_id=person.user_id,
                          options=TableOptions(seat_count=config.rules.seats,
                                               preset=preset_name(config.rules),
                                               stake=config.stake, hands=config.hands),
                          competition=Competition(match_options=match_options))
            ctx.tables.add(table)
            refusal = await self.seat(table, person, lang=lang)
            if not await self.post_lobby(table):
                ctx.tables.remove(table)
                await ctx.store.delete_table(key)
                return None, t("reply.lobby_failed", lang)
            return table, refusal

    async def open_practice(self, person: Person, lang: str) -> str | None:
        """Deal a practice table in the player's private chat (``/practice``): the player and
        :data:`PRACTICE_BOTS` AI seats, the same hand, keyboard, table picture and result as in a
        group, no beans (the deal is not settled). ``None`` when dealt, else why not, in
        ``lang``."""
        ctx = self.ctx
        key = table_key(person.user_id, None)
        async with ctx.tables.lock(key), self._claiming(key, person.user_id, lang) as claim:
            existing = ctx.tables.get(key)
            if existing is not None and existing.phase != RESULT:
                return t("reply.practice_running", lang)
            elsewhere = claim or self.seated_elsewhere(person.user_id, lang) \
                or await self._stored_elsewhere(key, person.user_id, lang)
            if elsewhere is not None:
                return elsewhere
            challenge = ctx.tables.get(challenge_key(person.user_id))
            if challenge is not None and challenge.phase == DEAL:
                return t("reply.practice_in_challenge", lang)
            if existing is not None:
                ctx.tables.remove(existing)
            player = await ctx.store.ensure_player(person.user_id, person.name, person.language)
            table = Table(person.user_id, None, lang, title="", opener_id=person.user_id,
                          private=True)
            table.seats.append(Seat(person.user_id, person.name, lang=player.language or lang))
            for n in range(PRACTICE_BOTS):
                table.seats.append(Seat(None, t("seat.bot", lang, n=n + 2), True))
            ctx.tables.add(table)
            await self.deals.deal(table)
            return None

    async def post_lobby(self, table: Table) -> bool:
        """Send a fresh lobby message, store the table and arm its expiry (lock held);
        ``False`` when the message could not be sent (nothing stored)."""
        table.progress.lobby_deadline = time.time() + self.ctx.settings.lobby_timeout
        text, markup = self._lobby(table)
        try:
            message_id = await self.ctx.outlet.send(table.chat_id, text, markup, table.thread_id)
        except Unreachable:
            message_id = None
        if message_id is None:
            return False
        table.messages.message_id = message_id
        table.messages.message_photo = False
        table.messages.rendered[LOBBY_MESSAGE] = Drawing(text, markup).signature
        await self.ctx.save(table)
        self.arm_expiry(table)
        return True

    def _lobby(self, table: Table) -> tuple[str, Keyboard]:
        seconds = timers.seconds_left(table.progress.lobby_deadline)
        if table.competition.match_options is not None:
            if self.match_lobby_view is None:
                raise RuntimeError("a match lobby with no match driver to draw it")
            return self.match_lobby_view(table, self.ctx.bot_username, seconds)
        return views.lobby_view(table, self.ctx.bot_username, seconds)

    async def refresh(self, table: Table, *, at_once: bool = False) -> None:
        """Store the table and ask for its lobby message to show the seats as they are: through
        the outlet's outbox (the latest lobby once the chat's flood budget allows), or
        ``at_once`` before returning (a command whose reply should follow the edit) (lock
        held)."""
        await self.ctx.save(table)
        if at_once:
            await self._lobby_job(table.key)
        else:
            self.ctx.outlet.update_audience(table.key, table.chat_id,
                                            BoardJob(partial(self._lobby_job, table.key)))

    async def _lobby_job(self, key: str) -> bool:
        """Draw the lobby as it is now on its message (the outbox's job, no lock); ``False``
        when there is nothing to change."""
        table = self.ctx.tables.get(key)
        if table is None or table.phase != LOBBY or table.messages.message_id is None:
            return False
        text, markup = self._lobby(table)
        drawing = Drawing(text, markup)
        if table.messages.rendered.get(LOBBY_MESSAGE) == drawing.signature:
            return False
        try:
            shown = await self.ctx.outlet.present(table.chat_id, table.messages.message_id, False,
                                                  None, drawing, table.thread_id)
        except Unreachable:
            log.info("lobby edit at %s: the chat is closed", table.key)
            return True
        if shown is not None:
            table.messages.rendered[LOBBY_MESSAGE] = drawing.signature
            if shown[0] != table.messages.message_id and self.ctx.tables.get(key) is table:
                table.messages.message_id, table.messages.message_photo = shown
                await self.ctx.save(table)
        return True

    async def seat(
        self, table: Table, person: Person, *, lang: str, check_private: bool = True,
        welcome_after: bool = False,
    ) -> str | None:
        """Seat ``person`` in the lobby; ``None`` on success, else the text saying why not, in
        ``lang`` (the group's for a reply in the group, the user's for a pop-up or in private).

        Refuses: not a lobby any more, already seated here or at another table, no free seat,
        beans a running deal still holds at a table for beans (:meth:`beans_held`: also after
        the player left that deal), a balance below the room's minimum (RULES.md §8), or
        (``check_private``) a private chat
        the bot cannot write to — then the lobby gets its deep-link button (lock held). With
        ``welcome_after`` (a Join press, answered before any request it causes) the private
        chat is not checked here: the seat is taken with its welcome still due
        (:attr:`Seat.welcoming`), and the caller sends it once the lock is free
        (:meth:`welcome`). A player this process told at this table (its group or topic) that
        their cards come privately is not told again at its next lobbies, nor checked: one
        such message per player per table; a chat closed since then shows when the hands are
        dealt (the seat is auto-played). The seat keeps the player's own language
        (``Player.language``) for their private messages. Everything that waits comes first;
        the checks that decide and the seat itself follow in one step, so no other table of
        this process can seat the same player in between.

        With several workers the player is claimed for this table among the workers while
        they are seated (:meth:`_claiming`; a Join press's claim was taken before its answer,
        :meth:`join_refusal`, and goes after its block): a player another worker is seating
        is refused, and so is one the store shows at another table (a worker's copy of that
        table may be older), so nobody is seated at two tables by two workers; the seat is
        stored before the claim goes.
        """
        if self._joining.get(person.user_id) == table.key:  # a Join press's own claim
            return await self._seat(table, person, lang=lang, check_private=check_private,
                                    welcome_after=welcome_after)
        async with self._claiming(table.key, person.user_id, lang) as claim:
            if claim is not None:
                return claim
            refusal = await self._seat(table, person, lang=lang, check_private=check_private,
                                       welcome_after=welcome_after)
            if refusal is None and self.ctx.seat_claims is not None:
                await self.ctx.save(table)
            return refusal

    @asynccontextmanager
    async def _claiming(self, key: str, user_id: int, lang: str) -> AsyncIterator[str | None]:
        """Claim ``user_id`` for a seat at table ``key`` for the block (in this process, and
        with several workers in every worker: :meth:`SeatClaims.claim_seat`); yields ``None``
        when claimed, else why they cannot sit (being seated here or at another table)."""
        if user_id in self._joining:
            yield self._held_refusal(key, user_id, self._joining[user_id], lang)
            return
        self._joining[user_id] = key
        try:
            shared = self.ctx.seat_claims
            held = await shared.claim_seat(key, user_id) if shared is not None else None
            yield None if held is None else self._held_refusal(key, user_id, held, lang)
        finally:
            await self.joined(user_id, key)

    @asynccontextmanager
    async def keeping(self, table: Table) -> AsyncIterator[set[int]]:
        """Play again keeps the human seats of ``table`` under its result (lock held;
        :mod:`bot.game.again`): each player is claimed for the block as :meth:`seat` claims
        one, and the seats that cannot stay are yielded: left, or their player sits at another
        table now (this process's copy, or with several workers the store) or is being seated
        at one. The block stores the table (the next deal, or the lobby) before the claims
        go."""
        async with AsyncExitStack() as claims:
            gone: set[int] = set()
            for i, seat in table.humans():
                user = seat.user_id
                if seat.left or user is None:
                    gone.add(i)
                    continue
                refusal = await claims.enter_async_context(
                    self._claiming(table.key, user, table.lang))
                if refusal is not None or self.seated_elsewhere(user, table.lang) is not None \
                        or await self._stored_elsewhere(table.key, user, table.lang) is not None:
                    gone.add(i)
            yield gone

    def _held_refusal(self, key: str, user_id: int, held: str, lang: str) -> str:
        """Why a player being seated at table ``held`` cannot sit at table ``key``."""
        if held == key:
            return t("pop.already_seated", lang)
        if held == table_key(user_id):
            return t("pop.practising", lang)
        return _sits_elsewhere(self.ctx.tables.get(held), lang) \
            or t("pop.seated_elsewhere", lang)

    async def _seat(self, table: Table, person: Person, *, lang: str, check_private: bool,
                    welcome_after: bool) -> str | None:
        """:meth:`seat`, the player claimed."""
        ctx = self.ctx
        refusal, player = await self._refusal_to_sit(table, person, lang)
        if refusal is not None or player is None:
            return refusal
        welcomed = (table.key, person.user_id) in self._welcomed \
            and ctx.private_chats.known(person.user_id) is not False  # not refused since
        if table.options.hands == "group":
            welcomed = True  # the hand comes in the group: no private chat needed
        if check_private and not welcome_after and not welcomed:
            welcome = t("hand.welcome", player.language or table.lang, group=table.title)
            try:
                if await ctx.outlet.send(person.user_id, welcome) is not None:
                    ctx.private_chats.reached(person.user_id)
            except Unreachable:
                log.info("cannot write to user %s privately", person.user_id)
                ctx.private_chats.unreachable(person.user_id)
                if not table.messages.join_link:
                    table.messages.join_link = True
                    await self.refresh(table)
                return t("pop.need_private", lang)
            self._welcomed.add((table.key, person.user_id))
        refusal = self._seat_refusal(table, person.user_id, lang)  # again: we waited
        if refusal is not None:
            return refusal
        welcoming = time.time() if welcome_after and not welcomed else None
        return self._sit(table, person, player.language, welcoming)

    @staticmethod
    def _sit(table: Table, person: Person, language: str | None,
             welcoming: float | None = None) -> None:
        """Take the next seat for ``person`` (their own language, ``welcoming``: see
        :attr:`Seat.welcoming`)."""
        table.seats.append(Seat(person.user_id, person.name, lang=language,
                                welcoming=welcoming))
        return None

    async def join_refusal(self, table: Table, person: Person, lang: str) -> str | None:
        """What a Join press on ``table`` is answered before its table's lock (a
        press is answered first): why ``person`` cannot sit, as :meth:`seat` would refuse it
        (the private chat apart: the welcome tells after the answer), on this process's copy
        of the table; ``None``: they may (:meth:`seat` decides again under the lock). A
        ``None`` claims the player and a seat in this process until the caller's block ends
        (:meth:`joined`), so two Joins at once here (two groups, a double press, or the last
        seat) are not both answered as seated. With several workers the claim is stored too
        (:meth:`SeatClaims.claim_seat`, while the player's beans are read): one claim per
        player among the workers, so a Join of the same player on another worker at once is
        answered "You already sit at this table" (a double press) or "You already sit at
        another table" (two groups), not seated twice, and a Start on another worker counts
        the seat (:meth:`start_check`). A seat gone under the lock all the same (another
        worker's bot or Join took the last seat) is told in the group
        (:meth:`not_seated_text`); a Leave may withdraw the Join before its block seats the
        player (:meth:`withdraw`)."""
        refusal = self._claim_refusal(table, person.user_id, lang)
        if refusal is not None:
            return refusal
        # claimed before the first await: a Start or another Join handled while the player's
        # beans are read counts this seat (a Start in the same batch of updates was answered
        # "Three seats must be filled" after this Join's "You are seated")
        self._joining[person.user_id] = table.key
        shared = self.ctx.seat_claims
        held: str | None = None
        try:
            reads = asyncio.gather(self.ctx.store.get_player(person.user_id),
                                   self._minimum(table),
                                   self.beans_held(table, person.user_id, lang))
            if shared is None:
                known, minimum, beans_held = await reads
            else:
                (known, minimum, beans_held), held = await asyncio.gather(
                    reads, shared.claim_seat(table.key, person.user_id))
        except BaseException:
            await self.joined(person.user_id, table.key)
            raise
        # a new player is created by the seat (:meth:`seat`) with the starting beans, RULES.md
        # §8 (creating them here cost the answer a write transaction)
        balance = known.balance if known is not None else self.ctx.store.economy.start_balance
        if held is not None:  # another worker is seating them
            refusal = self._held_refusal(table.key, person.user_id, held, lang)
        elif beans_held is not None:
            refusal = beans_held
        elif balance < minimum:
            refusal = t("pop.need_beans", lang, minimum=grouped(minimum),
                        balance=grouped(balance))
        else:  # the same checks again, without this claim: a bot may have taken the seat
            self._joining.pop(person.user_id, None)
            refusal = self._claim_refusal(table, person.user_id, lang)
            self._joining[person.user_id] = table.key
        if refusal is not None:
            await self.joined(person.user_id, table.key)
        return refusal

    def _claim_refusal(self, table: Table, user_id: int, lang: str) -> str | None:
        """:meth:`_seat_refusal` with the Joins claimed here counted (:meth:`join_refusal`)."""
        claimed = self._joining.get(user_id)
        if claimed is not None:  # a Join of theirs is being seated (a double press, or two)
            if claimed == table.key:
                return t("pop.already_seated", lang)
            return _sits_elsewhere(self.ctx.tables.get(claimed), lang) \
                or t("pop.seated_elsewhere", lang)
        refusal = self._seat_refusal(table, user_id, lang)
        seated = {seat.user_id for seat in table.seats}
        claims = sum(1 for user, key in self._joining.items()
                     if key == table.key and user not in seated)  # a seated claim counts once
        if refusal is None and len(table.seats) + claims >= table.options.seat_count:
            return t("pop.table_full", lang)
        return refusal

    async def joined(self, user_id: int, key: str) -> None:
        """The block of a Join :meth:`join_refusal` let sit at table ``key`` ended (its seat is
        stored, or was refused), or another way to a seat there (:meth:`seat`): the claim it
        held on the player and on a seat goes, and a Leave's withdrawal of it with it."""
        if self._joining.get(user_id) == key:
            del self._joining[user_id]
            self._withdrawn.discard((user_id, key))
            if self.ctx.seat_claims is not None:
                await self.ctx.seat_claims.release_seat(key, user_id)

    async def leaving(self, key: str, user_id: int) -> None:
        """A Leave of ``user_id`` at table ``key`` is on its way to its block (called before
        the table's lock, as a Join claims its seat): a Start
        answered meanwhile counts the seat as given up (:meth:`start_check`), here and, with
        several workers, on any (:meth:`SeatClaims.claim_leave`), until :meth:`left`."""
        self._leaving[user_id, key] += 1
        if self.ctx.seat_claims is not None:
            await self.ctx.seat_claims.claim_leave(key, user_id)

    async def left(self, key: str, user_id: int) -> None:
        """The block of a Leave registered by :meth:`leaving` ended."""
        self._leaving[user_id, key] -= 1
        if self._leaving[user_id, key] <= 0:
            del self._leaving[user_id, key]
            if self.ctx.seat_claims is not None:
                await self.ctx.seat_claims.release_leave(key, user_id)

    def start_answered(self, key: str) -> asyncio.Event:
        """A Start at table ``key`` is answered as starting before the table's lock: a Leave
        pressed after it waits until it holds the lock (:meth:`after_starts`), so that the
        Start deals the seats it counted (a Leave whose block ran first unseated its player,
        and the Start answered as starting told the group "Three seats must be filled"). The
        caller sets the event returned once its block holds the lock, or it ended
        (:meth:`start_locked`)."""
        event = asyncio.Event()
        self._starts.setdefault(key, []).append(event)
        return event

    def start_locked(self, key: str, event: asyncio.Event) -> None:
        """The Start of :meth:`start_answered` holds the table's lock now, or it ended."""
        event.set()
        waiting = self._starts.get(key, [])
        if event in waiting:
            waiting.remove(event)
        if not waiting:
            self._starts.pop(key, None)

    async def after_starts(self, key: str) -> None:
        """Wait until every Start at table ``key`` answered as starting in this process holds
        the table's lock, or ended (a Leave's wait before its lock: :meth:`start_answered`)."""
        for event in list(self._starts.get(key, ())):
            await event.wait()

    async def withdraw(self, table: Table, user_id: int) -> bool:
        """A Leave of ``user_id``, who does not sit at lobby ``table`` (lock held): a Join of
        theirs answered as seated whose block has not seated them yet, in this process or,
        with several workers, in any, is withdrawn: its block will
        not seat them (:meth:`withdrawn`), and a Start counts the seat as free. ``True`` when
        there was such a Join (the Leave is answered as having left), ``False`` when not. The
        withdrawal goes with the Join's claim (:meth:`joined`): a later Join seats them."""
        here = self._joining.get(user_id) == table.key
        if here:
            self._withdrawn.add((user_id, table.key))
        shared = self.ctx.seat_claims
        stored = shared is not None and await shared.withdraw_seat(table.key, user_id)
        return here or stored

    async def withdrawn(self, table: Table, user_id: int) -> bool:
        """A Leave withdrew the Join of ``user_id`` at ``table`` whose block this is
        (:meth:`withdraw`; lock held): it must not seat them."""
        if (user_id, table.key) in self._withdrawn:
            return True
        shared = self.ctx.seat_claims
        return shared is not None and await shared.seat_withdrawn(table.key, user_id)

    async def promised_seats(self, table: Table) -> tuple[int, int] | None:
        """Lobby ``table``'s seats taken and the Joins answered as seated on their way to a
        seat (their block has not seated them yet: :meth:`join_refusal`), in this process and,
        with several workers, in any: ``(taken, on their way)``, read from the store with
        several workers (this copy may not show a seat another worker just stored). A seat
        whose player's Leave is on its way (:meth:`leaving`), or whose Join a Leave withdrew
        (:meth:`withdraw`), counts as free. ``None`` when the stored table is no longer this
        lobby."""
        key = table.key
        seats: list[int | None] = [seat.user_id for seat in table.seats]
        claimed: set[int] = set()
        leaving: set[int] = set()
        shared = self.ctx.seat_claims
        if shared is not None:
            stored = await shared.lobby_seats(key, table.token)
            if stored is None:
                return None
            seats, claimed, leaving = stored.seats, stored.claimed, stored.leaving
        # this process's claims and Leaves as they are now, after the store's answer
        claimed |= {user for user, claim in self._joining.items() if claim == key}
        leaving |= {user for user, claim in self._leaving if claim == key}
        leaving |= {user for user, claim in self._withdrawn if claim == key}
        taken = sum(1 for user in seats if user is None or user not in leaving)
        return taken, len(claimed - set(seats) - leaving)

    async def _refusal_to_sit(self, table: Table, person: Person,
                              lang: str) -> tuple[str | None, Player | None]:
        """``(refusal, None)`` when ``person`` cannot sit at ``table`` (see :meth:`seat`, the
        private chat apart), else ``(None, their player)`` (created if new)."""
        refusal = self._seat_refusal(table, person.user_id, lang)
        if refusal is not None:
            return refusal, None
        player, minimum, elsewhere, held = await asyncio.gather(
            self.ctx.store.ensure_player(person.user_id, person.name, person.language),
            self._minimum(table), self._stored_elsewhere(table.key, person.user_id, lang),
            self.beans_held(table, person.user_id, lang))
        if elsewhere is not None:
            return elsewhere, None
        if held is not None:
            return held, None
        if player.balance < minimum:
            return t("pop.need_beans", lang, minimum=grouped(minimum),
                     balance=grouped(player.balance)), None
        return None, player

    def not_seated_text(self, table: Table, person: Person) -> str:
        """The group's note for a Join answered as seated before the lock whose seat went
        meanwhile (:meth:`seat` refused it under the lock: the table filled up, the deal
        started, the player sat down elsewhere), in the group's language."""
        reason = self._seat_refusal(table, person.user_id, table.lang)
        return t("lobby.not_seated", table.lang, name=views.short_name(person.name),
                 reason=reason or "").strip()

    async def welcome(self, key: str, token: str, user_id: int) -> bool:
        """Send the welcome of a seat taken with ``welcome_after`` (:meth:`seat`) at lobby ``key``
        (its ``token``), with no lock held, ahead of the bot's other waiting requests (a Start
        may be waiting for it); then, under the lock, the seat is welcomed, or, when the
        private chat is closed to the bot (the user never started it, or blocked it), given up
        again: the lobby shows its deep-link button (a press of it seats the player from the
        private chat) and the group is told, by name, that they are not seated and why
        (``lobby.unreachable``). Either is remembered (:class:`~bot.game.reach.PrivateChats`):
        their next Join is answered by it. A welcomed seat is shown in the lobby (a Join not
        sure of the private chat did not show it). ``False`` when the player could not be
        reached; ``True`` otherwise (also when the lobby moved on meanwhile: nothing to do; or
        a failure that is not a closed chat: logged, and the seat kept, its hands will tell)."""
        ctx = self.ctx
        table = ctx.tables.get(key)
        seat = table.seat_of(user_id) if table is not None and table.token == token else None
        if table is None or seat is None or table.seats[seat].welcoming is None:
            return True  # welcomed at this table before (once per table, not per lobby)
        text = t("hand.welcome", table.seat_lang(seat), group=table.title)
        try:
            if await ctx.outlet.send(user_id, text, rank=PRESSER) is not None:
                ctx.private_chats.reached(user_id)
            reached = True
        except Unreachable:
            log.info("cannot write to user %s privately", user_id)
            reached = False
            ctx.private_chats.unreachable(user_id)
        async with ctx.tables.lock(key):
            table = ctx.tables.get(key)
            if table is None or table.token != token or table.phase != LOBBY:
                return reached
            seat = table.seat_of(user_id)
            if seat is None or table.seats[seat].welcoming is None:
                return reached
            if reached:
                table.seats[seat].welcoming = None
                self._welcomed.add((key, user_id))
                await self.refresh(table)  # stored; shown now if the Join did not show it
                return True
            name = views.seat_name(table.seats[seat], seat, table.lang)
            table.messages.join_link = True
            await self.leave(table, user_id, close_empty=False)
            self.deals.say(table, t("lobby.unreachable", table.lang, name=name))
            return False

    @staticmethod
    def welcomes_pending(table: Table) -> bool:
        """A seat's welcome is still on its way (sent less than :data:`WELCOME_WAIT` seconds
        ago): a deal must not start before it tells whether the player can be reached."""
        since = time.time() - WELCOME_WAIT
        return any(s.welcoming is not None and s.welcoming > since for s in table.seats)

    async def await_welcomes(self, key: str, token: str) -> None:
        """Wait (no lock held) until no welcome of lobby ``key`` (its ``token``) is on its way
        (:meth:`welcomes_pending`), the lobby moved on, or :data:`WELCOME_WAIT` seconds passed.
        The table is looked at under its lock: with several workers that brings it up to date
        from the store (the welcome may be another worker's)."""
        deadline = time.monotonic() + WELCOME_WAIT
        while time.monotonic() < deadline:
            async with self.ctx.tables.lock(key):
                table = self.ctx.tables.get(key)
                if table is None or table.token != token or table.phase != LOBBY \
                        or not self.welcomes_pending(table):
                    return
            await asyncio.sleep(WELCOME_POLL)

    async def _minimum(self, table: Table) -> int:
        """The beans needed to sit: the room's minimum (RULES.md §8), none at a match's
        table (the room's stake does not apply inside a match; its entry fee is checked when
        it starts)."""
        if table.competition.match_options is not None:
            return 0
        return (await self.ctx.config(table)).min_balance

    def seated_elsewhere(self, user_id: int, lang: str) -> str | None:
        """Why ``user_id`` cannot sit down, in ``lang``, when they sit at another table: a
        practice deal is left in the private chat (``/leave`` there), another table in its own
        group; ``None`` when they sit nowhere."""
        return _sits_elsewhere(self.ctx.tables.table_of(user_id), lang)

    async def _stored_elsewhere(self, key: str, user_id: int, lang: str) -> str | None:
        """:meth:`seated_elsewhere` on the stored tables other than ``key`` (with several
        workers, whose copies here may be older); ``None`` with one process."""
        shared = self.ctx.seat_claims
        return _sits_elsewhere(await shared.table_of(user_id, key) if shared is not None
                               else None, lang)

    def _seat_refusal(self, table: Table, user_id: int, lang: str) -> str | None:
        if table.phase != LOBBY or self.ctx.tables.get(table.key) is not table:
            return t("pop.game_started", lang)
        if table.seat_of(user_id) is not None:
            return t("pop.already_seated", lang)
        elsewhere = self.seated_elsewhere(user_id, lang)
        if elsewhere is not None:
            return elsewhere
        if table.is_full():
            return t("pop.table_full", lang)
        return None

    def arm_expiry(self, table: Table) -> None:
        """Close the lobby when ``table.progress.lobby_deadline`` passes unless a deal started."""
        stamp = timers.Stamp(table.key, table.token)
        self.ctx.outlet.arm(timers.LOBBY, stamp, table.progress.lobby_deadline or time.time(),
                            self.on_expired)

    async def on_expired(self, stamp: timers.Stamp) -> None:
        """Timer: the lobby nobody started closes and says so."""
        async with self.ctx.tables.lock(stamp.key):
            table = self.ctx.tables.get(stamp.key)
            if table is not None and table.phase == LOBBY and table.token == stamp.token:
                await self.expire(table)

    async def expire(self, table: Table) -> None:
        """Close an expired lobby (lock held)."""
        await self.ctx.close_table(table, views.lobby_closed_text(table, "expired"))

    async def close(self, table: Table, by: str) -> None:
        """The opener or an admin (named ``by``) closes the lobby (lock held)."""
        await self.ctx.close_table(table, views.lobby_closed_text(table, "closed", by))

    async def leave(self, table: Table, user_id: int, *, close_empty: bool = True) -> bool:
        """Take the player's seat away (lock held); ``False`` if they did not sit here. The
        opener role passes to the next human; a lobby without humans closes, unless
        ``close_empty`` is false (a seat given up because the bot cannot write to its player:
        the lobby stays open with its deep-link button, for them and for others)."""
        seat = table.seat_of(user_id)
        if seat is None:
            return False
        del table.seats[seat]
        humans = [s for _, s in table.humans()]
        if not humans and close_empty:
            await self.ctx.close_table(table, views.lobby_closed_text(table, "empty"))
            return True
        if humans and table.opener_id == user_id:
            table.opener_id = humans[0].user_id
        await self.refresh(table)
        return True

    @staticmethod
    def bot_refusal(table: Table, lang: str) -> str | None:
        """Why Add bot cannot seat a bot at lobby ``table`` now (pop-up in ``lang``), ``None``
        when it can: the table is full, or no player sits at it yet (a table of bots alone
        would play itself in the group: a player sits down first)."""
        if table.is_full():
            return t("pop.table_full", lang)
        if next(table.humans(), None) is None:
            return t("pop.need_player", lang)
        return None

    def add_bot(self, table: Table) -> bool:
        """Seat a bot (lock held); ``False`` when the table is full (then nothing changed; the
        caller refreshes the lobby after answering; :meth:`bot_refusal` says why first). The
        bot is numbered by its seat, or the next number no bot here has; it keeps the number
        while players before it leave."""
        if table.is_full():
            return False
        index = len(table.seats)
        taken = {views.bot_number(s, i) for i, s in enumerate(table.seats) if s.is_bot}
        number = index + 1
        while number in taken:
            number += 1
        table.seats.append(Seat(None, t("seat.bot", table.lang, n=number), True))
        return True

    async def start_refusal(self, table: Table, lang: str) -> tuple[str | None, str | None]:
        """Why Start cannot deal now: ``(pop-up in lang, message for the audience)``, each
        ``None`` when there is none; ``(None, None)``: it may. The room's minimum balance is
        checked again (beans may have gone since the players sat down).

        A deal never starts on terms the players were not shown: the lobby draws the seat count
        (``players``, RULES.md §11), the bidding preset and the stake (RULES.md §8) it last took
        from the group's settings (:meth:`follow_settings` takes a change at once). When the
        settings say otherwise now (a change this lobby has not taken yet, e.g. made by another
        worker process or straight in the store), the lobby takes them, is drawn again, and
        Start is refused politely (``pop.rules_changed``: check the table and press Start
        again); surplus bot seats go, surplus players must leave (``pop.too_many_seats``).
        A seat whose beans a running deal elsewhere holds (:meth:`held_seats`) is refused too.
        The caller deals with :attr:`shown_config`, the snapshot the players saw.
        """
        config = await self.ctx.config(table)
        if self.terms_differ(table, config):
            await self._take_terms(table, config, at_once=False)  # the pop-up comes first
            return t("pop.rules_changed", lang), None
        self.shown_config[table.key] = config
        return await self._seats_refusal(table, lang, config.min_balance)

    async def start_check(self, table: Table, lang: str) -> tuple[str | None, str | None]:
        """What :meth:`start_refusal` would answer, read on this process's copy of the table
        without changing anything (no lock needed): a Start's answer before its table's lock
        (a press is answered first, never behind a lock whose holder may wait for
        the token's budget). The seats are counted as :meth:`promised_seats` says: a Join
        answered as seated, here or on another worker, whose seat is not stored yet counts as
        taken (the deal waits for it: :meth:`seats_pending`, :meth:`await_seats`), and a seat
        whose player's Leave is on its way (:meth:`leaving`: a Start answered as starting with
        that Leave in the same batch of updates did not start) as free. When the store shows
        the seats taken but this copy does not (another worker stored a Join's seat after this
        copy was brought up to date), the copy is not asked: the Start is answered as starting
        and its block decides on the stored table (a refusal there is told in the group). The
        block then calls :meth:`start_refusal`, which takes changed terms and decides again."""
        config, promised = await asyncio.gather(self.ctx.config(table),
                                                self.promised_seats(table))
        if self.terms_differ(table, config):
            return t("pop.rules_changed", lang), None
        if promised is not None and sum(promised) < table.options.seat_count:
            return self._too_few(table, lang), None
        if promised is not None and (promised[0] < table.options.seat_count
                                     or promised[0] != len(table.seats)):
            # seats on their way, or stored since this copy was read: the block decides
            # again on the stored table under the lock (and tells the group a refusal)
            return None, None
        return await self._seats_refusal(table, lang, config.min_balance)

    async def seats_pending(self, table: Table) -> bool:
        """Lobby ``table`` is short of seats and a Join answered as seated is still on its way
        to one (lock held: this copy is the stored table): a Start answered as starting waits
        for it (:meth:`await_seats`)."""
        if len(table.seats) >= table.options.seat_count:
            return False
        promised = await self.promised_seats(table)
        return promised is not None and promised[1] > 0

    async def await_seats(self, key: str, token: str) -> None:
        """Wait (no lock held) until no Join answered as seated at lobby ``key`` (its
        ``token``) is on its way to its seat any more (a claim of a worker that died runs out
        by itself), or the lobby moved on; then for the welcomes on their way
        (:meth:`await_welcomes`)."""
        while True:
            table = self.ctx.tables.get(key)
            if table is None or table.token != token or table.phase != LOBBY:
                return
            promised = await self.promised_seats(table)
            if promised is None or promised[1] == 0:
                break
            await asyncio.sleep(WELCOME_POLL)
        await self.await_welcomes(key, token)

    async def _seats_refusal(self, table: Table, lang: str, room_minimum: int | None = None
                             ) -> tuple[str | None, str | None]:
        """Start's refusal for the seats: too many, too few, or players short of beans (the
        room's minimum ``room_minimum`` when read already; at a match's table its entry fee,
        ``match.need_fee``, so the press is answered with the refusal the match's start would
        give, not as starting)."""
        if len(table.seats) > table.options.seat_count:
            return t("pop.too_many_seats", lang, n=table.options.seat_count), None
        if not table.is_full():
            return self._too_few(table, lang), None
        if next(table.humans(), None) is None:
            return t("pop.need_player", lang), None
        if table.competition.match_options is not None:
            popup, notice = await self._fee_refusal(table, lang)
            if popup is not None:
                return popup, notice
        (minimum, short), held = await asyncio.gather(
            self.lacking_beans(table, room_minimum), self.held_seats(table))
        if short:
            return (self._need_beans_text(table, short, minimum, lang)[:200],
                    self._need_beans_text(table, short, minimum, table.lang))
        if held:
            return (self._beans_held_text(table, held, lang)[:200],
                    self._beans_held_text(table, held, table.lang))
        return None, None

    async def _fee_refusal(self, table: Table, lang: str) -> tuple[str | None, str | None]:
        """A match's Start refused for the humans who cannot pay its entry fee now (RULES.md
        §10; the store decides again when the match starts), as :meth:`Matches.start` says it:
        ``(pop-up in lang, message for the audience)``, or ``(None, None)``."""
        fee = int((table.competition.match_options or {}).get("entry_fee", 0))
        humans = [(i, seat.user_id) for i, seat in table.humans() if seat.user_id is not None]
        if not fee or not humans:
            return None, None
        balances = await asyncio.gather(*(self.ctx.store.balance(user) for _, user in humans))
        short = [i for (i, _), balance in zip(humans, balances, strict=True) if balance < fee]
        if not short:
            return None, None

        def text(in_lang: str) -> str:
            names = join_names((views.seat_name(table.seats[i], i, in_lang) for i in short),
                               in_lang)
            return t("match.need_fee", in_lang, names=names, fee=grouped(fee))

        return text(lang)[:200], text(table.lang)

    @staticmethod
    def _too_few(table: Table, lang: str) -> str:
        """Start's pop-up when seats are empty."""
        return t("pop.need_four" if table.options.seat_count == 4 else "pop.need_three", lang)

    async def follow_settings(self, chat_id: int) -> None:
        """An admin changed the group's settings: every open lobby of the chat (each forum
        topic's too) takes the new seat count, bidding preset, stake and language at once and
        is drawn again before this returns (takes each table's lock)."""
        keys = [table.key for table in self.ctx.tables
                if table.chat_id == chat_id and table.phase == LOBBY and not table.private]
        for key in keys:
            async with self.ctx.tables.lock(key):
                table = self.ctx.tables.get(key)
                if table is None or table.phase != LOBBY:
                    continue
                config = await self.ctx.config(table)
                if self.terms_differ(table, config) or table.lang != config.lang:
                    table.lang = config.lang
                    await self._take_terms(table, config)

    async def deal(self, table: Table) -> None:
        """Deal at the table whose Start :meth:`start_refusal` just accepted, with the settings
        snapshot its lobby showed (lock held)."""
        await self.deals.deal(table, self.shown_config.pop(table.key, None))

    @staticmethod
    def terms_differ(table: Table, config: TableConfig) -> bool:
        """The lobby shows other terms than ``config`` would deal: seats, preset, and (outside
        a competition, whose lobby shows no stake) the stake."""
        options = table.options
        if config.rules.seats != options.seat_count or preset_name(config.rules) != options.preset:
            return True
        return table.competition.match_options is None and config.stake != table.options.stake

    async def _take_terms(self, table: Table, config: TableConfig, *,
                          at_once: bool = True) -> None:
        """The lobby takes ``config``'s seats, preset and stake and is drawn again
        (``at_once``: before returning, else through the outbox)."""
        table.options.seat_count = config.rules.seats
        table.options.preset = preset_name(config.rules)
        table.options.stake = config.stake
        self._drop_surplus_bots(table)
        await self.refresh(table, at_once=at_once)

    @staticmethod
    def _drop_surplus_bots(table: Table) -> None:
        """Take bot seats away from the end while the table has more seats than it should."""
        for i in reversed(range(len(table.seats))):
            if len(table.seats) <= table.options.seat_count:
                break
            if table.seats[i].is_bot:
                del table.seats[i]

    @staticmethod
    def stakes_beans(table: Table) -> bool:
        """A player's beans are at stake at lobby ``table``: a group's table for beans, or a
        match's with an entry fee (a practice or challenge table, and a free match, move no
        beans, RULES.md §8, §10)."""
        if table.private:
            return False
        match_options = table.competition.match_options
        return match_options is None or bool(match_options.get("entry_fee"))

    async def beans_held(self, table: Table, user_id: int, lang: str) -> str | None:
        """Why ``user_id`` cannot sit at ``table`` (in ``lang``) while a running deal for
        beans holds their beans (``Store.deal_hold``): they may still sit there or have left
        it (RULES.md §9: a leaver's seat plays on and the escape is settled against what they
        held at its start), and beans lost at a second table first would leave that deal
        nothing to pay its winners with. Names the group of that deal when this process knows
        its table. ``None`` when nothing is held, or ``table`` puts no beans at stake
        (:meth:`stakes_beans`: practising and challenges stay open)."""
        if not self.stakes_beans(table):
            return None
        hold = await self.ctx.store.deal_hold(user_id)
        if hold is None:
            return None
        there = self.ctx.tables.get(hold.table_key)
        if there is None or not there.title:
            return t("pop.beans_held_any", lang)
        return t("pop.beans_held", lang, group=views.short_name(there.title))

    async def held_seats(self, table: Table) -> list[int]:
        """The human seats of lobby ``table`` whose beans a running deal holds (Start's
        check of :meth:`beans_held`; empty when ``table`` puts no beans at stake)."""
        if not self.stakes_beans(table):
            return []
        humans = [(i, seat.user_id) for i, seat in table.humans() if seat.user_id is not None]
        holds = await asyncio.gather(*(self.ctx.store.deal_hold(user) for _, user in humans))
        return [i for (i, _), hold in zip(humans, holds, strict=True) if hold is not None]

    @staticmethod
    def _beans_held_text(table: Table, held: list[int], lang: str) -> str:
        names = join_names((views.seat_name(table.seats[i], i, lang) for i in held), lang)
        return t("pop.start_beans_held", lang, names=names)

    @staticmethod
    def _need_beans_text(table: Table, short: list[int], minimum: int, lang: str) -> str:
        names = join_names((views.seat_name(table.seats[i], i, lang) for i in short), lang)
        return t("pop.start_need_beans", lang, names=names, minimum=grouped(minimum))

    async def lacking_beans(self, table: Table, room_minimum: int | None = None
                            ) -> tuple[int, list[int]]:
        """The room's minimum balance to sit (RULES.md §8; ``room_minimum``: the group's
        setting, read already) and the human seats below it now (lock held)."""
        if room_minimum is None or table.competition.match_options is not None:
            minimum = await self._minimum(table)
        else:
            minimum = room_minimum
        humans = [(i, seat.user_id) for i, seat in table.humans() if seat.user_id is not None]
        balances = await asyncio.gather(*(self.ctx.store.balance(user) for _, user in humans))
        return minimum, [i for (i, _), balance in zip(humans, balances, strict=True)
                         if balance < minimum]

    async def reopen(self, table: Table, seats: list[Seat], opener: int | None) -> None:
        """Back to the lobby after a result (Play again found a free seat, :mod:`bot.game.again`):
        a fresh lobby message with ``seats`` seated (the players' own languages kept) and the
        group's current settings, ``opener`` its opener (lock held)."""
        ctx = self.ctx
        config = await ctx.config(table)
        table.seats = [Seat(s.user_id, s.name, s.is_bot, lang=s.lang) for s in seats]
        # the seats change: the last winner's seat means nobody now
        table.progress.last_winner = None
        table.options.seat_count = config.rules.seats
        self._drop_surplus_bots(table)
        table.lang = config.lang
        table.options.preset = preset_name(config.rules)
        table.options.stake = config.stake
        ctx.tables.retoken(table)
        table.phase = LOBBY
        table.opener_id = opener
        table.progress.deal_id = None
        table.state = None
        table.progress.deadline = None
        table.messages.join_link = False
        table.progress.ready = []
        table.messages.hand_message_ids = []
        table.messages.rendered.clear()
        table.reset_turn_memory()
        await self.post_lobby(table)
