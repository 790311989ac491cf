"""Two webhook workers on one PostgreSQL behind the fake Bot API (issue 16, "Done when").

The fake Bot API posts the updates to the two workers in turn (a round-robin proxy) and sends an
update again to the other one when a worker does not answer 200. Two groups play: every press
of a deal (the lobby's, the bids) alternates between the workers, and the timers (turn
timeouts, auto-play moves) are fired by whichever worker claims them. In the middle of the
deals one worker is SIGKILLed. Every deal must still finish (on the other worker), be settled
exactly once (one ledger row per player and deal, summing to zero; the seats' rows once), its
result be posted once, a second deal per table be played on the survivor, and no timer may
have fired twice.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from bot.core.i18n import t
from bot.store import open_store
from tests.bot.flow_helpers import LANG, RESULT_MARK, call_text, hand_message, join_answers
from tests.bot.workers_helpers import SECRET, WorkerProcess, keep_logs, payloads
from tests.databases import PostgresServer, RawDatabase
from tests.fakebot import Call, Chat, FakeBotApi, FakeMessage, User

TABLES = 2
#: The deals' state version when the worker is killed (a deal ends at about 60).
KILL_AT = 12
TIMEOUT = 60.0


def results(api: FakeBotApi, group: Chat) -> list[Call]:
    return [c for c in api.calls if c.ok and c.method in ("sendMessage", "sendPhoto")
            and c.params.get("chat_id") == group.id and call_text(c).startswith(RESULT_MARK)]


async def press(api: FakeBotApi, user: User, message: FakeMessage, payload: str) -> Call:
    query = api.press(user, message, payloads(message)[payload])
    return await api.wait_answer(query, TIMEOUT)


async def bid_when_asked(api: FakeBotApi, users: list[User], done: asyncio.Event) -> None:
    """Whoever is asked to bid first bids 3 (the rest of the deal runs on timeouts and
    auto-play)."""
    while not done.is_set():
        for user in users:
            try:
                message = hand_message(api, user)
            except LookupError:
                continue
            if "bid3" in payloads(message):
                answer = await press(api, user, message, "bid3")
                if answer.params.get("text") is None:  # taken (not an older hand's button)
                    return
        await asyncio.sleep(0.05)


async def open_and_start(api: FakeBotApi, group: Chat, users: list[User]) -> FakeMessage:
    for user in users:
        api.open_private_chat(user)
    since = len(api.calls)
    api.send_text(users[0], group, "/newgame")
    call = await api.wait_for("sendMessage", TIMEOUT, since=since, chat_id=group)
    lobby = api.message(group, call.result["message_id"])
    for user in users[1:]:
        answer = await press(api, user, lobby, "join")
        assert answer.params.get("text") in join_answers(), answer
    answer = await press(api, users[0], lobby, "start")
    assert answer.params.get("text") == t("lobby.starting", LANG), answer
    return lobby


async def play_deal(api: FakeBotApi, group: Chat, users: list[User], deals: int) -> None:
    """Wait until the group's ``deals``-th result is posted, bidding when asked."""
    done = asyncio.Event()
    bidder = asyncio.create_task(bid_when_asked(api, users, done))
    try:
        await api.wait_for(lambda: len(results(api, group)) >= deals, TIMEOUT)
    finally:
        done.set()
        await asyncio.gather(bidder, return_exceptions=True)


