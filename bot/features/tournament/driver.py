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

The parts (this module is their façade: :class:`Tournaments` keeps the methods the handlers,
:mod:`bot.features.service`, the workers and the tests call and hands each to its part; a part
asks another only through the façade, :class:`~bot.features.tournament.common.Steps`, so the parts
import nothing of each other, a contract in ``pyproject.toml``):

- :mod:`~bot.features.tournament.signup`: opening and sign-up, the group's sign-up message;
- :mod:`~bot.features.tournament.start`: the start (the fees, stage 1) and a stage's time limit;
- :mod:`~bot.features.tournament.stages`: a stage's draw, its tables dealt, and the deal driver's
  hooks (:meth:`Tournaments.rules`, :meth:`Tournaments.settle`, :meth:`Tournaments.deal_over`);
- :mod:`~bot.features.tournament.decided`: a stage decided (advancement, extra deals, the payout);
- :mod:`~bot.features.tournament.final`: the final ranking and its posting claim;
- :mod:`~bot.features.tournament.posts`: the group messages stored with a step;
- :mod:`~bot.features.tournament.leaving`: cancel and leaving;
- :mod:`~bot.features.tournament.board`: the board and watching (观战);
- :mod:`~bot.features.tournament.restore`: restore and resume after a restart;
- :mod:`~bot.features.tournament.common`: the timers' kinds, the locks' keys, the claims, small
  readers of a tournament's record, and :class:`~bot.features.tournament.common.Part`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from bot.core.table import Table
from bot.features.tournament.board import Board
from bot.features.tournament.common import (
    BOARD,
    BOARD_INTERVAL,
    FINAL,
    MAX_SIGNUP,
    MAX_TIME_LIMIT,
    POSTS,
    START,
    TIME,
    board_lock,
    log,
    tournament_lock,
    tournament_of_lock,
)
from bot.features.tournament.decided import Decided
from bot.features.tournament.final import Final
from bot.features.tournament.leaving import Leaving
from bot.features.tournament.posts import Posts
from bot.features.tournament.restore import Restore
from bot.features.tournament.signup import Signup
from bot.features.tournament.stages import Stages
from bot.features.tournament.standings import TableStandings
from bot.features.tournament.start import Start
from bot.game import timers
from bot.game.context import GameContext
from bot.game.deal import DealDriver, Standings
from bot.game.lobby import Person
from bot.store import Settlement
from bot.store.tournament_records import TournamentRecord
from engine import DealState
from engine.presets import Rules
from engine.tournament import (
    FinalRanking,
)

__all__ = [
    "BOARD",
    "FINAL",
    "MAX_SIGNUP",
    "MAX_TIME_LIMIT",
    "POSTS",
    "START",
    "TIME",
    "Tournaments",
    "board_lock",
    "tournament_lock",
    "tournament_of_lock",
]


