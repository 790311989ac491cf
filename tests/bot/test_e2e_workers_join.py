"""Two webhook workers on one PostgreSQL (issue 16): a Join answered first whose private chat
turns out to be closed, and a Start answered while the table's lock is held. The Join goes to
one worker, the Start pressed right after it to the other, which sees the seat's welcome still
on its way in the store and deals only once that welcome told (or finds the seat given up
already and refuses): nobody is dealt in whose hand cannot reach them, and the group is told
why the seat is free."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import pytest

from bot.core.i18n import t
from bot.core.table import table_key
from bot.store import open_store
from tests.bot.flow_helpers import HAND_PREFIX, LANG, call_text
from tests.bot.workers_helpers import SECRET, WorkerProcess, payloads
from tests.databases import PostgresServer
from tests.fakebot import Call, Chat, FakeBotApi, FakeMessage, User
from tests.fakebot.webhooks import WebhookDelivery

TIMEOUT = 60.0


def hands(api: FakeBotApi, user: User) -> list[Call]:
    return [c for c in api.calls if c.ok and c.method in ("sendMessage", "sendPhoto")
            and c.params.get("chat_id") == user.id and call_text(c).startswith(HAND_PREFIX)]


async def lobby_with_bob(api: FakeBotApi, url: str, title: str, ann: User, bob: User,
                         *started: User) -> tuple[Chat, FakeMessage, str]:
    """A new group ``title`` (text tables) whose lobby ``ann`` opened and ``bob`` joined (any
    two users); they and ``started`` have opened their private chats with the bot. Returns the
    group, the lobby and Bob's Join (its callback query id)."""
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
    assert (await api.wait_answer(joined, TIMEOUT)).params["text"] == t("pop.seating", LANG)
    await api.wait_for(lambda: f"2. {bob.first_name}" in lobby.text, TIMEOUT)
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
        assert answer.params["text"] == t("pop.seating", LANG)  # answered first
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
        assert answer.params["text"] == t("pop.seating", LANG)
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
            "pop.seating", LANG)
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


@asynccontextmanager
async def two_workers(api: FakeBotApi, url: str, tmp_path: Path, **env: str
                      ) -> AsyncIterator[tuple[list[WorkerProcess], WebhookDelivery,
                                               asyncpg.Connection]]:
    """Two workers on database ``url`` (``env``: more settings), the fake Bot API delivering
    to them in turn, and a connection of the test's own (to hold a table's lock, to read the
    inbox); the workers' logs must show no error at the end."""
    workers = [WorkerProcess(api.token, api.base_url, url, tmp_path, f"w{i}",
                             {"TABLE_EDIT_INTERVAL": "0", "GROUP_RATE_LIMIT": "1000", **env})
               for i in range(2)]
    conn = await asyncpg.connect(url)
    try:
        for worker in workers:
            await worker.start()
        await asyncio.gather(*(worker.ready() for worker in workers))
        delivery = await api.deliver_webhooks([w.url for w in workers], SECRET)
        yield workers, delivery, conn
        assert all(worker.problems() == [] for worker in workers)
    finally:
        await conn.close()
        for worker in workers:
            await worker.stop()


def targets(delivery: WebhookDelivery, count: int) -> list[int]:
    """The workers (their index) that took the last ``count`` updates delivered."""
    done = sorted({d.update_id for d in delivery.deliveries if d.status == 200})[-count:]
    return [delivery.answered(update_id)[0] for update_id in done]


async def hold_tables(conn: asyncpg.Connection, *groups: Chat) -> None:
    """Hold the tables' locks of ``groups`` (as a worker's step waiting for the token's budget
    holds one) until ``conn`` lets them go (``pg_advisory_unlock_all``)."""
    for group in groups:
        await conn.execute("SELECT pg_advisory_lock(hashtextextended($1, 0))",
                           f"table:{table_key(group.id)}")


