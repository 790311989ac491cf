"""The workers' webhook server (issue 16): the secret token, storing before answering 200,
Telegram's retries deduplicated by ``update_id``, and updates of a dead worker taken over."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp

from bot.store import open_store
from bot.telegram.workers.shared import SharedDb
from bot.telegram.workers.webhook import SECRET_HEADER, WebhookServer
from tests.databases import PostgresServer, RawDatabase

SECRET = "s3cret-token_1"


class Recorder:
    """Stands for the Application: records the updates it is given."""

    bot = None

    def __init__(self) -> None:
        self.update_ids: list[int] = []

    async def process_update(self, update: Any) -> None:
        self.update_ids.append(update.update_id)


def message_update(update_id: int) -> dict[str, Any]:
    return {"update_id": update_id, "message": {
        "message_id": 1, "date": 0, "chat": {"id": 5, "type": "private"},
        "from": {"id": 5, "is_bot": False, "first_name": "Ann"}, "text": "hi"}}


async def test_webhook_checks_the_secret_stores_first_and_processes_each_update_once(
    postgres_server: PostgresServer,
):
    url = await postgres_server.create_database()
    store = await open_store(url)  # migrates
    shared = await SharedDb.open(url, "w-test")
    app = Recorder()
    server = WebhookServer(app, shared, SECRET, "tg/hook", lease=5.0)  # type: ignore[arg-type]
    raw = RawDatabase("postgres", url)
    try:
        await server.start("127.0.0.1", 0)
        hook = f"http://127.0.0.1:{server.port}/tg/hook"
        body = json.dumps(message_update(7))
        async with aiohttp.ClientSession() as session:

            async def post(data: str, secret: str | None) -> int:
                headers = {SECRET_HEADER: secret} if secret is not None else {}
                async with session.post(hook, data=data, headers=headers) as response:
                    return response.status

            assert await post(body, None) == 403
            assert await post(body, "s3cret-token_2") == 403
            assert await raw.fetch("SELECT update_id FROM inbox") == []
            assert await post("{not json", SECRET) == 400
            assert await post(body, SECRET) == 200
            stored = await raw.fetch("SELECT update_id, claimed_by FROM inbox")
            assert stored == [(7, shared.worker)]  # stored before the answer
            assert await post(body, SECRET) == 200  # Telegram's retry: answered, not redone
        for _ in range(100):
            rows = await raw.fetch("SELECT done_at FROM inbox WHERE update_id = 7")
            if rows[0][0] is not None:
                break
            await asyncio.sleep(0.02)
        assert rows[0][0] is not None
        assert app.update_ids == [7]

        # an update another worker stored and did not finish: taken over when its lease ran out
        # (by the server's own look every RECLAIM_EVERY seconds, or by the call below)
        now = int(time.time() * 1000)
        await raw.execute(  # a seat w-dead claimed for a minute, after its last heartbeat
            "INSERT INTO leases (name, worker, until_ms) VALUES ('player:5', 'w-dead', ?),"
            " ('seat:-1:0:5@w-dead', 'w-dead', ?), ('player:6', 'w-alive', ?)",
            now + 59_000, now + 59_000, now + 60_000)
        await raw.execute(
            "INSERT INTO inbox (update_id, body, received_at, claimed_by, claimed_until)"
            " VALUES (8, ?, ?, 'w-dead', ?), (9, ?, ?, 'w-alive', ?)",
            json.dumps(message_update(8)), now - 9000, now - 1,
            json.dumps(message_update(9)), now, now + 60_000)
        await server.reclaim()
        for _ in range(100):
            if 8 in app.update_ids:
                break
            await asyncio.sleep(0.02)
        assert app.update_ids == [7, 8] and server.reclaimed == 1
        assert await raw.fetch("SELECT name FROM leases") == [("player:6",)]
        assert await raw.fetch("SELECT update_id, claimed_by FROM inbox ORDER BY update_id") == [
            (7, shared.worker), (8, shared.worker), (9, "w-alive")]
    finally:
        await server.stop()
        await shared.close()
        await store.close()
        await postgres_server.drop_database(url)
