"""The group's board and watching (观战):
a part of the group tournaments' driver
(:class:`bot.features.tournament.driver.Tournaments`, see its module docstring)."""

from __future__ import annotations

from functools import partial

from bot.core.i18n import t
from bot.core.table import DEAL, Table, tournament_key
from bot.features.tournament import views
from bot.features.tournament.common import (
    BOARD,
    Part,
    Steps,
    board_lock,
    pictures_on,
    player_names,
    previous_scores,
    tournament_lang,
    tournament_lock,
    tournament_of_lock,
)
from bot.features.tournament.standings import TableStandings
from bot.game import timers
from bot.game.context import GameContext
from bot.game.deal import DealDriver
from bot.game.drawing import Drawing
from bot.game.outlet import Unreachable
from bot.store.tournament_records import TournamentRecord
from engine.tournament import (
    Draw,
)
from images.tournament import (
    render_tournament_board,
)


class Board(Part):
    """The group's board and watching (观战)."""

    def __init__(self, ctx: GameContext, deals: DealDriver, top: Steps) -> None:
        super().__init__(ctx, deals, top)
        #: tournament id → when its board was last drawn (``clock`` seconds).
        self._board_asked: dict[int, float] = {}

    def refresh_board(self, tournament_id: int, *, now: bool = False) -> None:
        """Ask for the group's board to be drawn again: at most once per
        :attr:`board_interval` (a timer draws the last change of a busy minute); ``now``: at
        once (a new stage, the end)."""
        clock = self.top.clock()
        due = self._board_asked.get(tournament_id, 0.0) + self.top.board_interval
        key = tournament_lock(tournament_id)
        if not now and clock < due:
            self.ctx.outlet.arm(BOARD, timers.Stamp(key, ""), due, self._on_board_timer)
            return
        self._board_asked[tournament_id] = clock
        self.top._spawn(self.top._draw_board(tournament_id))

    async def _on_board_timer(self, stamp: timers.Stamp) -> None:
        tid = tournament_of_lock(stamp.key)
        if tid is not None:
            self.top.refresh_board(tid)

    async def _board(self, record: TournamentRecord) -> Drawing | None:
        state = record.state
        stage = state.get("stage")
        if not stage:
            return None
        lang = tournament_lang(record)
        rows = await self.ctx.store.tournament_tables(record.tournament_id, int(stage))
        planned = self._planned(record, state, int(stage), len(state["field"]))
        tables = [(r.number, TableStandings.from_dict(r.state), r.done) for r in rows]
        text = views.board_text(record.tournament_id, planned, tables,
                                state["draw"]["byes"], player_names(state), lang)
        live = record.status == "running"
        status = "" if live else "\n\n" + t(f"tour.board_{record.status}", lang)
        running = [n for n, _, done in tables if not done] if live else []
        markup = views.board_markup(record.tournament_id, running, lang)
        if not pictures_on(record):
            return Drawing(text + status, markup)
        d = state["draw"]
        drawn: Draw[int] = Draw(int(stage), tuple(tuple(x) for x in d["tables"]),
                                tuple(d["byes"]))
        through = views.board_through(planned, drawn, [s for _, s, _ in tables],
                                      [int(p) for p in state["signup"]], previous_scores(state))
        scene = views.board_scene(record.tournament_id, planned, tables, d["byes"],
                                  player_names(state), lang, through=through, status=record.status)
        short = text.split("\n", 1)[0] + status  # the tables are in the picture
        return Drawing(views.caption(text + status, short), markup, scene,
                       partial(render_tournament_board, scene), "tournament_board.png")

    async def _draw_board(self, tournament_id: int) -> None:
        """Draw the group's board as stored now, under the board's lock (:func:`board_lock`)
        with everything read inside it: on any number of workers one board message is sent
        (the next draw edits the one stored) and a board never replaces a newer one."""
        async with self.ctx.tables.lock(board_lock(tournament_id)):
            await self._draw_board_locked(tournament_id)

    async def _draw_board_locked(self, tournament_id: int) -> None:
        record = await self._record(tournament_id)
        if record is None:
            return
        drawing = await self._board(record)
        if drawing is None:
            return
        try:
            shown = await self._present(record, record.board_id, "board", drawing)
        except Unreachable:
            return
        if shown is not None and shown[0] != record.board_id:
            await self.ctx.store.set_tournament_messages(tournament_id, board_id=shown[0])

    async def watch_refusal(self, record: TournamentRecord, number: int, lang: str
                            ) -> str | None:
        """Why 观战 of table ``number`` is refused (the tournament is not running, the table
        is not playing now), in ``lang``; ``None`` when it may be watched. A table this
        process holds is playing when a deal runs there; one it does not hold (with several
        workers, another worker dealt it: :meth:`watch` loads it under its lock) when its
        stored row of the current stage is not done."""
        if record.status != "running":
            return t("tour.pop_closed", lang)
        stage = int(record.state.get("stage") or 0)
        if self.ctx.tables.get(tournament_key(record.tournament_id, stage, number)) is None:
            rows = await self.ctx.store.tournament_tables(record.tournament_id, stage)
            if any(r.number == number and not r.done for r in rows):
                return None
        elif self._playing(record, number) is not None:
            return None
        return t("tour.pop_no_table", lang)

    def _playing(self, record: TournamentRecord, number: int) -> Table | None:
        stage = int(record.state.get("stage") or 0)
        table = self.ctx.tables.get(tournament_key(record.tournament_id, stage, number))
        if table is None or table.phase != DEAL or table.state is None:
            return None
        return table

    async def watch(self, tournament_id: int, number: int, user_id: int) -> bool:
        """观战: ``user_id`` watches running table ``number`` in their private chat: a new
        message there shows the table's picture as its seats see it (public facts only, never
        a hand), edited as the table moves (:meth:`bot.game.deal.DealDriver.update_watch`,
        paced by the outlet) until the table's stage ends, its last picture staying. A member
        watches one table: watching another, or the same again, moves the watch to the new
        message and deletes the old one while its table still plays. The watchers are stored
        with the table (a restart keeps them). ``False`` when the table does not play now."""
        record = await self._record(tournament_id)
        if record is None or record.status != "running":
            return False
        stage = int(record.state.get("stage") or 0)
        key = tournament_key(tournament_id, stage, number)
        for other in self.ctx.tables:  # one watched table per member
            if other.competition.tournament is not None and other.key != key \
                    and user_id in other.messages.watchers:
                async with self.ctx.tables.lock(other.key):
                    old = self.deals.unwatch(other, user_id)
                    if other.phase == DEAL and self.ctx.tables.get(other.key) is other:
                        await self.ctx.save(other)
                        if old is not None:
                            await self.ctx.outlet.delete(user_id, old)
        async with self.ctx.tables.lock(key):
            table = self._playing(record, number)
            if table is None:
                return False
            old = self.deals.watch(table, user_id)
            await self.ctx.save(table)
        if old is not None:
            await self.ctx.outlet.delete(user_id, old)
        return True
