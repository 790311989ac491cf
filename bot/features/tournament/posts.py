"""The group messages stored with a tournament's steps, posted once:
a part of the group tournaments' driver
(:class:`bot.features.tournament.driver.Tournaments`, see its module docstring)."""

from __future__ import annotations

from functools import partial

from bot.features.tournament.common import (
    POSTS,
    Part,
    PostClaim,
    tournament_lock,
    tournament_of_lock,
)
from bot.game import timers
from bot.game.drawing import Drawing
from bot.store.tournament_records import TournamentRecord


class Posts(Part):
    """The group messages stored with a tournament's steps, posted once."""

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
                                 claim=PostClaim(self.ctx.store, tid, post.key))

    async def _posted(self, tournament_id: int, key: str, message_id: int) -> None:
        await self.ctx.store.clear_tournament_post(tournament_id, key)

    def _arm_posts(self, record: TournamentRecord) -> None:
        """Another worker claimed some of the tournament's due group messages: post what is
        still due once the last claim ran out (:meth:`_on_posts`)."""
        until = max((p.claimed_until for p in record.posts), default=0.0)
        if until > self.top.clock():
            self.ctx.outlet.arm(POSTS, timers.Stamp(tournament_lock(record.tournament_id), ""),
                                until, self._on_posts)

    async def _on_posts(self, stamp: timers.Stamp) -> None:
        """The claims on a tournament's due group messages ran out (:meth:`_arm_posts`): post
        those still due (their claims decide who sends them)."""
        tid = tournament_of_lock(stamp.key)
        if tid is not None:
            await self._post_stored(tid)
