"""Play again keeps the table: 再来一局 / 离开 under a deal's result.

When a deal of single deals ends (:meth:`bot.game.deal.result.Results.finish`), its result carries
two buttons and every human seat has until ``settings.lobby_timeout`` to answer (bot seats are
always ready; ``DealProgress.ready``, stored with the table, the deadline in
``DealProgress.lobby_deadline``):

- once every seated human pressed 再来一局, the next deal starts at once at the same table, same
  seats, no lobby and no second 开始; its first bidder is the next seat (RULES.md §1.4);
- 离开 frees the presser's seat at once; a seat whose player left the deal (RULES.md §9
  escape) is free already;
- at the deadline every seat that did not answer is freed;
- a freed seat sends the others back to the lobby, still seated (a fresh lobby message, 开始
  as usual), or closes the table when no human is left;
- the next deal starts only if every player still has the room's minimum balance (RULES.md §8,
  the check of 开始: :meth:`bot.game.lobby.Lobby.lacking_beans`); a seat below it is freed and
  the group told why; a player who sits at another table now (or is being seated at one, on
  any worker: :meth:`bot.game.lobby.Lobby.keeping`) is freed too;
- a deal never starts on terms the players were not shown (as at 开始): when an admin changed
  the seat count, the bidding preset or the stake since the last deal was dealt
  (:func:`terms_changed`), the table goes back to the lobby with every seat kept, and the lobby
  shows the new terms before anyone presses 开始.

A practice table (``/practice``) works the same with its one human: 再来一局 deals the next
practice deal, 离开 or the deadline forget the table. A match's table offers no Play again: the
match deals on by itself (:mod:`bot.features.match.driver`).
"""

from __future__ import annotations

import logging
import time

from bot.core.i18n import t
from bot.core.numbers import grouped
from bot.core.table import RESULT, Table
from bot.game import timers
from bot.game.config import TableConfig
from bot.game.context import GameContext
from bot.game.deal import DealDriver
from bot.game.lobby import Lobby
from bot.presentation import views

log = logging.getLogger(__name__)


def waiting_names(table: Table, lang: str, besides: int | None = None) -> str:
    """The names of the seats still awaited (:meth:`Table.waiting`) but seat ``besides``, as
    a pop-up lists them (``""``: nobody)."""
    return _names(table, [i for i in table.waiting() if i != besides], lang)


def terms_changed(table: Table, config: TableConfig) -> bool:
    """The group's settings (``config``) would deal a group table on other terms than its last
    deal: seat count, bidding preset or stake (a practice table has no stake and follows its
    settings)."""
    return not table.private and Lobby.terms_differ(table, config)


def _names(table: Table, seats: list[int], lang: str) -> str:
    joiner = "、" if lang.startswith("zh") else ", "
    return joiner.join(views.seat_name(table.seats[i], i, lang) for i in seats)


