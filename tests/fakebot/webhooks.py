"""Telegram's webhook delivery, for the fake Bot API (issue 16).

With :meth:`FakeBotApi.deliver_webhooks` the injected updates are POSTed (JSON, with the
``X-Telegram-Bot-Api-Secret-Token`` header) instead of waiting for ``getUpdates``: to the given
URLs in turn, as a reverse proxy in front of N workers spreads them (round-robin per request).
Like Telegram, an update whose POST does not answer 200 (an error status, a refused or broken
connection, no answer within ``timeout``) is sent again after ``retry_delay`` seconds — to the
next URL, since the proxy picks again — until one answers 200. Up to ``parallel`` updates are in
flight at once (Telegram's ``max_connections``).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass
from typing import Any

import aiohttp


@dataclass(frozen=True, slots=True)
class Delivery:
    """One POST of an update: to ``urls[target]``, answered ``status`` (0: no HTTP answer)."""

    update_id: int
    target: int
    status: int
    time: float


class WebhookDelivery:
    """See the module docstring."""

    def __init__(self, urls: list[str], secret: str, *, parallel: int = 4,
                 retry_delay: float = 0.2, timeout: float = 10.0) -> None:
        self.urls = list(urls)
        self.secret = secret
        self.parallel = parallel
        self.retry_delay = retry_delay
        self.timeout = timeout
        self.deliveries: list[Delivery] = []
        self.delivered: set[int] = set()
        self._turn = itertools.count()
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._session: aiohttp.ClientSession | None = None
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=self.timeout))
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._run()) for _ in range(self.parallel)]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._session is not None:
            await self._session.close()

    def push(self, update: dict[str, Any]) -> None:
        """Deliver ``update`` (with its ``update_id``)."""
        self._queue.put_nowait(update)

    def answered(self, update_id: int) -> list[int]:
        """The targets that answered the update 200 (more than one: a retry after an answer
        that was 200 but arrived too late)."""
        return [d.target for d in self.deliveries if d.update_id == update_id and d.status == 200]

    async def _run(self) -> None:
        while True:
            update = await self._queue.get()
            await self._deliver(update)

    async def _deliver(self, update: dict[str, Any]) -> None:
        assert self._session is not None
        body = json.dumps(update)
        headers = {"Content-Type": "application/json",
                   "X-Telegram-Bot-Api-Secret-Token": self.secret}
        while True:
            target = next(self._turn) % len(self.urls)
            try:
                async with self._session.post(self.urls[target], data=body,
                                              headers=headers) as response:
                    status = response.status
            except (aiohttp.ClientError, TimeoutError, OSError):
                status = 0
            self.deliveries.append(Delivery(update["update_id"], target, status,
                                            time.monotonic()))
            if status == 200:
                self.delivered.add(update["update_id"])
                return
            await asyncio.sleep(self.retry_delay)
