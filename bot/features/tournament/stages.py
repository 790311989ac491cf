"""A stage's draw and its tables dealt, and the deal driver's hooks:
a part of the group tournaments' driver
(:class:`bot.features.tournament.driver.Tournaments`, see its module docstring)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.core.table import DEAL, Competition, Seat, Table, tournament_key
from bot.features.tournament import views
from bot.features.tournament.common import (
    Part,
    player_names,
    post_key,
    record_preset,
    time_up_for,
    tournament_lang,
)
from bot.features.tournament.standings import TableStandings
from bot.game.deal import Standings
from bot.store import Settlement
from bot.store.tournament_records import TournamentRecord, TournamentTable
from engine import DealState
from engine.presets import Rules
from engine.tournament import (
    draw,
    start_scores,
)


class Stages(Part):
    """A stage's draw and its tables dealt, and the deal driver's hooks."""

    async def _begin_stage(self, record: TournamentRecord, state: dict[str, Any], number: int,
                           field: list[int], previous: Mapping[int, int] | None, *,
                           lead: str | None = None) -> None:
        """Draw stage ``number`` of ``field`` (``previous``: the stage before's scores), store
        its tables with the tournament's state in one transaction, post the draw and deal every
        table at once (tournament lock held). ``lead`` (the start, the stage before's result)
        is posted before the draw; both are stored with the stage (:meth:`_post_due`): posted
        once, also when a worker died before the stage was stored and the step is taken again,
        or after it was stored and before they were sent."""
        tid = record.tournament_id
        preset = record_preset(record)
        planned = self._planned(record, state, number, len(field))
        lang = tournament_lang(record)
        names = player_names(state)
        if len(field) < preset.table_size:  # forfeits left less than a table: ranked as is
            await self.top._finish(record, state, None,
                                   posts=[(post_key(tid, f"lead{number}"), lead)] if lead else [])
            return
        drawn = draw(record.seed, number, field, table_size=preset.table_size,
                     scores=previous or None)
        starts = start_scores(planned.stage, field, previous)
        now = self.top.clock()
        ends_at = now + 60 * planned.stage.time_limit if planned.stage.time_limit else None
        tables = [(players, TableStandings.new(planned, players, [starts[p] for p in players],
                                               now).to_dict())
                  for players in drawn.tables]
        state = {**state, "stage": number, "field": field,
                 "previous": None if previous is None else {str(k): v
                                                            for k, v in previous.items()},
                 "draw": drawn.to_dict(), "ends_at": ends_at, "time_up": None,
                 "stages": [*state["stages"], {
                     "number": number, "players": field,
                     "scores": None if previous is None else [previous.get(p) for p in field],
                     "table_size": preset.table_size}]}
        posts = [(post_key(tid, f"lead{number}"), lead)] if lead else []
        posts.append((post_key(tid, f"draw{number}"),
                      views.draw_text(tid, planned, drawn.tables, drawn.byes, names, lang)))
        if await self.ctx.store.put_tournament_stage(tid, number, tables, state, posts):
            await self.top._post_stored(tid)
            if ends_at is not None:
                self.top._arm_time(tid, number, ends_at)
        for index, players in enumerate(drawn.tables, start=1):
            await self._deal_table(record, number, index, list(players), names)
        self.top.refresh_board(tid, now=True)

    async def _deal_table(self, record: TournamentRecord, stage: int, number: int,
                          players: Sequence[int], names: Mapping[int, str], *,
                          note: str | None = None) -> None:
        """Deal the next deal at a tournament table (creating its bot table the first time):
        its seats are its players, seats that left played by the AI."""
        tid = record.tournament_id
        key = tournament_key(tid, stage, number)
        async with self.ctx.tables.lock(key):
            # read under the lock: another worker may have finished the table meanwhile
            rows = await self.ctx.store.tournament_tables(tid, stage)
            row = next(r for r in rows if r.number == number)
            standings = TableStandings.from_dict(row.state)
            if standings.done:
                return
            table = self.ctx.tables.get(key)
            if table is not None and table.phase == DEAL:
                return  # dealing already
            if table is None:
                table = Table(record.chat_id, record.thread_id, tournament_lang(record),
                              title=str(record.options.get("title", "")),
                              competition=Competition(tournament={
                                  "id": tid, "stage": stage, "number": number, "deal": 1}))
                for user_id in players:
                    player = await self.ctx.store.get_player(user_id)
                    table.seats.append(Seat(user_id, names.get(user_id) or (
                        player.name if player is not None else str(user_id)),
                        lang=player.language if player is not None else None))
                self.ctx.tables.add(table)
            await self._next_deal(table, standings, note)

    async def _next_deal(self, table: Table, standings: TableStandings,
                         note: str | None = None) -> None:
        """Deal the table's next deal (lock held): seats that left are played by the AI."""
        assert table.competition.tournament is not None
        for seat, gone in enumerate(standings.forfeited):
            player = table.seats[seat]
            if gone and not player.is_bot:
                table.seats[seat] = Seat(None, player.name, True)
            else:  # written to again: still away, the seat is auto-played at once (§9)
                player.blocked = False
        table.competition.tournament = {**table.competition.tournament,
                                        "deal": standings.played + 1}
        # the next deal goes below
        table.messages.view_message_ids, table.messages.view_photos = [], []
        if note:
            self.deals.say(table, note)
        # RULES.md §11: three deals lost as landlord in the stage, only pass (four-player only)
        await self.deals.deal(table, barred=standings.barred())

    def rules(self, table: Table, rules: Rules) -> Rules:
        """The tournament's rules, as the group's competitions played when it opened
        (``redeal_rule`` ``forced_bid`` by default, RULES.md §2.3); every deal of a table the
        same (its last deal's from the second on)."""
        if table.state is not None:
            return table.state.rules
        return rules

    async def _standings_of(self, table: Table) -> tuple[TournamentTable, TableStandings]:
        info = table.competition.tournament
        assert info is not None
        rows = await self.ctx.store.tournament_tables(info["id"], info["stage"])
        row = next(r for r in rows if r.number == info["number"])
        return row, TableStandings.from_dict(row.state)

    async def settle(self, table: Table, state: DealState) -> tuple[Settlement, Standings]:
        """Record the finished deal in the table's standings (the escape's points; a leaver
        forfeits the tournament, RULES.md §10.1) with the deal closed and the table stored, in
        one store transaction; no beans move. Returns the settlement and the table's standings
        for the result (lock held)."""
        info = table.competition.tournament
        result = state.result
        assert info is not None and result is not None and table.progress.deal_id is not None
        _, before = await self._standings_of(table)
        after = before.record(table.progress.deal_id, result.points, result.escaped,
                              bid=result.base, landlord=result.landlord)
        record = await self.ctx.store.get_tournament(info["id"])
        if time_up_for(record.state, info["stage"]):  # this deal was the table's last (§10.1)
            after = after.with_time_up()
        await self.ctx.store.settle_tournament_deal(
            info["id"], info["stage"], info["number"], table.progress.deal_id, state.to_json(),
            after.to_dict(), after.done, table=table.to_dict())
        planned = self._planned(record, record.state, info["stage"], len(record.state["field"]))
        text = views.table_standings_text(info["id"], planned, info["number"], after,
                                          player_names(record.state), table.lang)
        n = len(result.points)
        settlement = Settlement(table.progress.deal_id, 0, tuple(result.points), (0,) * n,
                                (None,) * n)
        return settlement, Standings(text)

    async def deal_over(self, table: Table) -> None:
        """After a deal's result: the table's next deal, or, its last played, the table is done
        (no longer stored; it stays in memory showing the end) and the stage is looked at in
        the background (lock held)."""
        info = table.competition.tournament
        assert info is not None
        _, standings = await self._standings_of(table)
        self.top.refresh_board(info["id"])
        if not standings.done:
            await self._next_deal(table, standings)
            return
        self.ctx.cancel_timers(table.key)
        await self.ctx.store.delete_table(table.key)
        self.top._spawn(self.top._stage_check(info["id"], info["stage"]))
