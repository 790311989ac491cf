"""Competitions at a table (RULES.md §10): the match lobby's options, the start with
its entry fees, each deal's standings, the next deal or the end with its prizes, an admin's
cancel with refunds, and the resumption after a restart.

The rules are :mod:`engine.match` (pure); this module runs them on a table. The deal
driver calls it at three points (:class:`bot.game.deal.MatchHook`): the rules of a match deal (a
knock-out has no multiplier cap), the settlement of a finished deal (no beans; the deal and the
match's new state in one store transaction) and the moment the result is posted (the next deal,
or the end). Everything else is a single deal as usual.

Restart-safe: the store holds the match's state after every deal (``Store.settle_match_deal``),
so a restart resumes the running deal as any deal (:mod:`bot.game.restore`) and a match caught
between two deals deals the next one (:meth:`Matches.restore`); the time limit is wall-clock
time from the start. A running match whose table is gone is cancelled with refunds. With
several workers, the match's state is read from the store whenever it is needed (no
worker keeps it), and a worker that dies between two deals leaves the table to the watchdog,
whose worker deals on (:meth:`Matches.resume`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from bot.core.i18n import join_names, t
from bot.core.numbers import grouped
from bot.core.table import DEAL, LOBBY, RESULT, Seat, Table
from bot.features.match import views as match_views
from bot.game import timers
from bot.game.context import GameContext
from bot.game.deal import RESULT_RETRY_SECONDS, DealDriver, Standings, seat_facts
from bot.game.drawing import Drawing
from bot.game.lobby import Lobby, Person
from bot.game.timers import Stamp
from bot.presentation import views
from bot.store import MatchNotRunning, MatchPayout, MatchRefused, SeatRecord, Settlement
from engine import DealState
from engine.match import (
    DEFAULT_TARGET,
    FIRST_TO,
    FIXED,
    KNOCKOUT,
    MatchError,
    MatchOptions,
    MatchState,
    payout,
)
from engine.presets import Rules
from images.standings import render_standings

log = logging.getLogger(__name__)


class Matches:
    """The competitions of every table (see the module docstring)."""

    def __init__(self, ctx: GameContext, lobby: Lobby, deals: DealDriver) -> None:
        self.ctx = ctx
        self.lobby = lobby
        self.deals = deals
        deals.match = self
        lobby.match_lobby_view = match_views.lobby_view
        #: match id → the seat names of its standings (as at the start; they never change).
        self._names: dict[int, list[str]] = {}
        #: UTC seconds now (the time limit is wall-clock time); a test hook.
        self.clock: Callable[[], float] = time.time

    # --- The lobby -----------------------------------------------------------------------------

    async def open(self, chat_id: int, thread_id: int | None, title: str, person: Person,
                   fmt: str, *, entry_fee: int = 0,
                   options: MatchOptions | None = None) -> tuple[Table | None, str | None]:
        """Open a match lobby (``/match``: fixed deals, ``/firstto``: first to N points,
        ``/knockout``; ``fmt`` the kind, :attr:`engine.match.MatchOptions.kind`) with
        ``options`` (typed ones), else the defaults of RULES.md §10 and ``entry_fee`` beans;
        as :meth:`bot.game.lobby.Lobby.open_table`. The redeal rule (RULES.md §2.3) starts
        as the group's (``forced_bid`` where the group left it at its default) unless typed;
        a four-player group's match has none (it never deals again, §11), and a typed one is
        refused there: ``(None, why)``.

        Raises:
            MatchError: a fee out of :data:`engine.match.LIMITS`, or options of another
                kind.
        """
        if options is None:
            options = (MatchOptions(FIXED, target=DEFAULT_TARGET, entry_fee=entry_fee)
                       if fmt == FIRST_TO else MatchOptions(fmt, entry_fee=entry_fee))
        elif options.kind != fmt:
            raise MatchError(f"options of a {options.kind} match")
        config = await self.ctx.config(Table(chat_id, thread_id,
                                             self.ctx.settings.default_language))
        rules = config.match_rules or config.rules
        if rules.variant == "four":  # 逼打: never deals again, so no redeal rule (RULES.md §11)
            if options.redeal_rule is not None:
                return None, t("match.redeal_four", config.lang)
        elif options.redeal_rule is None:
            options = options.with_option("redeal_rule", rules.redeal_rule)
        return await self.lobby.open_table(chat_id, thread_id, title, person,
                                           match_options=options.to_dict())

    @staticmethod
    def set_option(table: Table, payload: str) -> bool:
        """An option button (``deals+``, ``fee-``…) in the lobby (lock held); ``False`` when
        nothing changed (an end of the range, or an option this format lacks)."""
        if table.phase != LOBBY or table.competition.match_options is None:
            return False
        options = MatchOptions.from_dict(table.competition.match_options)
        try:
            changed = match_views.stepped(options, payload)
        except (KeyError, MatchError):
            return False
        if changed == options:
            return False
        table.competition.match_options = changed.to_dict()
        return True

    async def option_refusal(self, table: Table, payload: str, lang: str) -> str | None:
        """Why the option button ``payload`` may not change match lobby ``table`` now (a
        pop-up in ``lang``), ``None`` when it may (lock held): the entry fee is not raised
        once a player besides the opener sits, or a Join of theirs answered as seated is on
        its way to a seat (:meth:`bot.game.lobby.Lobby.promised_seats`). A fee raised under
        them would take more beans at the Start than they joined for (three ``fee+`` presses
        and a Start took 1,000 beans from players who joined at 100).

        The fee is fixed rather than the seats un-readied because the lobby has no readiness
        to take back: a Join is a player's assent to the terms the lobby shows, and the
        opener's Start deals every seat at once (Play again's own answers live under a result,
        and a lobby shows a changed stake without asking anyone again). Lowering the fee stays
        open (it costs the seated less than they accepted; a Start refused because somebody
        cannot pay is answered by lowering it), and so do the options that take no beans
        (deals, chips, chip base, time limit, rises)."""
        if table.competition.match_options is None or not payload.startswith("fee"):
            return None
        options = MatchOptions.from_dict(table.competition.match_options)
        try:
            fee = match_views.stepped(options, payload).entry_fee
        except (KeyError, MatchError):
            return None  # refused by set_option
        if fee <= options.entry_fee:
            return None
        others = any(seat.user_id != table.opener_id for _, seat in table.humans())
        promised = None if others else await self.lobby.promised_seats(table)
        if others or (promised is not None and promised[1] > 0):
            return t("match.pop_fee_fixed", lang)
        return None

    async def start(self, table: Table) -> tuple[str, str] | None:
        """Start the match of a full lobby (lock held): the match record with every human's
        entry fee (one store transaction), then its first deal. ``None`` when started, else
        ``(pop-up in the group's language, message for the audience)`` naming who cannot pay
        (or whose beans a running deal holds); nothing changed then."""
        assert table.competition.match_options is not None
        options = MatchOptions.from_dict(table.competition.match_options)
        lang = table.lang
        names = [views.seat_name(s, i, lang) for i, s in enumerate(table.seats)]
        records = [SeatRecord(None, names[i], True) if s.is_bot else SeatRecord(s.user_id, s.name)
                   for i, s in enumerate(table.seats)]
        state = MatchState(options, tuple(not s.is_bot for s in table.seats), self.clock())
        try:
            match_id = await self.ctx.store.start_match(
                table.key, table.chat_id, options.format, options.to_dict(), records,
                options.entry_fee, _json(state))
        except MatchRefused as exc:
            who = join_names((names[i] for i, s in enumerate(table.seats)
                               if s.user_id in exc.user_ids), lang)
            key = "match.need_fee" if exc.code == "match_fee" else "match.held"
            text = t(key, lang, names=who, fee=grouped(options.entry_fee))
            return text[:200], text
        table.competition.match_id = match_id
        self._names[match_id] = names
        await self.deals.deal(table)
        return None

    # --- The driver's hooks (bot.game.deal.MatchHook) ------------------------------------------

    def rules(self, table: Table, rules: Rules) -> Rules:
        """The rules of a match deal: those of the match's first deal, taken from the group's
        settings when the match started (every deal of a match is played at its table, so
        ``table.state`` is the match's last deal from the second deal on, after a restart too);
        a settings change during the match (seat count, bidding, house rules) counts from the
        next match, so every deal of a competition is played by the same rules and seats. A
        knock-out's deals have no multiplier cap (RULES.md §10, "no cap"). The match's own
        redeal rule (RULES.md §2.3, :attr:`engine.match.MatchOptions.redeal_rule`)
        replaces the group's; none (a match stored before the option) keeps the group's, and a
        four-player deal never has one (§11)."""
        if table.state is not None:
            return table.state.rules
        options = table.competition.match_options or {}
        redeal_rule = options.get("redeal_rule")
        if redeal_rule is not None and rules.variant != "four":
            rules = replace(rules, redeal_rule=redeal_rule)
        if options.get("format") == KNOCKOUT:
            return replace(rules, multiplier_cap=None)
        return rules

    async def settle(self, table: Table, state: DealState) -> tuple[Settlement, Standings]:
        """Record the finished deal in the match (the escape result's points; leavers
        forfeit) and settle it with no beans, in one store transaction with the table's data;
        returns the settlement and the standings (text and picture) for the result message
        (lock held)."""
        match_id = _match_id(table)
        result = state.result
        assert result is not None and table.progress.deal_id is not None
        before = await self._state(match_id)
        after = before.record(table.progress.deal_id, result.points, left=result.escaped,
                              bid=result.base, landlord=result.landlord)
        settlement = await self.ctx.store.settle_match_deal(
            match_id, table.progress.deal_id, list(result.points), state.to_json(), _json(after),
            seat_facts(state), version=state.version, table=table.to_dict())
        return settlement, await self._standings(table, after)

    async def _standings(self, table: Table, state: MatchState) -> Standings:
        """The standings (text and picture) of the match in ``state`` for a result message."""
        names = await self._seat_names(_match_id(table))
        now = self.clock()
        return Standings(match_views.standings_text(state, names, table.lang, now),
                         match_views.standings_scene(state, names, table.lang, now))

    async def deal_over(self, table: Table) -> None:
        """After a match deal's result was sent (lock held; the result is due until then,
        ``DealProgress.result_due``, and its send calls this: nothing happens while it is due, so a
        result that failed to send is posted again, and a worker that dies before leaves it
        to the next, :meth:`resume`), seats that left, and in a knock-out's extra deals seats
        that are out, are played by the AI from now on (the player is free to go; an out
        seat's chips no longer move), then the next deal is dealt, or the match ends. In a
        four-player match a seat that has lost three deals as landlord may only pass in the
        next deal's bidding (RULES.md §11, :meth:`MatchState.barred`)."""
        if table.progress.result_due:
            return
        match_id = _match_id(table)
        state = await self._state(match_id)
        if state.is_over(self.clock()):
            await self._finish(table, state)
            return
        for seat, (gone, out) in enumerate(zip(state.forfeited, state.out(), strict=True)):
            player = table.seats[seat]
            if (gone or out) and not player.is_bot:
                table.seats[seat] = Seat(None, player.name, True)
        if state.next_is_extra(self.clock()):
            self.deals.say(table, t("match.extra_deal", table.lang))
        table.messages.message_id = None  # the result stays; the next deal's table goes below it
        table.messages.message_photo = False
        await self.deals.deal(table, barred=state.barred())

    # --- The end -------------------------------------------------------------------------------

    async def _finish(self, table: Table, state: MatchState) -> None:
        """Pay the pool out once, post the final standings (they stay in the chat) and free
        the table once they were sent (lock held). Until then the table stays stored with
        ``result_due`` (as a deal's result): a worker that dies after the payout
        leaves the post to the next (:meth:`resume` runs this again: the payout is not
        repeated, the post is), a send that failed is tried again every
        :data:`bot.game.deal.RESULT_RETRY_SECONDS`; at least once."""
        match_id = _match_id(table)
        paid = payout(state)
        standings = state.standings()
        place = {s.seat: s.place for s in standings}
        places = [place[i] for i in range(state.seats)]
        won = [place[i] == 1 and not state.forfeited[i] for i in range(state.seats)]
        refunded = all(p is None for p in state.places())
        result = {"places": places, "scores": state.scores(), "forfeited": list(state.forfeited),
                  "refunded": refunded}
        payment = await self.ctx.store.finish_match(match_id, paid, places, won, result,
                                                    _json(state))
        names = await self._seat_names(match_id)
        text = match_views.final_text(state, names, payment.paid, table.lang, refunded=refunded)
        drawing = Drawing(text, None)
        if table.options.pictures:
            prizes = [0] * state.seats if refunded else list(payment.paid)
            scene = match_views.standings_scene(state, names, table.lang, self.clock(),
                                                paid=prizes)
            drawing = Drawing(text, None, scene, partial(render_standings, scene),
                              "standings.png")
        key = f"{table.key}#match{match_id}"
        table.progress.result_due = True
        await self.ctx.save(table)

        async def sent(message_id: int) -> None:
            async with self.ctx.tables.lock(table.key):
                if self.ctx.tables.get(table.key) is table \
                        and table.competition.match_id == match_id:
                    self._forget(match_id)
                    await self._free(table)

        async def retry(stamp: Stamp) -> None:
            async with self.ctx.tables.lock(stamp.key):
                if self.ctx.tables.get(stamp.key) is table and table.token == stamp.token \
                        and table.progress.result_due and table.competition.match_id == match_id:
                    if self.ctx.outlet.posting(key):
                        arm()  # still on its way (it may fail yet)
                    else:
                        await self.resume(table)

        def arm() -> None:
            self.ctx.outlet.arm(timers.RESULT, Stamp(table.key, table.token),
                                time.time() + RESULT_RETRY_SECONDS, retry)

        if not self.ctx.outlet.posting(key):
            self.ctx.outlet.post(key, table.chat_id, drawing, table.thread_id, sent=sent)
        arm()

    async def _free(self, table: Table) -> None:
        """The table's match is over: forget the table (its messages stay)."""
        self.ctx.cancel_timers(table.key)
        self.ctx.tables.remove(table)
        await self.ctx.store.delete_table(table.key)

    def _forget(self, match_id: int) -> None:
        self._names.pop(match_id, None)

    async def cancel(self, table: Table) -> MatchPayout | None:
        """An admin's /stop at a match's table (lock held): the match is cancelled and every
        fee refunded, exactly once (its running deal is cancelled in the same transaction);
        ``None`` when the table plays no running match. The caller stops the deal's hands and
        closes the table."""
        match_id = table.competition.match_id
        if match_id is None:
            return None
        try:
            refund = await self.ctx.store.cancel_match(match_id)
        except MatchNotRunning:
            return None
        self._forget(match_id)
        return refund

    # --- After a restart -----------------------------------------------------------------------

    async def restore(self) -> None:
        """Resume every running match after a start (the tables are restored first; with
        several workers, when a worker starts): a match between two deals deals the next one
        (or ends); a match whose table is gone or plays another match is cancelled with
        refunds. Each under its table's lock (with several workers that lock loads the stored
        table, and waits for a worker busy with it)."""
        for record in await self.ctx.store.running_matches():
            async with self.ctx.tables.lock(record.table_key):
                table = self.ctx.tables.get(record.table_key)
                if table is None or table.competition.match_id != record.match_id \
                        or table.phase not in (DEAL, RESULT):
                    log.warning("cancelling match %s of %s: its table is gone",
                                record.match_id, record.table_key)
                    with contextlib.suppress(MatchNotRunning):  # it finished meanwhile
                        await self.ctx.store.cancel_match(record.match_id)
                    continue
                self._names[record.match_id] = [s.name for s in record.seats]
                if table.phase == RESULT:
                    await self.resume(table)
        running = {record.match_id for record in await self.ctx.store.running_matches()}
        for table in list(self.ctx.tables):  # a finished match's final standings still due
            match_id = table.competition.match_id
            if match_id is None or match_id in running or table.phase != RESULT:
                continue
            async with self.ctx.tables.lock(table.key):
                if self.ctx.tables.get(table.key) is table and table.phase == RESULT:
                    await self.resume(table)

    async def resume(self, table: Table) -> None:
        """A match's table left between two deals (its worker died after the deal was settled,
        or the bot stopped): the deal's result is posted if it was not sent yet, then the next
        deal is dealt, or the match ends; a table whose match ended already (finished or
        cancelled before the table was freed) is freed (lock held)."""
        match_id = _match_id(table)
        record = await self.ctx.store.get_match(match_id)
        if record.status == "finished" and table.progress.result_due:
            # paid out; the final standings were not (known to be) sent: post them again
            await self._finish(table, MatchState.from_dict(_loads(record.state_json)))
            return
        if record.status != "running":
            self._forget(match_id)
            await self._free(table)
            return
        if table.progress.result_due and not await self._post_due_result(
                table, MatchState.from_dict(_loads(record.state_json))):
            table.progress.result_due = False  # no result to post
        await self.deal_over(table)

    async def _post_due_result(self, table: Table, state: MatchState) -> bool:
        """Post the result of the table's last deal, with the standings after it (``state``:
        the match as stored, which that deal's settlement was the last to change), when its
        worker died before it was sent or its send failed (lock held); its send deals on
        (:meth:`deal_over`). At least once: a worker killed after it was sent and before the
        next deal was stored gets it posted twice. ``False`` when there is no result to post
        (nothing will deal on)."""
        if table.progress.deal_id is None:
            return False
        if self.ctx.outlet.posting(f"{table.key}#result"):
            return True  # on its way from this process: its send deals on
        record = await self.ctx.store.get_deal(table.progress.deal_id)
        deal = DealState.from_json(record.state_json)
        if deal.result is None:
            return False
        table.state = deal
        points = list(record.result["points"]) if record.result else list(deal.result.points)
        self.deals.post_result(table, points, [0] * len(points),
                               await self._standings(table, state))
        return True

    async def _state(self, match_id: int) -> MatchState:
        """The match's state as stored (after its last deal): read every time, so that a
        worker never goes on from a state another worker moved on from."""
        record = await self.ctx.store.get_match(match_id)
        return MatchState.from_dict(_loads(record.state_json))

    async def _seat_names(self, match_id: int) -> list[str]:
        names = self._names.get(match_id)
        if names is None:
            record = await self.ctx.store.get_match(match_id)
            names = self._names[match_id] = [s.name for s in record.seats]
        return names


def _match_id(table: Table) -> int:
    assert table.competition.match_id is not None, f"table {table.key} plays no match"
    return table.competition.match_id


def _json(state: MatchState) -> str:
    return json.dumps(state.to_dict())


def _loads(text: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(text)
    return loaded
