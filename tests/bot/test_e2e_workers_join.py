"""Two webhook workers on one PostgreSQL (issue 16): a Join answered first whose private chat
turns out to be closed, and a Start answered while the table's lock is held. The Join goes to
one worker, the Start pressed right after it to the other, which sees the seat's welcome still
on its way in the store and deals only once that welcome told (or finds the seat given up
already and refuses): nobody is dealt in whose hand cannot reach them, and the group is told
why the seat is free."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg

from bot.game.table import table_key
from bot.i18n import t
from bot.store import open_store
from tests.bot.flow_helpers import HAND_PREFIX, LANG, call_text
from tests.bot.workers_helpers import SECRET, WorkerProcess, payloads
from tests.databases import PostgresServer
from tests.fakebot import Call, Chat, FakeBotApi, FakeMessage, User

TIMEOUT = 60.0


def hands(api: FakeBotApi, user: User) -> list[Call]:
    return [c for c in api.calls if c.ok and c.method in ("sendMessage", "sendPhoto")
            and c.params.get("chat_id") == user.id and call_text(c).startswith(HAND_PREFIX)]


async def lobby_with_bob(api: FakeBotApi, url: str, title: str, ann: User, bob: User,
                         *started: User) -> tuple[Chat, FakeMessage, str]:
    """A new group ``title`` (text tables) whose lobby Ann opened and Bob joined; Ann, Bob and
    ``started`` have opened their private chats with the bot. Returns the group, the lobby and
    Bob's Join (its callback query id)."""
    group = api.new_group(title)
    store = await open_store(url)
    await store.update_group_settings(group.id, pictures=False)
    await store.close()
    for user in (ann, bob, *started):
        api.open_private_chat(user)
    since = len(api.calls)
    api.send_text(ann, group, "/newgame")
    call = await api.wait_for("sendMessage", TIMEOUT, since=since, chat_id=group)
    lobby = api.message(group, call.result["message_id"])
    joined = api.press(bob, lobby, payloads(lobby)["join"])
    assert (await api.wait_answer(joined, TIMEOUT)).params["text"] == t("pop.joined", LANG)
    await api.wait_for(lambda: "2. Bob" in lobby.text, TIMEOUT)
    return group, lobby, joined


async def test_a_joiner_two_workers_cannot_reach_is_unseated_before_the_deal(
    fake_api: FakeBotApi, postgres_server: PostgresServer, tmp_path: Path
):
    url = await postgres_server.create_database()
    workers = [WorkerProcess(fake_api.token, fake_api.base_url, url, tmp_path, f"w{i}",
                             {"TABLE_EDIT_INTERVAL": "0", "GROUP_RATE_LIMIT": "1000"})
               for i in range(2)]
    try:
        for worker in workers:
            await worker.start()
        await asyncio.gather(*(worker.ready() for worker in workers))
        delivery = await fake_api.deliver_webhooks([w.url for w in workers], SECRET)
        ann, bob, kim, dan = (fake_api.new_user(n) for n in ("Ann", "Bob", "Kim", "Dan"))
        # Kim never started the bot
        group, lobby, joined = await lobby_with_bob(fake_api, url, "Two doors", ann, bob, dan)

        kim_joins = fake_api.press(kim, lobby, payloads(lobby)["join"])
        answer = await fake_api.wait_answer(kim_joins, TIMEOUT)
        assert answer.params["text"] == t("pop.joined", LANG)  # answered first
        start = fake_api.press(ann, lobby, payloads(lobby)["start"])  # at once, on the other
        started = await fake_api.wait_answer(start, TIMEOUT)
        # the welcome still on its way (answered as starting, the deal waits for it) or
        # already failed (the seat given up: too few players)
        assert started.params["text"] in (t("lobby.starting", LANG), t("pop.need_three", LANG))
        told = t("lobby.unreachable", LANG, name="Kim")
        await fake_api.wait_for("sendMessage", TIMEOUT, since=0, chat_id=group,
                                where=lambda c: c.params["text"] == told)
        await fake_api.wait_for(lambda: "Kim" not in lobby.text and any(
            b.url for b in lobby.buttons), TIMEOUT)
        if started.params["text"] == t("lobby.starting", LANG):
            refused = t("pop.need_three", LANG)
            await fake_api.wait_for("sendMessage", TIMEOUT, since=0, chat_id=group,
                                    where=lambda c: c.params["text"] == refused)
        assert hands(fake_api, ann) == [] and hands(fake_api, bob) == []
        targets = {d.update_id: d.target for d in delivery.deliveries if d.status == 200}
        assert len(set(targets.values())) == 2  # both workers took part

        # Dan takes the free seat and the deal is dealt to Ann, Bob and Dan
        answer = await fake_api.wait_answer(
            fake_api.press(dan, lobby, payloads(lobby)["join"]), TIMEOUT)
        assert answer.params["text"] == t("pop.joined", LANG)
        await fake_api.wait_for(lambda: "3. Dan" in lobby.text, TIMEOUT)
        answer = await fake_api.wait_answer(
            fake_api.press(ann, lobby, payloads(lobby)["start"]), TIMEOUT)
        assert answer.params["text"] == t("lobby.starting", LANG)
        for user in (ann, bob, dan):
            await fake_api.wait_for(lambda user=user: hands(fake_api, user), TIMEOUT)
        assert [c.status for c in fake_api.calls_to("sendMessage", chat_id=kim.id)] == [403]
        assert all(len(fake_api.calls_to("answerCallbackQuery", callback_query_id=query)) == 1
                   for query in (joined, kim_joins, start))  # each press answered once
        assert all(worker.problems() == [] for worker in workers)
    finally:
        for worker in workers:
            await worker.stop()
        await postgres_server.drop_database(url)