class PlayAgain:
    """Answers to Play again and their timeout (see the module docstring)."""

    def __init__(self, ctx: GameContext, lobby: Lobby, deals: DealDriver) -> None:
        self.ctx = ctx
        self.lobby = lobby
        self.deals = deals

    @staticmethod
    def offered(table: Table) -> bool:
        """The table waits for answers to Play again."""
        return table.again_offered()

    async def would_deal(self, table: Table) -> bool:
        """Whether the next deal starts once the seats still awaited are ready: no seat was
        freed (nobody left the deal or sits elsewhere now), every player has the room's
        minimum balance and the table is full by the group's rules now (lock held; reads only,
        so that a press can be answered with what it does before it does it)."""
        ctx = self.ctx
        if any(seat.left for seat in table.seats):
            return False
        if any(ctx.tables.table_of(seat.user_id) is not None
               for _, seat in table.humans() if seat.user_id is not None):
            return False
        config = await ctx.config(table)
        if config.rules.seats != len(table.seats) or terms_changed(table, config):
            return False
        return not (await self.lobby.lacking_beans(table))[1]

    async def new_terms(self, table: Table) -> bool:
        """Whether the group's settings changed the terms since the last deal
        (:func:`terms_changed`) other than by adding a seat, which leaves a seat free (the Play
        again pop-up says why the table goes back to the lobby) (lock held; reads only)."""
        config = await self.ctx.config(table)
        return config.rules.seats <= len(table.seats) and terms_changed(table, config)

    def offer_late(self, table: Table) -> bool:
        """Offer Play again now at a table stored before ``DealProgress.ready`` existed, whose
        result shows the button (lock held); ``False`` at a match's table (it deals on by
        itself)."""
        competition = table.competition
        if table.phase != RESULT or competition.match_id is not None or competition.match_options:
            return False
        table.offer_again(time.time() + self.ctx.settings.lobby_timeout)
        self.arm(table)
        return True

    def arm(self, table: Table) -> None:
        """Arm the timeout that frees the seats that did not answer (after a restart too)."""
        stamp = timers.Stamp(table.key, table.token)
        self.ctx.outlet.arm(timers.AGAIN, stamp, table.progress.lobby_deadline or time.time(),
                            self.on_timeout)

    async def ready(self, table: Table, seat: int) -> None:
        """The seat pressed 再来一局 (lock held; the press was answered): the next deal starts
        when nobody else is awaited."""
        table.progress.ready[seat] = True
        if table.waiting():
            await self.ctx.save(table)
            return
        await self._resolve(table, [])

    async def leave(self, table: Table, seat: int) -> None:
        """The seat pressed 离开 (lock held; the press was answered): its seat is freed and the
        others go back to the lobby (or the table closes when no human is left)."""
        await self._resolve(table, [seat])

    async def on_timeout(self, stamp: timers.Stamp) -> None:
        """Timer: the seats that did not answer in time are freed."""
        async with self.ctx.tables.lock(stamp.key):
            table = self.ctx.tables.get(stamp.key)
            if table is None or table.token != stamp.token or not self.offered(table):
                return
            late = table.waiting()
            if late and not table.private:
                self.deals.say(table, t("again.freed_timeout", table.lang,
                                        names=_names(table, late, table.lang)))
            await self._resolve(table, late)

    async def _resolve(self, table: Table, freed: list[int]) -> None:
        """Every seat answered, or ``freed`` seats go: deal the next deal when every seat
        stays and the table is full by the group's rules now, else back to the lobby with the
        seats that stay (lock held)."""
        ctx = self.ctx
        ctx.outlet.cancel(timers.AGAIN, table.key)
        if table.messages.result_message_id is not None:
            await ctx.outlet.strip(table.chat_id, table.messages.result_message_id)
        async with self.lobby.keeping(table) as elsewhere:
            moved = sorted(elsewhere - set(freed))
            if moved and not table.private:  # they sat down elsewhere (a practice deal…)
                self.deals.say(table, t("again.freed_elsewhere", table.lang,
                                        names=_names(table, moved, table.lang)))
            await self._keep(table, set(freed) | elsewhere)

    async def _keep(self, table: Table, gone: set[int]) -> None:
        """:meth:`_resolve` once the seats ``gone`` are known to go (their players claimed)."""
        ctx = self.ctx
        config = await ctx.config(table)
        minimum, short = await self.lobby.lacking_beans(table)
        short = [i for i in short if i not in gone]
        if short and not table.private:
            self.deals.say(table, t("again.freed_beans", table.lang, minimum=grouped(minimum),
                                    names=_names(table, short, table.lang)))
        gone |= set(short)
        stays = [seat for i, seat in enumerate(table.seats) if i not in gone]
        table.progress.ready = []
        table.messages.result_message_id = None
        if not any(not seat.is_bot for seat in stays):
            await self._forget(table)
            return
        if not gone and len(stays) == config.rules.seats and not terms_changed(table, config):
            await self._next_deal(table)
            return
        opener = table.opener_id if any(s.user_id == table.opener_id for s in stays) \
            else next(s.user_id for s in stays if not s.is_bot)
        await self.lobby.reopen(table, stays, opener)

    async def _next_deal(self, table: Table) -> None:
        """The same seats play the next deal; its table message is a new one below the
        result (lock held)."""
        for seat in table.seats:
            seat.left = False
        table.state = None
        table.messages.message_id = None
        table.messages.message_photo = False
        await self.deals.deal(table)

    async def _forget(self, table: Table) -> None:
        """No human stays: forget the table (its messages stay as they are)."""
        self.ctx.cancel_timers(table.key)
        self.ctx.tables.remove(table)
        await self.ctx.store.delete_table(table.key)
