"""Group tournaments (锦标赛, RULES.md §10.1) in the bot: the sign-up message, the start with
its fees, every stage's draw and its tables played at the same time in the players' private
chats, the stage results, the board, the final ranking with the payout and the revealed seed.

The rules are :mod:`engine.tournament` (presets, draws from the committed seed, advancement,
ties, carry-over) and :mod:`engine.prizes` (the pool's split); a table's standings are
:mod:`.standings`. This module runs them:

- **Sign-up.** ``/tournament`` posts the group message (format, stages, fee, prize table, the
  start, the SHA-256 of the committed seed, who signed up) with 报名/退出 and, for the opener
  and admins, 开赛/取消. The start is a time (a timer), the field full (满人开赛), or 开赛.
- **Start.** The fees go into the pool in one store transaction (a member who cannot pay is
  dropped and named), then the stage's draw.
- **A stage.** Its draw (:func:`engine.tournament.draw` from the seed) is stored with every
  table's standings in one transaction and posted in the group; each table is a
  :class:`~bot.core.table.Table` of its own key (:func:`bot.core.table.tournament_key`) whose
  seats see the table, their hands and the results in their private chats; the deal driver
  runs its deals as a match's (no beans; this class is its :class:`~bot.game.deal.MatchHook`),
  the AI plays seats that are away (RULES.md §9) and seats that left (they forfeit). When
  every table of the stage has finished, :func:`engine.tournament.advance` decides who is
  through (or asks for extra deals at a table, 加赛), the group is shown the result and the
  next stage is drawn; after the final, the pool is paid once and the seed revealed with the
  referee's commands that reproduce every draw.
- **The board.** One group message shows the stage, each table's players, scores and deals
  played, drawn again at most once per :attr:`Tournaments.board_interval`, with 观战 buttons:
  a member then watches a running table in their private chat, a message edited as the table
  moves (never a hand) until its stage ends (:meth:`Tournaments.watch`).
- **Pictures.** In the group's pictures mode (its ``pictures`` setting when the tournament
  opened) the sign-up message, the board and the final ranking are pictures
  (:mod:`images.tournament`) with the texts as captions; text only when it is off.

Restart-safe: everything is read from the store at each step (the tables' standings are written
with each deal's end, the stage's draw with its tables); a table's running deal is restored as
any deal (:mod:`bot.game.restore`) and :meth:`Tournaments.restore` deals on at tables caught
between two deals, decides stages whose tables have all finished and arms the start timers.

With several webhook workers (:mod:`bot.telegram.workers`) every step of a tournament happens once:
its own steps (the start, a stage's check with the next stage's draw and deal, the final, the
cancel) hold the tournament's lock (``ctx.tables.lock`` of :func:`tournament_lock`: an advisory
lock in PostgreSQL with a watchdog, as a duplicate challenge's close), each table's deal its
table's lock, and each reads the store inside it; a worker that dies in the middle of one leaves
it to the watchdog (:meth:`Tournaments.resume` on another worker) or to the next worker's sweep:
a start cut short after the fees draws stage 1 then (naming who could not pay: the store keeps
them with the fees). A step's group messages (a stage's lead and draw, a tie's extra deals, the
cancel) are stored with the step and posted at least once, once in the normal case
(:meth:`Tournaments._post_due`). The final ranking is posted once, its posting
claimed in the store (as a duplicate challenge's), also when its worker died after the payout;
the board is drawn under a lock of its own (:func:`board_lock`), one message, never an older
board over a newer one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

from bot.core.i18n import join_names, t
from bot.core.numbers import grouped
from bot.core.table import DEAL, RESULT, Competition, Seat, Table, tournament_key
from bot.features.tournament import views
from bot.features.tournament.standings import TableStandings
from bot.game import timers
from bot.game.config import TableConfig
from bot.game.context import GameContext
from bot.game.deal import DealDriver, Standings
from bot.game.drawing import Drawing
from bot.game.lobby import Person
from bot.game.outlet import Unreachable
from bot.store import Settlement, Store, StoreError
from bot.store.tournament_records import TournamentRecord, TournamentRefused, TournamentTable
from engine import DealState
from engine.challenge import new_seed, seed_hash
from engine.presets import Rules
from engine.prizes import split_pool
from engine.tournament import (
    Advancement,
    Draw,
    ExtraDeals,
    FinalRanking,
    PlannedStage,
    TournamentPreset,
    advance,
    advancing,
    draw,
    final_ranking,
    plan,
    start_scores,
    tournament_places,
    tournament_preset,
)
from images.tournament import (
    render_tournament_board,
    render_tournament_final,
    render_tournament_signup,
)

log = logging.getLogger(__name__)

#: The most members a tournament takes: its default maximum field and the hard cap of the
#: ``max`` option. 30 = 10 tables of three playing at once, as measured (docs/benchmarks.md):
#: that stage met every target with the token's busiest minute at 24.5 of its 28 requests a
#: second, so more tables at once would outrun the bot's Bot API budget.
MAX_SIGNUP = 30
#: The longest stage time limit in minutes (the ``time`` option; seed 001 plays 15, seed 002
#: 45): 3 hours, longer than any preset's stage takes.
MAX_TIME_LIMIT = 180
#: Seconds between two drawings of the group's board.
BOARD_INTERVAL = 60.0
#: Timer kinds of this module (rows with several workers): the timed start, the board, a
#: stage's time limit, another worker's claim on posting the final ranking (or a due group
#: message, :meth:`Tournaments._post_due`) has run out.
START = "tournament_start"
BOARD = "tournament_board"
TIME = "tournament_time"
FINAL = "tournament_final"
POSTS = "tournament_posts"
#: Seconds a claim on posting a final ranking holds
#: (:meth:`Store.claim_tournament_announcement`): longer than one send waiting for 429 answers;
#: once it ran out, a poster that died leaves the ranking to the next one.
ANNOUNCE_CLAIM_SECONDS = 120.0


def tournament_lock(tournament_id: int) -> str:
    """The key of a tournament's own timers and lock (not a table's)."""
    return f"t{tournament_id}:tournament"


def board_lock(tournament_id: int) -> str:
    """The key of the lock a tournament's group board is drawn under (not the tournament's:
    a board's edit waiting for the group's flood budget holds up no stage)."""
    return f"t{tournament_id}:board"


def tournament_of_lock(key: str) -> int | None:
    """The tournament of a :func:`tournament_lock` key, ``None`` for another key."""
    head, _, tail = key.partition(":")
    if tail != "tournament" or not head.startswith("t") or not head[1:].isdigit():
        return None
    return int(head[1:])


class Tournaments:
    """The group tournaments of every group (see the module docstring)."""

    def __init__(self, ctx: GameContext, deals: DealDriver) -> None:
        self.ctx = ctx
        self.deals = deals
        deals.tournament = self
        self._tasks: set[asyncio.Task[None]] = set()
        #: Tournaments whose sign-up message is being redrawn, and those asked again meanwhile.
        self._redrawing: set[int] = set()
        self._redraw_again: set[int] = set()
        #: tournament id → when its board was last drawn (``clock`` seconds).
        self._board_asked: dict[int, float] = {}
        #: Seconds between two drawings of a board (a test hook).
        self.board_interval = BOARD_INTERVAL
        #: (tournament id, ``"signup"`` or ``"board"``) → the input of the picture that group
        #: message shows (a caption's change alone edits only the caption).
        self._pictured: dict[tuple[int, str], object] = {}
        #: UTC seconds now (a test hook).
        self.clock: Callable[[], float] = time.time

    def _spawn(self, work: Awaitable[None]) -> None:
        """Run ``work`` in the background (never under a table's lock: it takes tables')."""
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("tournament step failed", exc_info=task.exception())

    async def idle(self) -> None:
        """Wait for the background steps (a test hook)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # --- Opening and sign-up -------------------------------------------------------------------

    async def _config(self, chat_id: int) -> tuple[dict[str, Any], TableConfig, Rules]:
        group = await self.ctx.store.get_group_settings(chat_id)
        config = TableConfig.of(group, default_language=self.ctx.settings.default_language,
                                play_timeout=self.ctx.settings.play_timeout,
                                bid_timeout=self.ctx.settings.bid_timeout)
        return group, config, config.match_rules or config.rules

    async def table_size(self, chat_id: int) -> int:
        """Seats at a tournament table opened in this group now: 3, or 4 in a four-player
        group (RULES.md §11); the smallest field a tournament may have."""
        _, _, rules = await self._config(chat_id)
        return rules.seats

    async def open(self, chat_id: int, thread_id: int | None, title: str, opener: Person,
                   preset_name: str, entry_fee: int, start_at: float | None, *,
                   minimum: int | None = None, maximum: int | None = None,
                   time_limit: int | None = None) -> str | None:
        """Open a tournament in a group (RULES.md §10.1): a fresh seed, its SHA-256 shown in
        the group's sign-up message, the timed start armed (``start_at``, UTC seconds;
        ``None``: when full or when the opener starts it). ``minimum`` and ``maximum``: the
        field (players; default one table and :data:`MAX_SIGNUP`; the caller checked
        ``table size ≤ minimum ≤ maximum ≤ MAX_SIGNUP``, and they are held within it all the
        same): 开赛 and the timed start need the minimum, the maximum signed up starts it
        (满人开赛). ``time_limit``: minutes per stage (0: none; ``None``: the preset's), see
        :meth:`_on_time`. ``None`` when opened, else why not in the group's language (one is
        open or running here already)."""
        group, config, rules = await self._config(chat_id)
        preset = tournament_preset(preset_name, table_size=rules.seats)
        seed = new_seed()
        options = {"lang": config.lang, "title": title, "pictures": config.pictures,
                   "rules": rules.to_dict(), "table_size": rules.seats, "start_at": start_at,
                   "tz": group.get("timezone", "UTC"),
                   "min": max(rules.seats, minimum or 0),
                   "max": min(MAX_SIGNUP, max(rules.seats, minimum or 0, maximum or MAX_SIGNUP))}
        if time_limit is not None:
            options["time_limit"] = time_limit
        try:
            tid = await self.ctx.store.open_tournament(
                chat_id, thread_id, opener.user_id, preset.name, options, entry_fee, seed,
                seed_hash(seed))
        except TournamentRefused:
            return t("tour.refused_live", config.lang)
        record = await self.ctx.store.get_tournament(tid)
        drawing = await self._signup_drawing(record)
        try:
            shown = await self._present(record, None, "signup", drawing)
        except Unreachable:
            shown = None
        if shown is not None:
            await self.ctx.store.set_tournament_messages(tid, message_id=shown[0])
        if start_at is not None:
            self._arm_start(tid, start_at)
        return None

    async def _signup_drawing(self, record: TournamentRecord, closed: str | None = None
                              ) -> Drawing:
        lang = _lang(record)
        entries = await self.ctx.store.tournament_entries(record.tournament_id)
        preset = _preset(record)
        minimum, maximum = int(record.options["min"]), int(record.options["max"])
        field = max(minimum, len(entries))
        start_at = record.options.get("start_at")
        if start_at is not None:
            zone = ZoneInfo(str(record.options.get("tz") or "UTC"))
            when = datetime.fromtimestamp(float(start_at), UTC).astimezone(zone)
            start = t("tour.start_at", lang, time=when.strftime("%H:%M"), tz=zone.key)
        else:
            start = t("tour.start_full", lang, max=maximum)
        names = [e.name for e in entries]
        stages = plan(preset, field)
        text = views.signup_text(record.tournament_id, preset, stages, record.entry_fee,
                                 record.seed_hash, start, names, minimum, maximum, lang,
                                 closed=closed)
        markup = None if closed else views.signup_markup(record.tournament_id, lang)
        if not _pictures(record):
            return Drawing(text, markup)
        scene = views.signup_scene(record.tournament_id, preset, stages, record.entry_fee,
                                   record.seed_hash, start, names, minimum, maximum, lang,
                                   closed=closed is not None)
        short = views.signup_text(record.tournament_id, preset, stages, record.entry_fee,
                                  record.seed_hash, start, [], minimum, maximum, lang,
                                  closed=closed)  # the names are in the picture
        return Drawing(views.caption(text, short), markup, scene,
                       partial(render_tournament_signup, scene), "tournament.png")

    async def _redraw_signup(self, record: TournamentRecord, closed: str | None = None) -> None:
        if record.message_id is None:
            return
        drawing = await self._signup_drawing(record, closed)
        with contextlib.suppress(Unreachable):
            await self._present(record, record.message_id, "signup", drawing)

    async def _present(self, record: TournamentRecord, message_id: int | None, which: str,
                       drawing: Drawing) -> tuple[int, bool] | None:
        """Show ``drawing`` on the group's sign-up message or board (``which``), a photo
        in the group's pictures mode, editing only the caption when its picture is the one
        shown already.

        Raises:
            Unreachable: the group is closed to the bot.
        """
        slot = (record.tournament_id, which)
        shown = await self.ctx.outlet.present(record.chat_id, message_id, _pictures(record),
                                              self._pictured.get(slot), drawing,
                                              record.thread_id)
        if shown is not None:
            self._pictured[slot] = drawing.key
        return shown

    def _redraw_later(self, tournament_id: int) -> None:
        """Redraw the sign-up message in the background, so a Sign up or Withdraw is answered
        before it (the group's flood window may hold the edit for most of a minute when many
        sign up at once); requests while a redraw runs make one more redraw of the latest
        sign-ups, never two at once."""
        if tournament_id in self._redrawing:
            self._redraw_again.add(tournament_id)
            return
        self._redrawing.add(tournament_id)

        async def redraw() -> None:
            try:
                while True:
                    self._redraw_again.discard(tournament_id)
                    # under the tournament's lock, read inside it: a redraw never reopens the
                    # message the start or a cancel (on any worker) closed meanwhile
                    async with self.ctx.tables.lock(tournament_lock(tournament_id)):
                        record = await self._record(tournament_id)
                        if record is None or record.status != "open":
                            return
                        await self._redraw_signup(record)
                    if tournament_id not in self._redraw_again:
                        return
            finally:
                self._redrawing.discard(tournament_id)

        self._spawn(redraw())

    async def live_of(self, chat_id: int) -> TournamentRecord | None:
        """The group's open or running tournament, if any."""
        for record in await self.ctx.store.live_tournaments():
            if record.chat_id == chat_id:
                return record
        return None

    async def _record(self, tournament_id: int) -> TournamentRecord | None:
        try:
            return await self.ctx.store.get_tournament(tournament_id)
        except StoreError:
            return None

    async def sign_up(self, tournament_id: int, person: Person, lang: str) -> str:
        """报名: sign ``person`` up (the caller made sure the bot can write to them); the
        pop-up's text in ``lang``. The field full starts the tournament (满人开赛)."""
        record = await self._record(tournament_id)
        if record is None or record.status != "open":
            return t("tour.pop_closed", lang)
        maximum = int(record.options["max"])
        await self.ctx.store.ensure_player(person.user_id, person.name, person.language)
        if record.entry_fee:
            player = await self.ctx.store.get_player(person.user_id)
            if player is not None and player.balance < record.entry_fee:
                return t("tour.pop_fee", lang, fee=grouped(record.entry_fee),
                         balance=grouped(player.balance))
        try:
            added = await self.ctx.store.sign_up(tournament_id, person.user_id, person.name,
                                                 maximum)
        except TournamentRefused as exc:
            return t("tour.pop_full" if exc.code == "tournament_full" else "tour.pop_closed",
                     lang, max=maximum)
        if not added:
            return t("tour.pop_already", lang)
        self._redraw_later(tournament_id)
        if len(await self.ctx.store.tournament_entries(tournament_id)) >= maximum:
            self._spawn(self.start(tournament_id))
        return t("tour.pop_signed", lang, id=tournament_id)

    async def withdraw(self, tournament_id: int, user_id: int, lang: str) -> str:
        """退出: take the sign-up back before the start; the pop-up's text."""
        record = await self._record(tournament_id)
        if record is None or record.status != "open":
            return t("tour.pop_closed", lang)
        try:
            gone = await self.ctx.store.withdraw(tournament_id, user_id)
        except TournamentRefused:
            return t("tour.pop_closed", lang)
        if not gone:
            return t("tour.pop_not_signed", lang)
        self._redraw_later(tournament_id)
        return t("tour.pop_withdrawn", lang)

    def start_refusal(self, record: TournamentRecord, count: int, lang: str) -> str | None:
        """Why 开赛 cannot start ``record`` with ``count`` signed up, else ``None``."""
        minimum = int(record.options["min"])
        if count < minimum:
            return t("tour.pop_too_few", lang, min=minimum, n=count)
        return None

    # --- The start -----------------------------------------------------------------------------

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
            lang = _lang(record)
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
            await self._redraw_signup(record, closed="\n".join(lines))
            state: dict[str, Any] = {"signup": field, "names": {str(k): v for k, v in
                                                                names.items()},
                                     "initial": len(field), "stage": 0, "stages": [],
                                     "advancements": []}
            await self._begin_stage(record, state, 1, field, None, lead="\n".join(lines))

    async def _cancel_start(self, record: TournamentRecord, text: str) -> None:
        """A start with too few (who could pay): cancelled, every fee taken refunded, the
        group told ``text`` (stored with the cancel, :meth:`_post_due`; tournament lock
        held)."""
        tid = record.tournament_id
        if await self.ctx.store.cancel_tournament(tid, [(_post_key(tid, "cancel"), text)]) \
                is None:
            return
        await self._redraw_signup(record, closed=text)
        await self._post_stored(tid)

    def _tell(self, record: TournamentRecord, text: str) -> None:
        self.ctx.outlet.tell(record.chat_id, text, record.thread_id)

    async def _post_stored(self, tournament_id: int) -> None:
        """Post the tournament's group messages due in the store (:meth:`_post_due`)."""
        record = await self._record(tournament_id)
        if record is not None:
            self._post_due(record)

    def _post_due(self, record: TournamentRecord) -> None:
        """Post the group messages stored with the tournament's steps and not sent yet
        (:attr:`TournamentRecord.posts`: a stage's lead and draw, a tie's extra deals, the
        cancel), in the background, in their order. Each is stored in the transaction that
        stores its step and taken off once sent (the outlet's ``sent``), so it is posted at
        least once: one whose step's process died before sending it is posted by the watchdog
        (:meth:`resume`) or the next start (:meth:`restore`). Right before it is sent its
        sending is claimed in the store for :data:`ANNOUNCE_CLAIM_SECONDS`
        (:meth:`Store.claim_tournament_post`), so two workers do not both post it: in the
        normal case it is posted once, twice only when its poster was killed between Telegram
        taking it and recording it sent. One being posted in this process is not asked
        again."""
        tid = record.tournament_id
        for post in record.posts:
            if self.ctx.outlet.posting(post.key):
                continue
            self.ctx.outlet.post(post.key, record.chat_id, Drawing(post.text, None),
                                 record.thread_id, sent=partial(self._posted, tid, post.key),
                                 claim=_PostClaim(self.ctx.store, tid, post.key))

    async def _posted(self, tournament_id: int, key: str, message_id: int) -> None:
        await self.ctx.store.clear_tournament_post(tournament_id, key)

    def _arm_posts(self, record: TournamentRecord) -> None:
        """Another worker claimed some of the tournament's due group messages: post what is
        still due once the last claim ran out (:meth:`_on_posts`)."""
        until = max((p.claimed_until for p in record.posts), default=0.0)
        if until > self.clock():
            self.ctx.outlet.arm(POSTS, timers.Stamp(tournament_lock(record.tournament_id), ""),
                                until, self._on_posts)

    async def _on_posts(self, stamp: timers.Stamp) -> None:
        """The claims on a tournament's due group messages ran out (:meth:`_arm_posts`): post
        those still due (their claims decide who sends them)."""
        tid = tournament_of_lock(stamp.key)
        if tid is not None:
            await self._post_stored(tid)

    def _arm_start(self, tournament_id: int, at: float) -> None:
        self.ctx.outlet.arm(START, timers.Stamp(tournament_lock(tournament_id), ""), at,
                            self._on_start)

    async def _on_start(self, stamp: timers.Stamp) -> None:
        """The timed start (定时赛): start, or cancel with too few signed up."""
        tid = tournament_of_lock(stamp.key)
        if tid is not None:
            await self.start(tid)

    # --- A stage's time limit --------------------------------------------------------------------

    def _arm_time(self, tournament_id: int, stage: int, at: float) -> None:
        self.ctx.outlet.arm(TIME, timers.Stamp(tournament_lock(tournament_id), str(stage)), at,
                            self._on_time)

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
            lang = _lang(record)
            self._tell(record, t("tour.time_up", lang, id=tid, minutes=planned.stage.time_limit,
                                 stage=views.stage_name(stage, planned.is_final, lang)))

    # --- Stages --------------------------------------------------------------------------------

    def _planned(self, record: TournamentRecord, state: Mapping[str, Any], number: int,
                 field: int) -> PlannedStage:
        """Stage ``number`` as the field of ``field`` players plays it: the plan made for the
        field at the start, with its counts redone when forfeits made the field smaller."""
        preset = _preset(record)
        size = preset.table_size
        stages = plan(preset, int(state["initial"]))
        planned = stages[min(number, len(stages)) - 1]
        if field <= size:
            return replace(stages[-1], number=number, field=field, tables=1, byes=0)
        if planned.is_final or planned.field == field:
            return replace(planned, number=number)
        rule = planned.stage.advance
        assert rule is not None
        return replace(planned, number=number, field=field, tables=field // size,
                       byes=field % size, advancing=advancing(rule, field, size))

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
        preset = _preset(record)
        planned = self._planned(record, state, number, len(field))
        lang = _lang(record)
        names = _names(state)
        if len(field) < preset.table_size:  # forfeits left less than a table: ranked as is
            await self._finish(record, state, None,
                               posts=[(_post_key(tid, f"lead{number}"), lead)] if lead else [])
            return
        drawn = draw(record.seed, number, field, table_size=preset.table_size,
                     scores=previous or None)
        starts = start_scores(planned.stage, field, previous)
        now = self.clock()
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
        posts = [(_post_key(tid, f"lead{number}"), lead)] if lead else []
        posts.append((_post_key(tid, f"draw{number}"),
                      views.draw_text(tid, planned, drawn.tables, drawn.byes, names, lang)))
        if await self.ctx.store.put_tournament_stage(tid, number, tables, state, posts):
            await self._post_stored(tid)
            if ends_at is not None:
                self._arm_time(tid, number, ends_at)
        for index, players in enumerate(drawn.tables, start=1):
            await self._deal_table(record, number, index, list(players), names)
        self.refresh_board(tid, now=True)

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
                table = Table(record.chat_id, record.thread_id, _lang(record),
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

    # --- The driver's hooks (bot.game.deal.MatchHook) ------------------------------------------

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
        if _time_up(record.state, info["stage"]):  # this deal was the table's last (§10.1)
            after = after.with_time_up()
        await self.ctx.store.settle_tournament_deal(
            info["id"], info["stage"], info["number"], table.progress.deal_id, state.to_json(),
            after.to_dict(), after.done, table=table.to_dict())
        planned = self._planned(record, record.state, info["stage"], len(record.state["field"]))
        text = views.table_standings_text(info["id"], planned, info["number"], after,
                                          _names(record.state), table.lang)
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
        self.refresh_board(info["id"])
        if not standings.done:
            await self._next_deal(table, standings)
            return
        self.ctx.cancel_timers(table.key)
        await self.ctx.store.delete_table(table.key)
        self._spawn(self._stage_check(info["id"], info["stage"]))

    # --- A stage decided -----------------------------------------------------------------------

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
            previous = _previous(state)
            outcome: Advancement[int] | ExtraDeals[int] | FinalRanking[int]
            if planned.is_final:
                outcome = final_ranking(planned, drawn, results[0], signup)
            else:
                outcome = advance(planned, drawn, results, signup, previous)
            lang = _lang(record)
            names = _names(state)
            if isinstance(outcome, ExtraDeals):
                for tie in outcome.tie_breaks:
                    row = rows[tie.table]
                    again = standings[tie.table].with_extra(tie.deals)
                    note = t("tour.extra", lang, n=row.number, deals=tie.deals,
                             names=join_names((names[p] for p in tie.players), lang))
                    key = _post_key(tournament_id,
                                    f"extra{stage}.{row.number}.{standings[tie.table].played}")
                    await self.ctx.store.reopen_tournament_table(
                        tournament_id, stage, row.number, again.to_dict(), [(key, note)])
                    await self._post_stored(tournament_id)
                    await self._deal_table(record, stage, row.number, row.players, names,
                                           note=note)
                return
            if isinstance(outcome, FinalRanking):
                await self._finish(record, state, outcome, standings)
                return
            result = views.stage_result_text(tournament_id, planned, outcome.through,
                                             drawn.byes, outcome.out, outcome.forfeited, names,
                                             lang)
            state = {**state, "advancements": [*state["advancements"], _advancement(outcome)]}
            await self._begin_stage(record, state, stage + 1, list(outcome.through),
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
        advancements = [_advancement_of(a) for a in state["advancements"]]
        if final is None:
            previous = _previous(state) or {}
            field = [int(p) for p in state.get("field", state["signup"])]
            ordered = sorted(field, key=lambda p: -previous.get(p, 0))
            final = FinalRanking(tuple((p,) for p in ordered), ())
        places = tournament_places(final, advancements)
        signup = [int(p) for p in state["signup"]]
        preset = _preset(record)
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
        self._post_due(finished)
        self._announce(finished)
        self.refresh_board(tid, now=True)
        for done in list(self.ctx.tables):
            if done.competition.tournament_id == tid and done.phase == RESULT:
                self.ctx.tables.remove(done)

    def _final_drawings(self, record: TournamentRecord) -> list[tuple[str, Drawing]]:
        """A finished tournament's final ranking (champion first, prizes paid), the revealed
        seed and the referee's commands, from its stored result and state (RULES.md §10.1):
        its messages, each with its post's key. The text; in the group's pictures mode the
        ranking's picture with the text as its caption, or, when the text is longer than a
        caption takes, with the ranking as caption and the seed with the commands in a text
        message after it."""
        tid = record.tournament_id
        state, result = record.state, record.result or {}
        places: dict[int, int | None] = {int(p): None if place is None else int(place)
                                         for p, place in (result.get("places") or {}).items()}
        scores = {int(p): int(s) for p, s in (result.get("scores") or {}).items()}
        paid = {int(p): int(a) for p, a in (result.get("paid") or {}).items()}
        signup = [int(p) for p in state["signup"]]
        ranking = sorted(signup, key=lambda p: (places.get(p) is None, places.get(p) or 0,
                                                signup.index(p)))
        lang = _lang(record)
        names = _names(state)
        ranked = [(p, places.get(p)) for p in ranking]
        commands = views.referee_commands(record.seed, state["stages"])
        text = views.final_text(tid, ranked, scores, paid, names, record.seed,
                                record.seed_hash, commands, lang)
        key = f"{tournament_lock(tid)}#final"
        if not _pictures(record):
            return [(key, Drawing(text, None))]
        scene = views.final_scene(tid, ranked, scores, paid, names, record.seed,
                                  record.seed_hash, lang)
        render = partial(render_tournament_final, scene)
        if len(text) <= views.CAPTION_LIMIT:
            return [(key, Drawing(text, None, scene, render, "tournament_final.png"))]
        lines = views.final_ranking_lines(tid, ranked, scores, paid, names, lang)
        seed = "\n".join(views.seed_lines(record.seed, record.seed_hash, commands, lang))
        return [(key, Drawing(views.caption("\n".join(lines), lines[0]), None, scene, render,
                              "tournament_final.png")),
                (f"{tournament_lock(tid)}#seed", Drawing(seed, None))]

    def _announce(self, record: TournamentRecord) -> None:
        """Post a finished tournament's final ranking (in the background): due until it was
        sent (the seed must be revealed), once in the normal case, as a duplicate challenge's
        (:meth:`bot.features.challenge.driver.Challenges._announce`). Right before it is sent
        its posting is claimed in the store for :data:`ANNOUNCE_CLAIM_SECONDS`
        (:meth:`Store.claim_tournament_announcement`): a second poster (another worker, the
        watchdog, a worker's sweep) sends nothing while the claim runs. One not sent (its
        worker died after the payout, or with it waiting for the group's flood budget, or
        during the request; or the send failed: the claim is given back) is posted by the
        watchdog (:meth:`resume`) or the next start (:meth:`restore`); twice only when its
        poster was killed between Telegram taking it and recording it sent. When the ranking
        is a picture and the seed a text after it (:meth:`_final_drawings`), the seed is
        posted once the picture was sent, and the ranking is recorded as posted once the seed
        was: a poster killed in between leaves both to the next (the picture then twice, the
        seed never missing)."""
        tid = record.tournament_id

        async def announced(message_id: int) -> None:
            await self.ctx.store.announce_tournament(tid)

        (key, drawing), *rest = self._final_drawings(record)
        sent = announced
        if rest:
            ((seed_key, seed),) = rest

            async def pictured(message_id: int) -> None:
                self.ctx.outlet.post(seed_key, record.chat_id, seed, record.thread_id,
                                     sent=announced)

            sent = pictured
        self.ctx.outlet.post(key, record.chat_id, drawing, record.thread_id, sent=sent,
                             claim=_Announcement(self.ctx.store, tid))

    async def _on_final(self, stamp: timers.Stamp) -> None:
        """Another worker's claim on posting a final ranking has run out (:meth:`restore`):
        post it unless it was posted meanwhile (the claim, taken right before the send,
        decides)."""
        tid = tournament_of_lock(stamp.key)
        record = None if tid is None else await self._record(tid)
        if record is not None and record.status == "finished":
            self._announce(record)

    # --- Cancel and leaving --------------------------------------------------------------------

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
            text = t("tour.cancelled", _lang(record), id=tournament_id, by=by,
                     n=len(paid), beans=grouped(sum(paid)))
            refunds = await self.ctx.store.cancel_tournament(
                tournament_id, [(_post_key(tournament_id, "cancel"), text)])
            if refunds is None:
                return False
            self.ctx.outlet.cancel(START, tournament_lock(tournament_id))
            self.ctx.outlet.cancel(TIME, tournament_lock(tournament_id))
            if record.status == "open":
                await self._redraw_signup(record, closed=text)
            await self._stop_tables(tournament_id, int(record.state.get("stage") or 0))
            await self._post_stored(tournament_id)
            self.refresh_board(tournament_id, now=True)
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

    # --- The board and watching ----------------------------------------------------------------

    def refresh_board(self, tournament_id: int, *, now: bool = False) -> None:
        """Ask for the group's board to be drawn again: at most once per
        :attr:`board_interval` (a timer draws the last change of a busy minute); ``now``: at
        once (a new stage, the end)."""
        clock = self.clock()
        due = self._board_asked.get(tournament_id, 0.0) + self.board_interval
        key = tournament_lock(tournament_id)
        if not now and clock < due:
            self.ctx.outlet.arm(BOARD, timers.Stamp(key, ""), due, self._on_board_timer)
            return
        self._board_asked[tournament_id] = clock
        self._spawn(self._draw_board(tournament_id))

    async def _on_board_timer(self, stamp: timers.Stamp) -> None:
        tid = tournament_of_lock(stamp.key)
        if tid is not None:
            self.refresh_board(tid)

    async def _board(self, record: TournamentRecord) -> Drawing | None:
        state = record.state
        stage = state.get("stage")
        if not stage:
            return None
        lang = _lang(record)
        rows = await self.ctx.store.tournament_tables(record.tournament_id, int(stage))
        planned = self._planned(record, state, int(stage), len(state["field"]))
        tables = [(r.number, TableStandings.from_dict(r.state), r.done) for r in rows]
        text = views.board_text(record.tournament_id, planned, tables,
                                state["draw"]["byes"], _names(state), lang)
        live = record.status == "running"
        status = "" if live else "\n\n" + t(f"tour.board_{record.status}", lang)
        running = [n for n, _, done in tables if not done] if live else []
        markup = views.board_markup(record.tournament_id, running, lang)
        if not _pictures(record):
            return Drawing(text + status, markup)
        d = state["draw"]
        drawn: Draw[int] = Draw(int(stage), tuple(tuple(x) for x in d["tables"]),
                                tuple(d["byes"]))
        through = views.board_through(planned, drawn, [s for _, s, _ in tables],
                                      [int(p) for p in state["signup"]], _previous(state))
        scene = views.board_scene(record.tournament_id, planned, tables, d["byes"],
                                  _names(state), lang, through=through, status=record.status)
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

    def watch_refusal(self, record: TournamentRecord, number: int, lang: str) -> str | None:
        """Why 观战 of table ``number`` is refused (the tournament is not running, the table
        is not playing here now), in ``lang``; ``None`` when it may be watched."""
        if record.status != "running":
            return t("tour.pop_closed", lang)
        if self._playing(record, number) is None:
            return t("tour.pop_no_table", lang)
        return None

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

    # --- After a restart -----------------------------------------------------------------------

    def timer_callbacks(self) -> dict[str, Callable[[timers.Stamp], Awaitable[None]]]:
        """What fires each kind of this module's timers (rows with several workers)."""
        return {START: self._on_start, BOARD: self._on_board_timer, TIME: self._on_time,
                FINAL: self._on_final, POSTS: self._on_posts}

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
                await self._post_stored(record.tournament_id)
                continue
            self._post_due(record)
            self._arm_posts(record)
        for record in await self.ctx.store.unannounced_tournaments(claimed=True):
            if record.announced and not alone:  # another worker's claim: it may be alive
                self.ctx.outlet.arm(FINAL, timers.Stamp(tournament_lock(record.tournament_id),
                                                        ""),
                                    self.clock() + ANNOUNCE_CLAIM_SECONDS, self._on_final)
                continue
            if record.announced:  # the claim of the process that stopped
                await self.ctx.store.release_tournament_announcement(record.tournament_id)
            self._announce(record)
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
            self._post_due(record)
            self._arm_posts(record)
        if record is not None and record.status == "finished" and not record.announced:
            async with self.ctx.tables.lock(tournament_lock(tournament_id)):
                record = await self._record(tournament_id)
                if record is not None and not record.announced:
                    self._announce(record)
            self.refresh_board(tournament_id, now=True)
        elif record is not None and record.status == "cancelled":
            # a cancel cut short after its refunds: its tables stopped (none left: nothing)
            async with self.ctx.tables.lock(tournament_lock(tournament_id)):
                await self._stop_tables(tournament_id, int(record.state.get("stage") or 0))
            self.refresh_board(tournament_id, now=True)
        elif record is not None and record.status in ("open", "running"):
            await self._resume_record(record)

    async def _resume_record(self, record: TournamentRecord) -> None:
        tid = record.tournament_id
        if record.status == "open":
            start_at = record.options.get("start_at")
            if start_at is not None:
                self._arm_start(tid, float(start_at))
            return
        stage = int(record.state.get("stage") or 0)
        if not stage:  # its start was cut short after the fees
            await self.start(tid)
            return
        ends_at = record.state.get("ends_at")
        if ends_at is not None and record.state.get("time_up") != stage:
            self._arm_time(tid, stage, float(ends_at))
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
            await self._deal_table(record, stage, row.number, row.players,
                                   _names(record.state))
        self._spawn(self._stage_check(tid, stage))

class _PostClaim:
    """The claim on sending one of a tournament's due group messages
    (:class:`bot.game.outlet.Claim`, :meth:`Tournaments._post_due`)."""

    def __init__(self, store: Store, tournament_id: int, key: str) -> None:
        self.store = store
        self.tournament_id = tournament_id
        self.key = key

    async def take(self) -> bool:
        return await self.store.claim_tournament_post(self.tournament_id, self.key,
                                                      ANNOUNCE_CLAIM_SECONDS)

    async def give_back(self) -> None:
        await self.store.release_tournament_post(self.tournament_id, self.key)


def _post_key(tournament_id: int, name: str) -> str:
    """The key of a tournament's group message ``name`` (unique in it; the outlet's post
    key)."""
    return f"{tournament_lock(tournament_id)}#{name}"


class _Announcement:
    """The claim on posting a tournament's final ranking (:class:`bot.game.outlet.Claim`)."""

    def __init__(self, store: Store, tournament_id: int) -> None:
        self.store = store
        self.tournament_id = tournament_id

    async def take(self) -> bool:
        return await self.store.claim_tournament_announcement(self.tournament_id,
                                                              ANNOUNCE_CLAIM_SECONDS)

    async def give_back(self) -> None:
        await self.store.release_tournament_announcement(self.tournament_id)


def _lang(record: TournamentRecord) -> str:
    return str(record.options.get("lang", "en"))


def _pictures(record: TournamentRecord) -> bool:
    """The group's sign-up message, board and final ranking are pictures (its ``pictures``
    setting when the tournament opened); text only when off."""
    return bool(record.options.get("pictures", True))


def _preset(record: TournamentRecord) -> TournamentPreset:
    """The tournament's preset for its table size, with every stage's time limit the
    ``time_limit`` option when it was given (minutes, 0: none)."""
    preset = tournament_preset(record.preset, table_size=int(record.options.get("table_size", 3)))
    limit = record.options.get("time_limit")
    if limit is None:
        return preset
    return replace(preset, rounds=tuple(replace(s, time_limit=int(limit)) for s in preset.rounds),
                   final=replace(preset.final, time_limit=int(limit)))


def _time_up(state: Mapping[str, Any], stage: int) -> bool:
    """Stage ``stage``'s time limit has run out (:meth:`Tournaments._on_time` marked it)."""
    return state.get("stage") == stage and state.get("time_up") == stage


def _names(state: Mapping[str, Any]) -> dict[int, str]:
    return {int(k): str(v) for k, v in (state.get("names") or {}).items()}


def _previous(state: Mapping[str, Any]) -> dict[int, int] | None:
    previous = state.get("previous")
    return None if previous is None else {int(k): int(v) for k, v in previous.items()}


def _advancement(outcome: Advancement[int]) -> dict[str, Any]:
    return {"through": list(outcome.through), "out": [list(g) for g in outcome.out],
            "forfeited": list(outcome.forfeited),
            "scores": {str(k): v for k, v in outcome.scores.items()}}


def _advancement_of(data: Mapping[str, Any]) -> Advancement[int]:
    return Advancement(tuple(data["through"]), tuple(tuple(g) for g in data["out"]),
                       tuple(data["forfeited"]),
                       {int(k): int(v) for k, v in data["scores"].items()})