async def two_lobbies_held(api: FakeBotApi, url: str, conn: asyncpg.Connection,
                           titles: tuple[str, str]
                           ) -> tuple[tuple[User, ...], tuple[Chat, Chat],
                                      tuple[FakeMessage, FakeMessage]]:
    """Ann, Bob, Cat, Dan and Kim, and two lobbies (:func:`lobby_with_bob`): Ann's and Cat's in
    group ``titles[0]``, Bob's and Dan's in group ``titles[1]``, with both tables' locks held
    (:func:`hold_tables`). Returns the users, the groups and their lobbies."""
    ann, bob, cat, dan, kim = users = tuple(
        api.new_user(n) for n in ("Ann", "Bob", "Cat", "Dan", "Kim"))
    first, lobby_a, _ = await lobby_with_bob(api, url, titles[0], ann, cat, kim)
    second, lobby_b, _ = await lobby_with_bob(api, url, titles[1], bob, dan)
    await hold_tables(conn, first, second)
    return users, (first, second), (lobby_a, lobby_b)

async def handled(conn: asyncpg.Connection, update_id: int) -> None:
    """Wait until a worker finished update ``update_id`` (its inbox row is done)."""
    async with asyncio.timeout(TIMEOUT):
        while await conn.fetchval("SELECT done_at FROM inbox WHERE update_id = $1",
                                  update_id) is None:
            await asyncio.sleep(0.05)


async def test_a_player_joining_two_groups_at_once_on_two_workers_sits_at_one(
    fake_api: FakeBotApi, postgres_server: PostgresServer, tmp_path: Path
):
    """QA defect D1 of issue 16: Kim presses Join in two groups at once, each press delivered
    to another worker, while both tables' locks are held (each worker's copy of the other
    table shows Kim nowhere). One Join is answered "You are seated", the other "You already
    sit at another table" (the player's claim is one for every worker), and Kim is dealt in
    at one table only. Before, both were answered as seated and Kim was dealt into both."""
    url = await postgres_server.create_database()
    try:
        async with two_workers(fake_api, url, tmp_path) as (_, delivery, conn):
            (ann, bob, cat, dan, kim), (first, second), (lobby_a, lobby_b) = \
                await two_lobbies_held(fake_api, url, conn, ("Group A", "Group B"))
            joins = [fake_api.press(kim, lobby, payloads(lobby)["join"])
                     for lobby in (lobby_a, lobby_b)]
            told = [(await fake_api.wait_answer(q, TIMEOUT)).params["text"] for q in joins]
            assert sorted(targets(delivery, 2)) == [0, 1]  # one press on each worker
            seated = told.index(t("pop.seating", LANG))
            # named when this worker has the other table's copy, else the plain refusal
            assert told[1 - seated] in (t("pop.seated_elsewhere", LANG), t(
                "pop.seated_at", LANG, group=("Group A", "Group B")[seated]))
            await conn.execute("SELECT pg_advisory_unlock_all()")

            lobbies, openers = (lobby_a, lobby_b), (ann, bob)
            await fake_api.wait_for(lambda: "3. Kim" in lobbies[seated].text, TIMEOUT)
            starts = [fake_api.press(opener, lobby, payloads(lobby)["start"])
                      for opener, lobby in zip(openers, lobbies, strict=True)]
            started = [(await fake_api.wait_answer(q, TIMEOUT)).params["text"] for q in starts]
            assert started[seated] == t("lobby.starting", LANG)
            assert started[1 - seated] == t("pop.need_three", LANG)
            dealt = ((ann, cat, kim), (bob, dan, kim))[seated]
            for user in dealt:
                await fake_api.wait_for(lambda user=user: hands(fake_api, user), TIMEOUT)
            await handled(conn, max(d.update_id for d in delivery.deliveries))
            assert len(hands(fake_api, kim)) == 1
            assert "Kim" not in lobbies[1 - seated].text
            assert all(len(fake_api.calls_to("answerCallbackQuery", callback_query_id=q)) == 1
                       for q in (*joins, *starts))
    finally:
        await postgres_server.drop_database(url)


