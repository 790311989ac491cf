"""Resuming one table on this worker after another stopped in the middle of it: the
watchdog's and the result retry's callbacks (:mod:`bot.telegram.workers.timers`), and the sweep of a
worker's start.

What :mod:`bot.game.restore` does for every table after a restart, for one table under its lock:
a running deal is drawn again and its timers armed (a deal that finished but was not settled is
settled, exactly once), a deal that everybody passed is dealt again, an open lobby gets its expiry
back (or expires), a result not posted yet is posted. A competition's table left between two
deals goes on: a match deals its next deal or ends (:meth:`Matches.resume`), a challenge deal
gets its end finished (the member's menu, the board), a tournament's table deals its next deal or
is done (:meth:`Tournaments.deal_over`: the stage is looked at). A duplicate challenge's own steps
(its close: the payout, the final board and ranking) are resumed by :meth:`Challenges.resume`, a
tournament's (its start, a stage's check and the next stage's deal) by
:meth:`Tournaments.resume`.
"""

from __future__ import annotations

from bot.core.table import DEAL, LOBBY, RESULT
from bot.features.challenge.driver import Challenges, challenge_of_lock
from bot.features.match.driver import Matches
from bot.features.tournament.driver import Tournaments, tournament_of_lock
from bot.game import timers
from bot.game.context import GameContext
from bot.game.deal import DealDriver
from bot.game.lobby import Lobby


class Resumer:
    """The game's steps to resume a table (see the module docstring)."""

    def __init__(self, ctx: GameContext, lobby: Lobby, deals: DealDriver, matches: Matches,
                 challenges: Challenges, tournaments: Tournaments) -> None:
        self.ctx = ctx
        self.lobby = lobby
        self.deals = deals
        self.matches = matches
        self.challenges = challenges
        self.tournaments = tournaments

    async def resume(self, stamp: timers.Stamp) -> None:
        """Resume table ``stamp.key`` as it is stored (takes the table's lock), or the
        duplicate challenge or the tournament whose lock key it is."""
        challenge_id = challenge_of_lock(stamp.key)
        if challenge_id is not None:
            await self.challenges.resume(challenge_id)
            return
        tournament_id = tournament_of_lock(stamp.key)
        if tournament_id is not None:
            await self.tournaments.resume(tournament_id)
            return
        async with self.ctx.tables.lock(stamp.key):
            table = self.ctx.tables.get(stamp.key)
            if table is None:
                return
            if table.phase == DEAL and table.state is not None:
                table.messages.rendered.clear()
                if table.state.phase == "redeal":
                    await self.deals.redeal_now(table)
                else:
                    await self.deals.advance(table)
            elif table.phase == RESULT and table.competition.match_id is not None:
                await self.matches.resume(table)
            elif table.phase == RESULT and table.competition.challenge_id is not None:
                await self.challenges.deal_over(table)
            elif table.phase == RESULT and table.competition.tournament is not None:
                if table.progress.result_due:
                    await self.deals.post_due_result(table)
                await self.tournaments.deal_over(table)
            elif table.phase == RESULT:
                if table.progress.result_due:
                    await self.deals.post_due_result(table)
                if table.progress.ready and self.deals.on_offer is not None:
                    self.deals.on_offer(table)  # Play again's timeout (at once when it passed)
            elif table.phase == LOBBY:
                if timers.seconds_left(table.progress.lobby_deadline) <= 0:
                    await self.lobby.expire(table)
                else:
                    self.lobby.arm_expiry(table)

    async def retry_result(self, stamp: timers.Stamp) -> None:
        """The result timer: post the table's last result again if it is still due and the
        table still shows that deal's result (its token); at a match's table, what the match
        still owes the chat (:meth:`Matches.resume`: a deal's result, or the final
        standings)."""
        async with self.ctx.tables.lock(stamp.key):
            table = self.ctx.tables.get(stamp.key)
            if table is not None and table.token == stamp.token and table.phase == RESULT \
                    and table.progress.result_due:
                if table.competition.match_id is not None:
                    await self.matches.resume(table)
                else:
                    await self.deals.post_due_result(table)
