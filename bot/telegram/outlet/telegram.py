"""The game layer's outlet over the Bot API (:class:`TelegramOutlet`).

Implements :class:`bot.game.outlet.Outlet`: messages through :mod:`bot.telegram.outlet.send` (a
closed chat becomes :class:`~bot.game.outlet.Unreachable`, other failures are logged), audience
messages through the per-chat :class:`~bot.telegram.outlet.outbox.Outbox`, timers on PTB's
``JobQueue`` (one job per kind and table, run however late).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Hashable
from datetime import UTC, datetime
from functools import partial

from telegram import Bot
from telegram.error import Forbidden, TelegramError
from telegram.ext import CallbackContext, JobQueue

from bot.game.drawing import Drawing
from bot.game.outlet import PROMPT, Claim, OutboxJob, Sent, TimerCallback, Unreachable
from bot.game.timers import Stamp
from bot.presentation.keyboards import Keyboard
from bot.telegram import photos
from bot.telegram.outlet import send
from bot.telegram.outlet.hands import EphemeralHands
from bot.telegram.outlet.limiter import RANK, is_group
from bot.telegram.outlet.outbox import Outbox

log = logging.getLogger(__name__)

#: APScheduler skips a job that runs more than 1 s late unless told otherwise; ours must run
#: however late (e.g. jobs armed while restoring, before the JobQueue has started).
RUN_LATE = {"misfire_grace_time": None}


def job_name(kind: str, key: str) -> str:
    """The name of the one job of ``kind`` for table ``key``."""
    return f"{kind}:{key}"


class TelegramOutlet:
    """See the module docstring.

    Args:
        bot: the Application's bot (requests go through its rate limiter).
        job_queue: the Application's JobQueue. cache: uploaded pictures' ``file_id``.
        outbox: the audience messages' outbox.
    """

    def __init__(self, bot: Bot, job_queue: JobQueue, cache: photos.PhotoCache,
                 outbox: Outbox) -> None:
        self.bot = bot
        self.job_queue = job_queue
        self.cache = cache
        self.outbox = outbox
        self._told: dict[int, asyncio.Task[None]] = {}
        #: chat id → the key of the newest message posted there (posts keep their order).
        self._last_post: dict[int, str] = {}
        #: posts waiting for the chat's previous post to be sent.
        self._chained: set[asyncio.Task[None]] = set()
        #: keys of those posts (not in the outbox yet).
        self._chained_keys: set[str] = set()
        #: the hands shown in groups as ephemeral messages.
        self.hands = EphemeralHands(bot, cache)

    async def present(
        self, chat_id: int, message_id: int | None, is_photo: bool, shown_key: object,
        drawing: Drawing, thread_id: int | None = None, *, rank: int = PROMPT,
    ) -> tuple[int, bool] | None:
        key = shown_key if isinstance(shown_key, Hashable) else None
        discard = partial(self._tidy_delete, chat_id) if is_group(chat_id) else None
        ranked = RANK.set(rank)
        try:
            return await send.present(self.bot, self.cache, chat_id, message_id, is_photo, key,
                                      drawing, thread_id, discard)
        except Forbidden as exc:
            raise Unreachable(str(exc)) from exc
        except TelegramError as exc:
            log.warning("message in %s failed: %s", chat_id, exc)
            return None
        finally:
            RANK.reset(ranked)

    async def present_hand(
        self, chat_id: int, receiver_id: int, ephemeral_id: int | None, is_photo: bool,
        shown_key: object, drawing: Drawing, *, rank: int = PROMPT,
    ) -> tuple[int, bool] | None:
        ranked = RANK.set(rank)
        try:
            return await self.hands.present(chat_id, receiver_id, ephemeral_id, is_photo,
                                             shown_key, drawing)
        finally:
            RANK.reset(ranked)

    async def withdraw_hand(self, chat_id: int, receiver_id: int, ephemeral_id: int) -> None:
        await self.hands.withdraw(chat_id, receiver_id, ephemeral_id)

    async def prepare(self, drawing: Drawing) -> None:
        await send.picture_of(drawing)

    def update_audience(self, key: str, chat_id: int, job: OutboxJob) -> None:
        self.outbox.request(key, chat_id, job)

    def update_seat(self, key: str, chat_id: int, job: OutboxJob) -> None:
        self.outbox.request(key, chat_id, job, watcher=True)

    async def send(self, chat_id: int, text: str, markup: Keyboard | None = None,
                   thread_id: int | None = None, *, notify: bool = False,
                   rank: int | None = None) -> int | None:
        ranked = RANK.set(RANK.get() if rank is None else rank)
        try:
            message = await send.send_text(self.bot, chat_id, text, markup,
                                           thread_id, notify=True if notify else None)
        except Forbidden as exc:
            raise Unreachable(str(exc)) from exc
        except TelegramError as exc:
            log.warning("sendMessage to %s failed: %s", chat_id, exc)
            return None
        finally:
            RANK.reset(ranked)
        return message.message_id

    def tell(self, chat_id: int, text: str, thread_id: int | None = None) -> None:
        previous = self._told.get(chat_id)

        async def told() -> None:
            if previous is not None:
                await asyncio.gather(previous, return_exceptions=True)
            try:
                await self.send(chat_id, text, None, thread_id)
            except Unreachable:
                log.info("cannot tell chat %s", chat_id)

        task = asyncio.get_running_loop().create_task(told())
        self._told[chat_id] = task
        task.add_done_callback(lambda done: self._forget_told(chat_id, done))

    def _forget_told(self, chat_id: int, task: asyncio.Task[None]) -> None:
        if self._told.get(chat_id) is task:
            del self._told[chat_id]

    def post(self, key: str, chat_id: int, drawing: Drawing,
             thread_id: int | None = None, *, sent: Sent | None = None,
             claim: Claim | None = None) -> None:
        async def job() -> bool:
            if claim is not None and not await claim.take():
                return False
            try:
                if drawing.render is None:
                    message = await send.send_text(self.bot, chat_id, drawing.text,
                                                   drawing.markup, thread_id)
                else:
                    picture = await send.picture_of(drawing)
                    message = await photos.send_photo(self.bot, self.cache, chat_id, picture,
                                                      drawing.text, drawing.markup, thread_id)
            except TelegramError as exc:
                log.warning("message to %s failed: %s", chat_id, exc)
                if claim is not None:
                    await claim.give_back()
                return True
            if sent is not None:
                await sent(message.message_id)
            return True

        posted = _Posted(job, drawing)
        # new messages in a chat appear in the order they were asked for (a match's last
        # result before its final standings), however long each picture takes to draw
        previous = self._last_post.get(chat_id)
        self._last_post[chat_id] = key
        if previous is None or previous == key or not self.outbox.pending(previous):
            self.outbox.request(key, chat_id, posted, urgent=True)
            return

        async def after_previous() -> None:
            try:
                await self.outbox.settled(previous)
                self.outbox.request(key, chat_id, posted, urgent=True)
            finally:
                self._chained_keys.discard(key)

        self._chained_keys.add(key)

        task = asyncio.get_running_loop().create_task(after_previous())
        self._chained.add(task)
        task.add_done_callback(self._chained.discard)

    def posting(self, key: str) -> bool:
        return key in self._chained_keys or self.outbox.pending(key)

    async def caught_up(self) -> None:
        """Wait until what was asked so far is sent: the outbox's requests and the messages
        told (tests; later requests are not waited for)."""
        await asyncio.gather(*self._told.values(), *self._chained, return_exceptions=True)
        await self.outbox.caught_up()

    async def close(self, chat_id: int, message_id: int, is_photo: bool, text: str) -> bool:
        return await send.set_caption(self.bot, chat_id, message_id, is_photo, text)

    async def strip(self, chat_id: int, message_id: int) -> None:
        """Takes the keyboard off in the background, once the chat's budget has a slot that
        no other message wants (a tidy-up never delays the table,
        :mod:`bot.telegram.outlet.outbox`)."""
        async def job() -> bool:
            try:
                await self.bot.edit_message_reply_markup(chat_id, message_id, reply_markup=None)
            except TelegramError as exc:
                log.info("taking the keyboard off %s in %s failed: %s", message_id, chat_id,
                         exc)
            return True

        self.outbox.request(f"{chat_id}#strip{message_id}", chat_id, job, background=True)

    def _tidy_delete(self, chat_id: int, message_id: int) -> None:
        """Delete a replaced message of a group (a lobby that became the table picture) in the
        background, once the chat's budget has a slot that no other message wants."""
        async def job() -> bool:
            await send.delete_quietly(self.bot, chat_id, message_id)
            return True

        self.outbox.request(f"{chat_id}#delete{message_id}", chat_id, job, background=True)

    async def delete(self, chat_id: int, message_id: int) -> None:
        await send.delete_quietly(self.bot, chat_id, message_id)

    def arm(self, kind: str, stamp: Stamp, at: float, callback: TimerCallback) -> None:
        self.cancel(kind, stamp.key)

        async def fire(context: CallbackContext) -> None:  # type: ignore[type-arg]
            await callback(stamp)

        # at the absolute time: a delay counted from now would shift by however long the
        # scheduler takes to read its own clock after ours (RUN_LATE runs a past time at once)
        self.job_queue.run_once(fire, datetime.fromtimestamp(at, UTC), data=stamp,
                                name=job_name(kind, stamp.key), job_kwargs=RUN_LATE)

    def cancel(self, kind: str, key: str) -> None:
        for job in self.job_queue.get_jobs_by_name(job_name(kind, key)):
            job.schedule_removal()


class _Posted:
    """The outbox's job for a new message (:meth:`TelegramOutlet.post`), with ``prepare()``:
    its picture is drawn before the chat's slot comes (the outbox calls it), so that the
    send goes when the slot comes, not a render later (a deal's result)."""

    def __init__(self, job: OutboxJob, drawing: Drawing) -> None:
        self._job = job
        self._drawing = drawing

    async def __call__(self) -> bool:
        return await self._job()

    async def prepare(self) -> None:
        if self._drawing.render is not None:
            await send.picture_of(self._drawing)