async def test_a_double_join_on_two_workers_is_answered_seated_once_and_told_nothing(
    fake_api: FakeBotApi, postgres_server: PostgresServer, tmp_path: Path
):
    """QA defect D4 of issue 16: Kim presses Join twice, each press delivered to another
    worker, while the table's lock is held: one press is answered "You are seated", the other
    "You already sit at this table"; the group gets no "sorry, you are not seated after all"
    and Kim is dealt in. Before, both were answered as seated and the group told Kim (seated)
    that they were not."""
    url = await postgres_server.create_database()
    try:
        async with two_workers(fake_api, url, tmp_path) as (_, delivery, conn):
            ann, bob, kim = (fake_api.new_user(n) for n in ("Ann", "Bob", "Kim"))
            group, lobby, _ = await lobby_with_bob(fake_api, url, "Double tap", ann, bob, kim)
            await hold_tables(conn, group)
            joins = [fake_api.press(kim, lobby, payloads(lobby)["join"]) for _ in range(2)]
            told = [(await fake_api.wait_answer(q, TIMEOUT)).params["text"] for q in joins]
            assert sorted(targets(delivery, 2)) == [0, 1]
            assert sorted(told) == sorted([t("pop.seating", LANG),
                                           t("pop.already_seated", LANG)])
            await conn.execute("SELECT pg_advisory_unlock_all()")
            await fake_api.wait_for(lambda: "3. Kim" in lobby.text, TIMEOUT)
            start = fake_api.press(ann, lobby, payloads(lobby)["start"])
            assert (await fake_api.wait_answer(start, TIMEOUT)).params["text"] == t(
                "lobby.starting", LANG)
            for user in (ann, bob, kim):
                await fake_api.wait_for(lambda user=user: hands(fake_api, user), TIMEOUT)
            said = [call_text(c) for c in fake_api.calls_to("sendMessage", chat_id=group.id)]
            assert not any("not seated" in text for text in said), said
            assert all(len(fake_api.calls_to("answerCallbackQuery", callback_query_id=q)) == 1
                       for q in joins)
    finally:
        await postgres_server.drop_database(url)


@pytest.mark.parametrize("how", ["button", "/leave"])
async def test_a_leave_on_one_worker_withdraws_a_join_the_other_has_not_seated_yet(
    fake_api: FakeBotApi, postgres_server: PostgresServer, tmp_path: Path, how: str
):
    """Kim's Join is answered "You are seated" on worker X, whose block is kept from the table
    (the answer's response held on its way, then X stopped) while Kim's Leave (the button, or
    /leave) reaches worker Y and is handled there first. The Leave sees the Join's claim: Kim
    is answered as having left, and X's block, once it runs, does not seat Kim; the Start is
    refused and nobody is dealt in. A fresh Join afterwards seats Kim again.

    X is stopped while its block waits for its answer's response, before the table's lock:
    stopped while trying the lock, a try it had sent could still reach the database after
    the stop and take the lock, and Y's Leave then waited for a stopped worker (the /leave
    reply never came, once, under load)."""
    url = await postgres_server.create_database()
    try:
        async with two_workers(fake_api, url, tmp_path, WORKER_LEASE="10") as (
                workers, delivery, conn):
            ann, bob, kim = (fake_api.new_user(n) for n in ("Ann", "Bob", "Kim"))
            group, lobby, _ = await lobby_with_bob(fake_api, url, "Cold feet", ann, bob, kim)
            join = fake_api.press(kim, lobby, payloads(lobby)["join"])
            gate = fake_api.hold_answer(join)
            assert (await fake_api.wait_answer(join, TIMEOUT)).params["text"] == t(
                "pop.seating", LANG)
            (x,) = targets(delivery, 1)
            os.kill(workers[x].pid, signal.SIGSTOP)  # its Join's block: before the lock
            try:
                since = len(fake_api.calls)
                if how == "button":
                    leave = fake_api.press(kim, lobby, payloads(lobby)["leave"])
                    left = call_text(await fake_api.wait_answer(leave, TIMEOUT))
                else:
                    fake_api.send_text(kim, group, "/leave")
                    left = call_text(await fake_api.wait_for("sendMessage", TIMEOUT,
                                                             since=since, chat_id=group))
                assert targets(delivery, 1) == [1 - x]
            finally:
                gate.set()
                os.kill(workers[x].pid, signal.SIGCONT)
            assert left == (t("pop.left_lobby", LANG) if how == "button"
                            else t("reply.left_lobby", LANG, name="Kim"))
            await handled(conn, max(d.update_id for d in delivery.deliveries) - 1)  # the Join

            start = fake_api.press(ann, lobby, payloads(lobby)["start"])
            assert (await fake_api.wait_answer(start, TIMEOUT)).params["text"] == t(
                "pop.need_three", LANG)
            await handled(conn, max(d.update_id for d in delivery.deliveries))
            assert "Kim" not in lobby.text
            assert all(hands(fake_api, user) == [] for user in (ann, bob, kim))
            said = [call_text(c) for c in fake_api.calls_to("sendMessage", chat_id=group.id)]
            assert not any("not seated" in text for text in said), said

            again = fake_api.press(kim, lobby, payloads(lobby)["join"])
            assert (await fake_api.wait_answer(again, TIMEOUT)).params["text"] == t(
                "pop.seating", LANG)
            await fake_api.wait_for(lambda: "3. Kim" in lobby.text, TIMEOUT)
            presses = (join, start, again) + ((leave,) if how == "button" else ())
            assert all(len(fake_api.calls_to("answerCallbackQuery", callback_query_id=q)) == 1
                       for q in presses)
    finally:
        await postgres_server.drop_database(url)