class Tournaments:
    """The group tournaments of every group (see the module docstring): the methods below
    hand each call to its part; a part asks the others through this façade."""

    def __init__(self, ctx: GameContext, deals: DealDriver) -> None:
        self.ctx = ctx
        self.deals = deals
        deals.tournament = self
        self._tasks: set[asyncio.Task[None]] = set()
        #: Seconds between two drawings of a board (a test hook).
        self.board_interval = BOARD_INTERVAL
        #: UTC seconds now (a test hook).
        self.clock: Callable[[], float] = time.time
        #: Opening and sign-up: the group's sign-up message, 报名 and 退出.
        self.signups = Signup(ctx, deals, self)
        #: The start (the fees, stage 1) and a stage's time limit.
        self.starting = Start(ctx, deals, self)
        #: The group messages stored with a tournament's steps, posted once.
        self.group_posts = Posts(ctx, deals, self)
        #: A stage's draw and its tables dealt, and the deal driver's hooks.
        self.stages = Stages(ctx, deals, self)
        #: A stage decided: advancement, extra deals (加赛), the payout.
        self.decisions = Decided(ctx, deals, self)
        #: The final ranking and its posting claim.
        self.finals = Final(ctx, deals, self)
        #: Cancel and leaving.
        self.leaving = Leaving(ctx, deals, self)
        #: The group's board and watching (观战).
        self.boards = Board(ctx, deals, self)
        #: After a restart: restore and resume.
        self.restoring = Restore(ctx, deals, self)

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

    async def table_size(self, chat_id: int) -> int:
        """Seats at a tournament table opened in this group now: 3, or 4 in a four-player group
        (RULES.md §11); the smallest field a tournament may have. :meth:`Signup.table_size`."""
        return await self.signups.table_size(chat_id)

    async def open(self, chat_id: int, thread_id: int | None, title: str, opener: Person,
                   preset_name: str, entry_fee: int, start_at: float | None, *,
                   minimum: int | None = None, maximum: int | None = None,
                   time_limit: int | None = None) -> str | None:
        """Open a tournament in a group (RULES.md §10.1): a fresh seed, its SHA-256 shown in the
        group's sign-up message, the timed start armed (``start_at``, UTC seconds; ``None``: when
        full or when the opener starts it). :meth:`Signup.open`."""
        return await self.signups.open(chat_id, thread_id, title, opener, preset_name,
                                       entry_fee, start_at, minimum=minimum, maximum=maximum,
                                       time_limit=time_limit)

    async def _redraw_signup(self, record: TournamentRecord, closed: str | None = None) -> None:
        """ :meth:`Signup._redraw_signup`."""
        await self.signups._redraw_signup(record, closed)

    async def live_of(self, chat_id: int) -> TournamentRecord | None:
        """The group's open or running tournament, if any. :meth:`Signup.live_of`."""
        return await self.signups.live_of(chat_id)

    async def sign_up(self, tournament_id: int, person: Person, lang: str) -> str:
        """报名: sign ``person`` up (the caller made sure the bot can write to them); the pop-up's
        text in ``lang``. :meth:`Signup.sign_up`."""
        return await self.signups.sign_up(tournament_id, person, lang)

    async def withdraw(self, tournament_id: int, user_id: int, lang: str) -> str:
        """退出: take the sign-up back before the start; the pop-up's text.
        :meth:`Signup.withdraw`."""
        return await self.signups.withdraw(tournament_id, user_id, lang)

    def start_refusal(self, record: TournamentRecord, count: int, lang: str) -> str | None:
        """Why 开赛 cannot start ``record`` with ``count`` signed up, else ``None``.
        :meth:`Signup.start_refusal`."""
        return self.signups.start_refusal(record, count, lang)

    async def start(self, tournament_id: int) -> None:
        """Start the tournament: the fees into the pool (who cannot pay is dropped and named), then
        the first stage; with fewer than one table left it is cancelled (fees refunded).
        :meth:`Start.start`."""
        await self.starting.start(tournament_id)

    async def _post_stored(self, tournament_id: int) -> None:
        """Post the tournament's group messages due in the store (:meth:`_post_due`).
        :meth:`Posts._post_stored`."""
        await self.group_posts._post_stored(tournament_id)

    def _post_due(self, record: TournamentRecord) -> None:
        """Post the group messages stored with the tournament's steps and not sent yet
        (:attr:`TournamentRecord.posts`: a stage's lead and draw, a tie's extra deals, the cancel),
        in the background, in their order. :meth:`Posts._post_due`."""
        self.group_posts._post_due(record)

    def _arm_posts(self, record: TournamentRecord) -> None:
        """Another worker claimed some of the tournament's due group messages: post what is still
        due once the last claim ran out (:meth:`_on_posts`). :meth:`Posts._arm_posts`."""
        self.group_posts._arm_posts(record)

    async def _on_posts(self, stamp: timers.Stamp) -> None:
        """The claims on a tournament's due group messages ran out (:meth:`_arm_posts`): post those
        still due (their claims decide who sends them). :meth:`Posts._on_posts`."""
        await self.group_posts._on_posts(stamp)

    def _arm_start(self, tournament_id: int, at: float) -> None:
        """ :meth:`Start._arm_start`."""
        self.starting._arm_start(tournament_id, at)

    async def _on_start(self, stamp: timers.Stamp) -> None:
        """The timed start (定时赛): start, or cancel with too few signed up.
        :meth:`Start._on_start`."""
        await self.starting._on_start(stamp)

    def _arm_time(self, tournament_id: int, stage: int, at: float) -> None:
        """ :meth:`Start._arm_time`."""
        self.starting._arm_time(tournament_id, stage, at)

    async def _on_time(self, stamp: timers.Stamp) -> None:
        """A stage's time limit has run out (RULES.md §10.1 "Time", seed 001
        比賽以15分鐘為限。時間一到，每桌把手中的牌打完): the group is told once and the deals in
        progress are the last: a table ends after its running deal (:meth:`settle` reads the
        mark stored here), its standings count the deals it played and the stage advances by
        them. :meth:`Start._on_time`."""
        await self.starting._on_time(stamp)

    async def _begin_stage(self, record: TournamentRecord, state: dict[str, Any], number: int,
                           field: list[int], previous: Mapping[int, int] | None, *,
                           lead: str | None = None) -> None:
        """Draw stage ``number`` of ``field`` (``previous``: the stage before's scores), store its
        tables with the tournament's state in one transaction, post the draw and deal every table
        at once (tournament lock held). :meth:`Stages._begin_stage`."""
        await self.stages._begin_stage(record, state, number, field, previous, lead=lead)

    async def _deal_table(self, record: TournamentRecord, stage: int, number: int,
                          players: Sequence[int], names: Mapping[int, str], *,
                          note: str | None = None) -> None:
        """Deal the next deal at a tournament table (creating its bot table the first time): its
        seats are its players, seats that left played by the AI. :meth:`Stages._deal_table`."""
        await self.stages._deal_table(record, stage, number, players, names, note=note)

    def rules(self, table: Table, rules: Rules) -> Rules:
        """The tournament's rules, as the group's competitions played when it opened
        (``redeal_rule`` ``forced_bid`` by default, RULES.md §2.3); every deal of a table the same
        (its last deal's from the second on). :meth:`Stages.rules`."""
        return self.stages.rules(table, rules)

    async def settle(self, table: Table, state: DealState) -> tuple[Settlement, Standings]:
        """Record the finished deal in the table's standings (the escape's points; a leaver
        forfeits the tournament, RULES.md §10.1) with the deal closed and the table stored, in one
        store transaction; no beans move. :meth:`Stages.settle`."""
        return await self.stages.settle(table, state)

    async def deal_over(self, table: Table) -> None:
        """After a deal's result: the table's next deal, or, its last played, the table is done (no
        longer stored; it stays in memory showing the end) and the stage is looked at in the
        background (lock held). :meth:`Stages.deal_over`."""
        await self.stages.deal_over(table)

    async def _stage_check(self, tournament_id: int, stage: int) -> None:
        """When every table of ``stage`` has finished: its extra deals (加赛) where a tie at a table
        must be played off, else the result, then the next stage or the end.
        :meth:`Decided._stage_check`."""
        await self.decisions._stage_check(tournament_id, stage)

    async def _finish(self, record: TournamentRecord, state: Mapping[str, Any],
                      final: FinalRanking[int] | None,
                      standings: Sequence[TableStandings] = (), *,
                      posts: Sequence[tuple[str, str]] = ()) -> None:
        """Pay the pool out once by the tournament's places and post the final ranking with the
        revealed seed and the referee's commands, once (:meth:`_announce`; tournament lock held).
        :meth:`Decided._finish`."""
        await self.decisions._finish(record, state, final, standings, posts=posts)

    def _announce(self, record: TournamentRecord) -> None:
        """Post a finished tournament's final ranking (in the background): due until it was sent
        (the seed must be revealed), once in the normal case, as a duplicate challenge's
        (:meth:`bot.features.challenge.driver.Challenges._announce`). :meth:`Final._announce`."""
        self.finals._announce(record)

    async def _on_final(self, stamp: timers.Stamp) -> None:
        """Another worker's claim on posting a final ranking has run out (:meth:`restore`): post it
        unless it was posted meanwhile (the claim, taken right before the send, decides).
        :meth:`Final._on_final`."""
        await self.finals._on_final(stamp)

    async def cancel(self, tournament_id: int, by: str) -> bool:
        """Cancel an open or running tournament (取消, an admin's /stop): every fee refunded once,
        its running tables closed, the group told. :meth:`Leaving.cancel`."""
        return await self.leaving.cancel(tournament_id, by)

    async def _stop_tables(self, tournament_id: int, stage: int) -> None:
        """Stop the tournament's tables (tournament lock held): those of ``stage`` as stored,
        whichever worker deals them (each table's lock loads the stored table here), and any other
        this process holds. :meth:`Leaving._stop_tables`."""
        await self.leaving._stop_tables(tournament_id, stage)

    def table_of(self, user_id: int) -> Table | None:
        """The running tournament table where ``user_id`` sits (and has not left), if any.
        :meth:`Leaving.table_of`."""
        return self.leaving.table_of(user_id)

    def refresh_board(self, tournament_id: int, *, now: bool = False) -> None:
        """Ask for the group's board to be drawn again: at most once per :attr:`board_interval` (a
        timer draws the last change of a busy minute); ``now``: at once (a new stage, the end).
        :meth:`Board.refresh_board`."""
        self.boards.refresh_board(tournament_id, now=now)

    async def _on_board_timer(self, stamp: timers.Stamp) -> None:
        """ :meth:`Board._on_board_timer`."""
        await self.boards._on_board_timer(stamp)

    async def _draw_board(self, tournament_id: int) -> None:
        """Draw the group's board as stored now, under the board's lock (:func:`board_lock`) with
        everything read inside it: on any number of workers one board message is sent (the next
        draw edits the one stored) and a board never replaces a newer one.
        :meth:`Board._draw_board`."""
        await self.boards._draw_board(tournament_id)

    async def watch_refusal(self, record: TournamentRecord, number: int, lang: str
                            ) -> str | None:
        """Why 观战 of table ``number`` is refused (the tournament is not running, the table is not
        playing now), in ``lang``; ``None`` when it may be watched.
        :meth:`Board.watch_refusal`."""
        return await self.boards.watch_refusal(record, number, lang)

    async def watch(self, tournament_id: int, number: int, user_id: int) -> bool:
        """观战: ``user_id`` watches running table ``number`` in their private chat: a new message
        there shows the table's picture as its seats see it (public facts only, never a hand),
        edited as the table moves (:meth:`bot.game.deal.DealDriver.update_watch`, paced by the
        outlet) until the table's stage ends, its last picture staying. :meth:`Board.watch`."""
        return await self.boards.watch(tournament_id, number, user_id)

    def timer_callbacks(self) -> dict[str, Callable[[timers.Stamp], Awaitable[None]]]:
        """What fires each kind of this module's timers (rows with several workers).
        :meth:`Restore.timer_callbacks`."""
        return self.restoring.timer_callbacks()

    async def restore(self, *, alone: bool = False) -> None:
        """After a start (a single process's, ``alone``, or a webhook worker's sweep): a final
        ranking not posted yet is posted (``alone``: also one this process claimed before it
        stopped, the send cut short; with several workers one another worker claimed is tried again
        once that claim ran out, :data:`ANNOUNCE_CLAIM_SECONDS` from now); the group messages
        stored with a step and not sent yet (:meth:`_post_due`; the claims as the final ranking's);
        every live tournament as :meth:`resume` leaves it. :meth:`Restore.restore`."""
        await self.restoring.restore(alone=alone)

    async def resume(self, tournament_id: int) -> None:
        """Take over tournament ``tournament_id`` as it is stored (its worker died in the middle of
        one of its steps, the watchdog of its lock fired, or a worker starts): an open one's timed
        start armed again (or started, its time having passed); a running one whose start was cut
        short after the fees started (:meth:`start`: stage 1 drawn); a running one's tables caught
        between two deals dealt on, tables whose stored bot table is gone restarted, and its stage
        decided when every table has finished; a finished one whose final ranking was neither
        posted nor claimed gets it posted (:meth:`_announce`) and its board drawn; a cancelled
        one's tables still stored are stopped (its cancel was cut short after the refunds).
        :meth:`Restore.resume`."""
        await self.restoring.resume(tournament_id)
