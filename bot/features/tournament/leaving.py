"""Cancel and leaving:
a part of the group tournaments' driver
(:class:`bot.features.tournament.driver.Tournaments`, see its module docstring)."""

from __future__ import annotations

import contextlib

from bot.core.i18n import t
from bot.core.numbers import grouped
from bot.core.table import DEAL, Table, tournament_key
from bot.features.tournament.common import (
    START,
    TIME,
    Part,
    post_key,
    tournament_lang,
    tournament_lock,
)
from bot.store import StoreError


class Leaving(Part):
    """Cancel and leaving."""

    async def cancel(self, tournament_id: int, by: str) -> bool:
        """Cancel an open or running tournament (取消, an admin's /stop): every fee refunded
        once, its running tables closed, the group told. ``False`` when it was not live."""
        async with self.ctx.tables.lock(tournament_lock(tournament_id)):
            record = await self._record(tournament_id)
            if record is None:
                return False
            # the fees taken are read under the lock (taken under it too): the notice, with
            # the refunds, is stored with the cancel
            paid = [e.paid for e in await self.ctx.store.tournament_entries(tournament_id)
                    if e.paid > 0]
            text = t("tour.cancelled", tournament_lang(record), id=tournament_id, by=by,
                     n=len(paid), beans=grouped(sum(paid)))
            refunds = await self.ctx.store.cancel_tournament(
                tournament_id, [(post_key(tournament_id, "cancel"), text)])
            if refunds is None:
                return False
            self.ctx.outlet.cancel(START, tournament_lock(tournament_id))
            self.ctx.outlet.cancel(TIME, tournament_lock(tournament_id))
            if record.status == "open":
                await self.top._redraw_signup(record, closed=text)
            await self.top._stop_tables(tournament_id, int(record.state.get("stage") or 0))
            await self.top._post_stored(tournament_id)
            self.top.refresh_board(tournament_id, now=True)
            return True

    async def _stop_tables(self, tournament_id: int, stage: int) -> None:
        """Stop the tournament's tables (tournament lock held): those of ``stage`` as stored,
        whichever worker deals them (each table's lock loads the stored table here), and any
        other this process holds."""
        keys = {table.key for table in self.ctx.tables
                if table.competition.tournament_id == tournament_id}
        if stage:
            keys |= {tournament_key(tournament_id, stage, row.number)
                     for row in await self.ctx.store.tournament_tables(tournament_id, stage)}
        for key in sorted(keys):
            async with self.ctx.tables.lock(key):
                table = self.ctx.tables.get(key)
                if table is None or table.competition.tournament_id != tournament_id:
                    continue
                if table.phase == DEAL and table.state is not None \
                        and table.progress.deal_id is not None:
                    with contextlib.suppress(StoreError):
                        await self.ctx.store.cancel_deal(table.progress.deal_id,
                                                         table.state.to_json())
                    await self.deals.close_hands(table)
                self.ctx.cancel_timers(table.key)
                self.ctx.tables.remove(table)
                await self.ctx.store.delete_table(table.key)

    def table_of(self, user_id: int) -> Table | None:
        """The running tournament table where ``user_id`` sits (and has not left), if any."""
        for table in self.ctx.tables:
            if table.competition.tournament is not None and table.phase == DEAL:
                seat = table.seat_of(user_id)
                if seat is not None and not table.seats[seat].left:
                    return table
        return None