async def test_a_join_and_a_join_command_in_two_groups_on_two_workers_seat_once(
    fake_api: FakeBotApi, postgres_server: PostgresServer, tmp_path: Path
):
    """QA defect D1 of issue 16 by another way to a seat: Kim presses Join in one group and
    sends /join in another, each to another worker, while both tables' locks are held. The
    Join is answered as seated; /join, whose worker's copy of the first table shows Kim
    nowhere, is refused (the player is claimed by the other worker, or the store shows the
    seat): "You already sit at another table". Kim sits at one table. Before, /join seated
    Kim at the second table too."""
    url = await postgres_server.create_database()
    try:
        async with two_workers(fake_api, url, tmp_path) as (_, delivery, conn):
            (ann, bob, cat, dan, kim), (first, second), (lobby_a, lobby_b) = \
                await two_lobbies_held(fake_api, url, conn, ("Button", "Command"))
            join = fake_api.press(kim, lobby_a, payloads(lobby_a)["join"])
            assert (await fake_api.wait_answer(join, TIMEOUT)).params["text"] == t(
                "pop.seating", LANG)
            since = len(fake_api.calls)
            fake_api.send_text(kim, second, "/join")
            await conn.execute("SELECT pg_advisory_unlock_all()")
            reply = await fake_api.wait_for("sendMessage", TIMEOUT, since=since,
                                            chat_id=second)
            assert sorted(targets(delivery, 2)) == [0, 1]
            assert reply.params["text"] in (t("pop.seated_elsewhere", LANG),
                                            t("pop.seated_at", LANG, group="Button"))
            await fake_api.wait_for(lambda: "3. Kim" in lobby_a.text, TIMEOUT)
            await handled(conn, max(d.update_id for d in delivery.deliveries))
            assert "Kim" not in lobby_b.text
            async with asyncpg.create_pool(url, min_size=1, max_size=1) as pool:
                seated = await pool.fetch(
                    "SELECT table_key FROM tables WHERE data::jsonb -> 'seats' @> $1::jsonb",
                    f'[{{"user_id": {kim.id}}}]')
            assert [row["table_key"] for row in seated] == [table_key(first.id)]
    finally:
        await postgres_server.drop_database(url)
