"""A stage decided: advancement, extra deals (加赛), the payout:
a part of the group tournaments' driver
(:class:`bot.features.tournament.driver.Tournaments`, see its module docstring)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.core.i18n import join_names, t
from bot.core.table import RESULT
from bot.features.tournament import views
from bot.features.tournament.common import (
    Part,
    advancement_dict,
    advancement_from,
    player_names,
    post_key,
    previous_scores,
    record_preset,
    tournament_lang,
    tournament_lock,
)
from bot.features.tournament.standings import TableStandings
from bot.store.tournament_records import TournamentRecord
from engine.prizes import split_pool
from engine.tournament import (
    Advancement,
    Draw,
    ExtraDeals,
    FinalRanking,
    advance,
    final_ranking,
    tournament_places,
)


class Decided(Part):
    """A stage decided: advancement, extra deals (加赛), the payout."""

    async def _stage_check(self, tournament_id: int, stage: int) -> None:
        """When every table of ``stage`` has finished: its extra deals (加赛) where a tie at a
        table must be played off, else the result, then the next stage or the end."""
        async with self.ctx.tables.lock(tournament_lock(tournament_id)):
            record = await self._record(tournament_id)
            if record is None or record.status != "running":
                return
            state = record.state
            if state.get("stage") != stage:
                return
            rows = await self.ctx.store.tournament_tables(tournament_id, stage)
            if not rows or any(not r.done for r in rows):
                return
            field = [int(p) for p in state["field"]]
            planned = self._planned(record, state, stage, len(field))
            d = state["draw"]
            drawn: Draw[int] = Draw(stage, tuple(tuple(x) for x in d["tables"]),
                                    tuple(d["byes"]))
            standings = [TableStandings.from_dict(r.state) for r in rows]
            signup = [int(p) for p in state["signup"]]
            results = [s.result(signup) for s in standings]
            previous = previous_scores(state)
            outcome: Advancement[int] | ExtraDeals[int] | FinalRanking[int]
            if planned.is_final:
                outcome = final_ranking(planned, drawn, results[0], signup)
            else:
                outcome = advance(planned, drawn, results, signup, previous)
            lang = tournament_lang(record)
            names = player_names(state)
            if isinstance(outcome, ExtraDeals):
                for tie in outcome.tie_breaks:
                    row = rows[tie.table]
                    again = standings[tie.table].with_extra(tie.deals)
                    note = t("tour.extra", lang, n=row.number, deals=tie.deals,
                             names=join_names((names[p] for p in tie.players), lang))
                    key = post_key(tournament_id,
                                    f"extra{stage}.{row.number}.{standings[tie.table].played}")
                    await self.ctx.store.reopen_tournament_table(
                        tournament_id, stage, row.number, again.to_dict(), [(key, note)])
                    await self.top._post_stored(tournament_id)
                    await self.top._deal_table(record, stage, row.number, row.players, names,
                                               note=note)
                return
            if isinstance(outcome, FinalRanking):
                await self._finish(record, state, outcome, standings)
                return
            result = views.stage_result_text(tournament_id, planned, outcome.through,
                                             drawn.byes, outcome.out, outcome.forfeited, names,
                                             lang)
            state = {**state, "advancements": [*state["advancements"], advancement_dict(outcome)]}
            await self.top._begin_stage(record, state, stage + 1, list(outcome.through),
                                        dict(outcome.scores), lead=result)

    async def _finish(self, record: TournamentRecord, state: Mapping[str, Any],
                      final: FinalRanking[int] | None,
                      standings: Sequence[TableStandings] = (), *,
                      posts: Sequence[tuple[str, str]] = ()) -> None:
        """Pay the pool out once by the tournament's places and post the final ranking with
        the revealed seed and the referee's commands, once (:meth:`_announce`; tournament lock
        held). ``final`` is ``None`` when forfeits left less than a table: the last field is
        ranked by its previous scores. ``posts``: group messages stored with the payout and
        posted before the ranking (:meth:`_post_due`)."""
        tid = record.tournament_id
        advancements = [advancement_from(a) for a in state["advancements"]]
        if final is None:
            previous = previous_scores(state) or {}
            field = [int(p) for p in state.get("field", state["signup"])]
            ordered = sorted(field, key=lambda p: -previous.get(p, 0))
            final = FinalRanking(tuple((p,) for p in ordered), ())
        places = tournament_places(final, advancements)
        signup = [int(p) for p in state["signup"]]
        preset = record_preset(record)
        amounts = split_pool(record.pool, [places.get(p) for p in signup], preset.prize_table)
        paid = {p: a for p, a in zip(signup, amounts, strict=True) if a}
        if sum(paid.values()) != record.pool:  # nobody placed (all left): every fee back
            entries = await self.ctx.store.tournament_entries(tid)
            paid = {e.user_id: e.paid for e in entries if e.paid}
        scores: dict[int, int] = {}
        for table in standings:
            scores.update(zip(table.players, table.scores(), strict=True))
        result = {"places": {str(p): places.get(p) for p in signup},
                  "scores": {str(p): s for p, s in scores.items()}}
        await self.ctx.store.finish_tournament(tid, paid, result, posts)
        finished = await self.ctx.store.get_tournament(tid)
        self.top._post_due(finished)
        self.top._announce(finished)
        self.top.refresh_board(tid, now=True)
        for done in list(self.ctx.tables):
            if done.competition.tournament_id == tid and done.phase == RESULT:
                self.ctx.tables.remove(done)
