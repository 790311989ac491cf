"""The workers' webhook: Telegram (or the reverse proxy in front of the workers) POSTs
each update here; it is answered 200 only once it is stored.

PTB's own webhook server (``Updater.start_webhook``) answers 200 as soon as the update is in
the process's memory queue, so a worker killed after that answer loses the update: Telegram
does not send it again. This small tornado server (tornado is PTB's webhook dependency already)
checks ``X-Telegram-Bot-Api-Secret-Token`` (403 otherwise), stores the update in the inbox
(:meth:`bot.telegram.workers.shared.SharedDb.store_update`, leased to this worker), answers 200 and
then processes it with ``Application.process_update``; an update already in the inbox (Telegram's
retry after an answer that did not arrive) is answered 200 and not processed again. A database
that cannot store it gets 500, and Telegram retries. Updates whose worker died before they were
done are claimed by the live workers when their lease runs out (:meth:`reclaim`).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import socket
from typing import Any

from telegram import Update
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application as WebApplication
from tornado.web import RequestHandler

from bot.telegram.services import App
from bot.telegram.workers.shared import SharedDb

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
#: Seconds between two looks for updates whose worker died.
RECLAIM_EVERY = 0.5


class WebhookServer:
    """See the module docstring.

    Args:
        application: the initialized Application that processes the updates.
        shared: the shared rows (the inbox). secret: the expected secret token.
        path: the URL path to serve (without the leading slash). lease: seconds an update
            stays leased to its worker (renewed while it lives, :meth:`SharedDb.renew`).
    """

    def __init__(self, application: App, shared: SharedDb, secret: str, path: str,
                 lease: float) -> None:
        self.application = application
        self.shared = shared
        self.secret = secret.encode()
        self.path = path
        self.lease = lease
        self.http: HTTPServer | None = None
        self.port = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._reclaim: asyncio.Task[None] | None = None
        #: Updates processed here, and of those how many another worker had left (tests).
        self.processed = 0
        self.reclaimed = 0

    async def start(self, host: str, port: int, *, reuse_port: bool = False) -> None:
        """Listen on ``host``:``port`` (``reuse_port``: several worker processes share the
        port, the kernel spreads the connections) and start reclaiming."""
        web = WebApplication([(rf"/{self.path}", _UpdateHandler, {"server": self})])
        self.http = HTTPServer(web, xheaders=True)
        sockets = bind_sockets(port, address=host, family=socket.AF_INET, reuse_port=reuse_port)
        self.port = sockets[0].getsockname()[1]
        self.http.add_sockets(sockets)
        self._reclaim = asyncio.get_running_loop().create_task(self._reclaim_loop())

    async def stop(self) -> None:
        """Stop accepting, then let the updates in progress finish (their leases stop being
        renewed with this worker: whatever is left is another worker's)."""
        if self.http is not None:
            self.http.stop()
            await self.http.close_all_connections()
        if self._reclaim is not None:
            self._reclaim.cancel()
            await asyncio.gather(self._reclaim, return_exceptions=True)
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def receive(self, body: bytes, secret: str | None) -> int:
        """Take one POSTed update; returns the HTTP status to answer."""
        if secret is None or not hmac.compare_digest(secret.encode(), self.secret):
            log.warning("webhook call without the right secret token refused")
            return 403
        try:
            data = json.loads(body)
            update_id = int(data["update_id"])
        except (ValueError, KeyError, TypeError):
            return 400
        try:
            fresh = await self.shared.store_update(update_id, body.decode(), self.lease)
        except Exception:
            log.exception("update %s could not be stored", update_id)
            return 500
        if fresh:
            self._process(update_id, data)
        return 200

    def _process(self, update_id: int, data: dict[str, Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._run(update_id, data))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, update_id: int, data: dict[str, Any]) -> None:
        try:
            update = Update.de_json(data, self.application.bot)
            await self.application.process_update(update)
        except Exception:
            log.exception("update %s failed", update_id)
        self.processed += 1
        try:
            await self.shared.finish_update(update_id)
        except Exception:
            log.exception("update %s could not be marked done", update_id)

    async def _reclaim_loop(self) -> None:
        while True:
            await asyncio.sleep(RECLAIM_EVERY)
            try:
                await self.reclaim()
            except Exception:
                log.exception("reclaiming updates failed")

    async def reclaim(self) -> int:
        """Process the updates whose worker died before they were done; returns how many."""
        claimed = await self.shared.claim_stale_updates(self.lease)
        for update_id, body in claimed:
            log.warning("update %s: its worker stopped before it was done; processing it",
                        update_id)
            self.reclaimed += 1
            self._process(update_id, json.loads(body))
        return len(claimed)


class _UpdateHandler(RequestHandler):
    """POST: one update (see :meth:`WebhookServer.receive`)."""

    def initialize(self, server: WebhookServer) -> None:
        self.server = server

    async def post(self) -> None:
        status = await self.server.receive(self.request.body,
                                           self.request.headers.get(SECRET_HEADER))
        self.set_status(status)
        self.finish()

