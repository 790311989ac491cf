"""Long polling's updates kept in the store until they are handled: at least once, and in
effect once (the same design as the webhook workers' inbox, :mod:`bot.telegram.workers.webhook`).

PTB's ``Updater`` confirms the updates of one ``getUpdates`` answer by asking for the next ones
(a higher ``offset``) as soon as it has put them in the Application's update queue, before
their handlers ran: a process killed in between lost them (Telegram does not send a confirmed
update again). Here

- :class:`InboxQueue`, the Application's update queue (``ApplicationBuilder.update_queue``),
  stores every update in the inbox (:meth:`bot.store.Store.store_update`) before it is queued,
  and the ``Updater`` queues the whole answer before it asks for more: an update Telegram was
  told about is stored. An update stored before (Telegram sent it again, its offset not
  confirmed before a restart) is not queued again: it was handled, or is handled from the
  inbox.
- :class:`InboxProcessor`, the Application's update processor
  (``ApplicationBuilder.concurrent_updates``: concurrent as PTB's own), marks each update
  done once its handlers ran (:meth:`bot.store.Store.finish_update`).
- :func:`replay` queues the stored updates not done yet at start-up, before polling begins:
  those of a process that died before their handlers ran.

Done updates are forgotten after :data:`INBOX_DAYS` days (Telegram stops sending an update
again well within a day). An update whose handlers changed the store and whose process died
before it was marked done runs again after the restart (its handlers' own checks apply: a
press on a stale button is refused, a /give is given again).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from typing import Any

from telegram import Update
from telegram.ext import SimpleUpdateProcessor

from bot.store import Store

log = logging.getLogger(__name__)

#: How long a done update is remembered.
INBOX_DAYS = 1.0
#: Seconds between two clean-ups of the done updates (at most, while updates come).
FORGET_EVERY = 3600.0


class InboxQueue(asyncio.Queue[object]):
    """The Application's update queue (see the module docstring). Until :attr:`store` is set
    (at start-up, :func:`bot.telegram.app.build_application`'s ``post_init``) and for anything that
    is not an :class:`~telegram.Update`, a plain queue."""

    def __init__(self) -> None:
        super().__init__()
        self.store: Store | None = None
        self._forgotten = 0.0

    async def put(self, item: object) -> None:
        """Store ``item`` (an update) in the inbox, then queue it; an update stored before is
        dropped. A store that fails raises (the ``Updater`` asks for the same updates again:
        their offset is not confirmed)."""
        store = self.store
        if store is None or not isinstance(item, Update):
            await super().put(item)
            return
        body = json.dumps(item.to_dict(recursive=True))
        if not await store.store_update(item.update_id, body):
            log.info("update %s came again: it was taken already", item.update_id)
            return
        await super().put(item)
        loop_time = asyncio.get_running_loop().time()
        if loop_time - self._forgotten >= FORGET_EVERY:
            self._forgotten = loop_time
            await store.forget_done_updates(datetime.now(UTC) - timedelta(days=INBOX_DAYS))


class InboxProcessor(SimpleUpdateProcessor):
    """Processes updates concurrently (at most ``max_concurrent_updates`` at once, as PTB's
    ``concurrent_updates(True)``) and marks each one done in the inbox once its handlers ran
    (when :attr:`store` is set)."""

    def __init__(self, max_concurrent_updates: int) -> None:
        super().__init__(max_concurrent_updates)
        self.store: Store | None = None

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Run the handlers (``coroutine``), then mark ``update`` done, also when they failed
        (logged; they would fail again). Not when the stop cancelled them. A failure to mark
        it is logged: it would run once more after a restart."""
        try:
            await coroutine
        except asyncio.CancelledError:
            raise  # cut short by the stop: handled again after the restart
        except Exception:
            log.exception("update failed")  # done all the same: it would fail again
        if self.store is not None and isinstance(update, Update):
            try:
                await self.store.finish_update(update.update_id)
            except Exception:
                log.exception("update %s could not be marked done", update.update_id)


async def replay(queue: asyncio.Queue[object], store: Store, bot: Any) -> int:
    """Queue the stored updates not done yet (see the module docstring), oldest first, without
    storing them again; ``bot`` is the Application's (the updates are rebuilt for it).
    Returns how many."""
    pending = await store.pending_updates()
    for update_id, body in pending:
        log.warning("update %s: the bot stopped before it was handled; handling it now",
                    update_id)
        queue.put_nowait(Update.de_json(json.loads(body), bot))
    return len(pending)