async def test_a_start_is_answered_while_the_tables_lock_is_held_counting_a_promised_seat(
    fake_api: FakeBotApi, postgres_server: PostgresServer, tmp_path: Path
):
    """A Start pressed right after a Join that was answered as seated, while the Join's block
    waits for the table's lock (held here, as a step waiting for the token's budget holds it):
    the Start is answered at once, as starting (Kim's seat is promised: not "Three seats must
    be filled"), and the deal deals Ann, Bob and Kim once the lock is free. Before, a Start that
    the worker's copy did not show as startable was decided under the lock: no answer while it
    was held."""
    url = await postgres_server.create_database()
    workers = [WorkerProcess(fake_api.token, fake_api.base_url, url, tmp_path, f"w{i}",
                             {"TABLE_EDIT_INTERVAL": "0", "GROUP_RATE_LIMIT": "1000"})
               for i in range(2)]
    holder = await asyncpg.connect(url)
    try:
        for worker in workers:
            await worker.start()
        await asyncio.gather(*(worker.ready() for worker in workers))
        await fake_api.deliver_webhooks([w.url for w in workers], SECRET)
        ann, bob, kim = (fake_api.new_user(n) for n in ("Ann", "Bob", "Kim"))
        group, lobby, _ = await lobby_with_bob(fake_api, url, "Held lock", ann, bob, kim)

        await holder.execute("SELECT pg_advisory_lock(hashtextextended($1, 0))",
                             f"table:{table_key(group.id)}")
        kim_joins = fake_api.press(kim, lobby, payloads(lobby)["join"])
        assert (await fake_api.wait_answer(kim_joins, TIMEOUT)).params["text"] == t(
            "pop.joined", LANG)
        start = fake_api.press(ann, lobby, payloads(lobby)["start"])
        started = await fake_api.wait_answer(start, TIMEOUT)  # the lock still held
        assert started.params["text"] == t("lobby.starting", LANG)
        assert hands(fake_api, ann) == []
        await holder.execute("SELECT pg_advisory_unlock_all()")

        for user in (ann, bob, kim):
            await fake_api.wait_for(lambda user=user: hands(fake_api, user), TIMEOUT)
        said = [call_text(c) for c in fake_api.calls_to("sendMessage", chat_id=group.id)]
        assert t("pop.need_three", LANG) not in said
        assert len(fake_api.calls_to("answerCallbackQuery", callback_query_id=start)) == 1
        assert all(worker.problems() == [] for worker in workers)
    finally:
        await holder.close()
        for worker in workers:
            await worker.stop()
        await postgres_server.drop_database(url)
