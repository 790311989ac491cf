"""The start (the fees, stage 1) and a stage's time limit:
a part of the group tournaments' driver
(:class:`bot.features.tournament.driver.Tournaments`, see its module docstring)."""

from __future__ import annotations

from typing import Any

from bot.core.i18n import join_names, t
from bot.core.numbers import grouped
from bot.features.tournament import views
from bot.features.tournament.common import (
    START,
    TIME,
    Part,
    post_key,
    tournament_lang,
    tournament_lock,
    tournament_of_lock,
)
from bot.game import timers
from bot.store.tournament_records import TournamentRecord


class Start(Part):
    """The start (the fees, stage 1) and a stage's time limit."""

    async def start(self, tournament_id: int) -> None:
        """Start the tournament: the fees into the pool (who cannot pay is dropped and named),
        then the first stage; with fewer than one table left it is cancelled (fees refunded).
        Nothing when it is not open any more (started or cancelled meanwhile). A start cut short
        after the fees (its worker died before stage 1 was stored: running, no stage yet) is
        finished here, once: no fee is taken again (the store answers the field that paid)
        and stage 1 is drawn from the committed seed as it would have been."""
        async with self.ctx.tables.lock(tournament_lock(tournament_id)):
            record = await self._record(tournament_id)
            if record is None or record.status not in ("open", "running") \
                    or record.state.get("stage"):
                return
            self.ctx.outlet.cancel(START, tournament_lock(tournament_id))
            lang = tournament_lang(record)
            minimum = int(record.options["min"])
            lines: list[str] = []
            if len(await self.ctx.store.tournament_entries(tournament_id)) < minimum:
                lines.append(t("tour.too_few", lang, id=tournament_id, min=minimum))
                await self._cancel_start(record, "\n".join(lines))  # nothing was taken
                return
            start = await self.ctx.store.take_tournament_fees(tournament_id)
            field = [e.user_id for e in start.field]
            names = {e.user_id: e.name for e in start.field}
            if start.dropped:
                lines.append(t("tour.dropped", lang, names=join_names(
                    (e.name for e in start.dropped), lang), fee=grouped(record.entry_fee)))
            if len(field) < minimum:  # fees refunded
                lines.append(t("tour.too_few", lang, id=tournament_id, min=minimum))
                await self._cancel_start(record, "\n".join(lines))
                return
            lines.append(t("tour.started", lang, id=tournament_id, n=len(field),
                           pool=grouped(start.pool)))
            await self.top._redraw_signup(record, closed="\n".join(lines))
            state: dict[str, Any] = {"signup": field, "names": {str(k): v for k, v in
                                                                names.items()},
                                     "initial": len(field), "stage": 0, "stages": [],
                                     "advancements": []}
            await self.top._begin_stage(record, state, 1, field, None, lead="\n".join(lines))

    async def _cancel_start(self, record: TournamentRecord, text: str) -> None:
        """A start with too few (who could pay): cancelled, every fee taken refunded, the
        group told ``text`` (stored with the cancel, :meth:`_post_due`; tournament lock
        held)."""
        tid = record.tournament_id
        if await self.ctx.store.cancel_tournament(tid, [(post_key(tid, "cancel"), text)]) \
                is None:
            return
        await self.top._redraw_signup(record, closed=text)
        await self.top._post_stored(tid)

    def _arm_start(self, tournament_id: int, at: float) -> None:
        self.ctx.outlet.arm(START, timers.Stamp(tournament_lock(tournament_id), ""), at,
                            self.top._on_start)

    async def _on_start(self, stamp: timers.Stamp) -> None:
        """The timed start (定时赛): start, or cancel with too few signed up."""
        tid = tournament_of_lock(stamp.key)
        if tid is not None:
            await self.top.start(tid)

    def _arm_time(self, tournament_id: int, stage: int, at: float) -> None:
        self.ctx.outlet.arm(TIME, timers.Stamp(tournament_lock(tournament_id), str(stage)), at,
                            self.top._on_time)

    async def _on_time(self, stamp: timers.Stamp) -> None:
        """A stage's time limit has run out (RULES.md §10.1 "Time", seed 001 比賽以15分鐘為限。
        時間一到，每桌把手中的牌打完): the group is told once and the deals in progress are the
        last: a table ends after its running deal (:meth:`settle` reads the mark stored here),
        its standings count the deals it played and the stage advances by them. Extra deals
        (加赛) asked for after the time is up are still played, one deal at a time as usual
        (RULES.md §10.1 ties, §10's 加时赛 after a chips stage's time limit): a tie at the line
        is broken at its table, and :data:`~bot.features.tournament.standings.MAX_EXTRA_DEALS`
        bounds them. ``stamp.token`` is the stage's number: a stage decided before its time
        ran out (or a cancelled tournament) ignores its timer."""
        tid = tournament_of_lock(stamp.key)
        if tid is None or not stamp.token.isdigit():
            return
        stage = int(stamp.token)
        async with self.ctx.tables.lock(tournament_lock(tid)):
            record = await self._record(tid)
            if record is None or record.status != "running":
                return
            state = record.state
            if state.get("stage") != stage or state.get("time_up") == stage:
                return
            await self.ctx.store.put_tournament_state(tid, {**state, "time_up": stage})
            planned = self._planned(record, state, stage, len(state["field"]))
            lang = tournament_lang(record)
            self._tell(record, t("tour.time_up", lang, id=tid, minutes=planned.stage.time_limit,
                                 stage=views.stage_name(stage, planned.is_final, lang)))