async def test_two_workers_survive_a_sigkill_mid_deal(
    fake_api: FakeBotApi, postgres_server: PostgresServer, tmp_path: Path
):
    url = await postgres_server.create_database()
    # bidding waits 5 s for the test's bidder (bid_when_asked): a seat that times out there goes
    # on auto-play, which passes, and three such seats pass until the table closes (10 redeals)
    env = {"BID_TIMEOUT": "5", "PLAY_TIMEOUT": "1", "BOT_MOVE_DELAY": "0.05",
           "TURN_NOTICE_DELAY": "0", "TABLE_EDIT_INTERVAL": "0", "GROUP_RATE_LIMIT": "1000"}
    workers = [WorkerProcess(fake_api.token, fake_api.base_url, url, tmp_path, f"w{i}", env)
               for i in range(2)]
    try:
        for worker in workers:
            await worker.start()
        await asyncio.gather(*(worker.ready() for worker in workers))
        delivery = await fake_api.deliver_webhooks([w.url for w in workers], SECRET)
        groups = [fake_api.new_group(f"Workers {i}") for i in range(TABLES)]
        store = await open_store(url)
        for group in groups:  # text tables: the pictures' CPU is not what this test is about
            await store.update_group_settings(group.id, pictures=False)
        await store.close()
        seats = [[fake_api.new_user(f"G{i}P{s}") for s in range(3)] for i in range(TABLES)]
        tables = list(zip(groups, seats, strict=True))
        await asyncio.gather(*(open_and_start(fake_api, g, u) for g, u in tables))
        first = asyncio.gather(*(play_deal(fake_api, g, u, 1) for g, u in tables))

        raw = RawDatabase("postgres", url)

        async def progress() -> list[int]:
            """The state versions of the running deals."""
            rows = await raw.fetch("SELECT version FROM deals WHERE status = 'running'")
            return [int(row[0]) for row in rows]

        for _ in range(int(TIMEOUT * 10)):  # every deal is well into its play
            versions = await progress()
            if len(versions) == TABLES and min(versions) >= KILL_AT:
                break
            await asyncio.sleep(0.1)
        assert len(await progress()) == TABLES
        await workers[0].kill()
        killed_at = len(delivery.deliveries)
        await first

        # a second deal at every table, on the survivor alone: everybody presses Play again
        for group, users in tables:
            result = fake_api.message(group, results(fake_api, group)[-1].result["message_id"])
            again = next(p for p in payloads(result) if p != "leave")
            for i, user in enumerate(users):
                answer = await press(fake_api, user, fake_api.message(group, result.message_id),
                                     again)
                waiting = ", ".join(u.first_name for u in users[i + 1:])
                assert answer.params.get("text") == (
                    t("pop.again_ready", LANG, names=waiting) if waiting
                    else t("lobby.starting", LANG)), answer
        await asyncio.gather(*(play_deal(fake_api, g, u, 2) for g, u in tables))

        # settled exactly once: one result per deal, one ledger row per player, summing to 0
        deals = await raw.fetch("SELECT id, status FROM deals ORDER BY id")
        settled = [deal_id for deal_id, status in deals if status == "settled"]
        assert all(status != "running" for _, status in deals), deals
        assert len(settled) == 2 * TABLES
        assert [len(results(fake_api, g)) for g in groups] == [2] * TABLES
        rows = await raw.fetch("SELECT deal_id, user_id, amount FROM ledger WHERE reason = 'deal'")
        per_deal: dict[int, list[int]] = {}
        for deal_id, _, amount in rows:
            per_deal.setdefault(deal_id, []).append(amount)
        assert sorted(per_deal) == settled
        assert all(sum(amounts) == 0 for amounts in per_deal.values()), per_deal
        pairs = Counter((deal_id, user_id) for deal_id, user_id, _ in rows)
        assert max(pairs.values()) == 1
        seat_rows = await raw.fetch("SELECT deal_id, count(*) FROM deal_seats GROUP BY deal_id")
        assert sorted(seat_rows) == [(deal_id, 3) for deal_id in settled]
        totals = await raw.fetch(
            "SELECT (SELECT sum(balance) FROM players), (SELECT sum(amount) FROM ledger)")
        assert totals[0][0] == totals[0][1]

        # the updates alternated, and the dead worker's were sent again to the survivor
        targets = Counter(d.target for d in delivery.deliveries[:killed_at] if d.status == 200)
        assert targets[0] > 3 and targets[1] > 3, targets
        failed = [d for d in delivery.deliveries[killed_at:] if d.target == 0]
        assert failed and all(d.status != 200 for d in failed)
        assert all(delivery.answered(d.update_id) for d in failed)

        # both workers moved the same deals on; no timer fired twice
        fired = [worker.fired() for worker in workers]
        both = {key for key, _ in fired[0]} & {key for key, _ in fired[1]}
        assert both, "no timer of one table fired on both workers"
        assert max((fired[0] + fired[1]).values()) == 1
        assert workers[1].problems() == []
    except BaseException as error:  # keep the evidence: pytest rotates tmp_path away
        for worker in workers:
            await worker.dump_tasks()
        calls = "\n".join(f"{c.time:.3f} {c!r}" for c in fake_api.calls)
        sent = fake_api.webhooks.deliveries if fake_api.webhooks is not None else []
        posts = "\n".join(f"{d.time:.3f} {d}" for d in sent)
        kept = keep_logs(workers, "sigkill", ("calls.txt", calls), ("deliveries.txt", posts))
        error.add_note(f"workers' logs and the Bot API calls kept in {kept}")
        print(f"workers' logs kept in {kept}")
        raise
    finally:
        for worker in workers:
            await worker.stop()
        await postgres_server.drop_database(url)
