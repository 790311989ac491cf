"""After a restart: restore and resume:
a part of the group tournaments' driver
(:class:`bot.features.tournament.driver.Tournaments`, see its module docstring)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.core.table import DEAL, tournament_key
from bot.features.tournament.common import (
    ANNOUNCE_CLAIM_SECONDS,
    BOARD,
    FINAL,
    POSTS,
    START,
    TIME,
    Part,
    player_names,
    tournament_lock,
)
from bot.game import timers
from bot.store.tournament_records import TournamentRecord


class Restore(Part):
    """After a restart: restore and resume."""

    def timer_callbacks(self) -> dict[str, Callable[[timers.Stamp], Awaitable[None]]]:
        """What fires each kind of this module's timers (rows with several workers)."""
        return {START: self.top._on_start, BOARD: self.top._on_board_timer, TIME: self.top._on_time,
                            FINAL: self.top._on_final, POSTS: self.top._on_posts}

    async def restore(self, *, alone: bool = False) -> None:
        """After a start (a single process's, ``alone``, or a webhook worker's sweep): a final
        ranking not posted yet is posted (``alone``: also one this process claimed before it
        stopped, the send cut short; with several workers one another worker claimed is tried
        again once that claim ran out, :data:`ANNOUNCE_CLAIM_SECONDS` from now); the group
        messages stored with a step and not sent yet (:meth:`_post_due`; the claims as the
        final ranking's); every live tournament as :meth:`resume` leaves it."""
        for record in await self.ctx.store.due_tournament_posts():
            if alone:  # the claims of the process that stopped
                await self.ctx.store.release_tournament_post(record.tournament_id)
                await self.top._post_stored(record.tournament_id)
                continue
            self.top._post_due(record)
            self.top._arm_posts(record)
        for record in await self.ctx.store.unannounced_tournaments(claimed=True):
            if record.announced and not alone:  # another worker's claim: it may be alive
                self.ctx.outlet.arm(FINAL, timers.Stamp(tournament_lock(record.tournament_id),
                                                        ""),
                                    self.top.clock() + ANNOUNCE_CLAIM_SECONDS, self.top._on_final)
                continue
            if record.announced:  # the claim of the process that stopped
                await self.ctx.store.release_tournament_announcement(record.tournament_id)
            self.top._announce(record)
        for record in await self.ctx.store.live_tournaments():
            await self._resume_record(record)

    async def resume(self, tournament_id: int) -> None:
        """Take over tournament ``tournament_id`` as it is stored (its worker died in the middle
        of one of its steps, the watchdog of its lock fired, or a worker starts): an open one's
        timed start armed again (or started, its time having passed); a running one whose start
        was cut short after the fees started (:meth:`start`: stage 1 drawn); a running one's
        tables caught between two deals dealt on, tables whose stored bot table is gone
        restarted, and its stage decided when every table has finished; a finished one whose
        final ranking was neither posted nor claimed gets it posted (:meth:`_announce`) and its
        board drawn; a cancelled one's tables still stored are stopped (its cancel was cut
        short after the refunds). Group messages stored with a step and not sent yet are posted
        first (:meth:`_post_due`). Each step is taken under the locks (the tournament's, each
        table's), reading the store: what another worker did already is not done again."""
        record = await self._record(tournament_id)
        if record is not None and record.posts:
            self.top._post_due(record)
            self.top._arm_posts(record)
        if record is not None and record.status == "finished" and not record.announced:
            async with self.ctx.tables.lock(tournament_lock(tournament_id)):
                record = await self._record(tournament_id)
                if record is not None and not record.announced:
                    self.top._announce(record)
            self.top.refresh_board(tournament_id, now=True)
        elif record is not None and record.status == "cancelled":
            # a cancel cut short after its refunds: its tables stopped (none left: nothing)
            async with self.ctx.tables.lock(tournament_lock(tournament_id)):
                await self.top._stop_tables(tournament_id, int(record.state.get("stage") or 0))
            self.top.refresh_board(tournament_id, now=True)
        elif record is not None and record.status in ("open", "running"):
            await self._resume_record(record)

    async def _resume_record(self, record: TournamentRecord) -> None:
        tid = record.tournament_id
        if record.status == "open":
            start_at = record.options.get("start_at")
            if start_at is not None:
                self.top._arm_start(tid, float(start_at))
            return
        stage = int(record.state.get("stage") or 0)
        if not stage:  # its start was cut short after the fees
            await self.top.start(tid)
            return
        ends_at = record.state.get("ends_at")
        if ends_at is not None and record.state.get("time_up") != stage:
            self.top._arm_time(tid, stage, float(ends_at))
        rows = await self.ctx.store.tournament_tables(tid, stage)
        for row in rows:
            if row.done:
                continue
            key = tournament_key(tid, stage, row.number)
            table = self.ctx.tables.get(key)
            if table is not None and table.phase == DEAL:
                continue  # its running deal was restored as any deal
            if table is not None:
                self.ctx.tables.remove(table)
            await self.top._deal_table(record, stage, row.number, row.players,
                                       player_names(record.state))
        self.top._spawn(self.top._stage_check(tid, stage))
