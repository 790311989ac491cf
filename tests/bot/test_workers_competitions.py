"""Competitions with several workers (issue 16, gaps 1 and 2): a match left between two deals
by a worker that died goes on on another worker; a duplicate challenge's state is read from the
store, so what one worker changed (an entry, a close) is what the other sees; a group
tournament's stage is decided once across workers, and by the next worker when its own died.

The workers run in this process (two ``Application``s in worker mode on one PostgreSQL, driven
through the game layer; tests/bot/test_e2e_workers.py runs them as processes behind webhooks). A
worker's death is a step that raises where a SIGKILL would stop it, after which the worker is
shut down without finishing anything: what it stored and the watchdog it left are what another
worker finds.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.core.i18n import t
from bot.core.settings import Settings
from bot.core.table import DEAL, Table, challenge_key, tournament_key
from bot.features.challenge import driver as challenge_driver
from bot.features.challenge.state import ChallengeOptions
from bot.features.match.views import format_name
from bot.features.tournament.driver import Tournaments
from bot.features.tournament.standings import TableStandings
from bot.game import timers
from bot.game.lobby import Person
from bot.telegram.app import build_application
from bot.telegram.outlet import send as outlet_send
from bot.telegram.outlet.send import send_text
from bot.telegram.services import App, bot_data
from engine.tournament import draw
from tests.bot.flow_helpers import RESULT_MARK, call_text
from tests.databases import PostgresServer, RawDatabase
from tests.fakebot import Chat, FakeBotApi, User

SECRET = "test-secret_0123456789"
TIMEOUT = 60.0

Start = Callable[[str], Awaitable[App]]


def worker_settings(api: FakeBotApi, url: str, tmp_path: Path, name: str) -> Settings:
    return Settings(
        bot_token=api.token, database_path=tmp_path / "unused.sqlite3", database_url=url,
        bot_api_base_url=api.base_url, default_language="en", log_level="INFO",
        play_timeout=30.0, bid_timeout=15.0, lobby_timeout=300.0, bot_move_delay=0.01,
        table_edit_interval=0.0, group_rate_limit=1000, turn_notice_delay=0.0,
        webhook_url="https://ddz.example.org/telegram/hook", webhook_secret=SECRET,
        worker_lease=0.5, worker_name=name,
    )


async def stop(app: App) -> None:
    if app.running:
        await app.stop()
    await app.shutdown()
    assert app.post_shutdown is not None
    await app.post_shutdown(app)


@pytest.fixture
async def database(postgres_server: PostgresServer) -> AsyncIterator[str]:
    url = await postgres_server.create_database()
    yield url
    await postgres_server.drop_database(url)


@pytest.fixture
async def start_worker(fake_api: FakeBotApi, database: str, tmp_path: Path
                       ) -> AsyncIterator[Start]:
    """Starts a worker named ``name`` in this process (initialized, post_init: the sweep and
    the timers; no webhook server); every one still running is stopped after the test."""
    started: list[App] = []

    async def start(name: str) -> App:
        app = build_application(worker_settings(fake_api, database, tmp_path, name))
        await app.initialize()
        assert app.post_init is not None
        await app.post_init(app)
        await app.start()
        started.append(app)
        return app

    yield start
    for app in started:
        if bot_data(app).__dict__.get("store") is not None:
            await stop(app)


async def wait_until(check: Callable[[], Awaitable[object]], timeout: float = TIMEOUT) -> object:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = await check()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("waited in vain")
        await asyncio.sleep(0.05)


async def test_a_match_left_between_deals_by_a_dead_worker_deals_on_on_another(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    group, user = fake_api.new_group("Match night"), fake_api.new_user("Ann")
    store_rows = RawDatabase("postgres", database)
    first = await start_worker("w-first")
    game = bot_data(first).game
    game.deal_seed = 7
    died = asyncio.Event()

    async def killed(table: object) -> None:  # the worker dies right after the settlement
        died.set()
        raise RuntimeError("SIGKILL")

    game.matches.deal_over = killed  # type: ignore[method-assign]
    fake_api.open_private_chat(user)
    table, refusal = await game.matches.open(group.id, None, group.title, Person(user.id, "Ann"),
                                             "fixed")
    assert table is not None and refusal is None
    fake_api.block_user(user)  # her seat is auto-played: the bots and she play fast
    async with game.tables.lock(table.key):
        assert game.lobby.add_bot(table) and game.lobby.add_bot(table)
        assert await game.matches.start(table) is None
    match_id = table.competition.match_id
    await asyncio.wait_for(died.wait(), TIMEOUT)
    await asyncio.sleep(0.2)  # whatever else the dying step had started
    await stop(first)

    async def deals() -> list[tuple[int, str]]:
        rows = await store_rows.fetch(
            "SELECT id, status FROM deals WHERE match_id = ? ORDER BY id", match_id)
        return [(int(deal_id), str(status)) for deal_id, status in rows]

    assert [status for _, status in await deals()] == ["settled"]
    stored = await store_rows.fetch("SELECT data FROM tables")
    assert len(stored) == 1 and '"phase": "result"' in stored[0][0]

    second = await start_worker("w-second")
    await wait_until(lambda: _two_deals(deals))
    statuses = [status for _, status in await deals()]
    assert statuses[0] == "settled" and statuses[1] in ("running", "settled")
    resumed = bot_data(second).game.tables.get(table.key)
    assert resumed is not None and resumed.competition.match_id == match_id \
        and resumed.phase == DEAL
    rows = await store_rows.fetch(
        "SELECT count(*) FROM ledger WHERE deal_id = ?", (await deals())[0][0])
    assert rows == [(0,)]  # a match deal moves no beans; its points are the match's
    record = await bot_data(second).store.get_match(match_id)
    assert record.status == "running"


async def test_a_match_deals_result_its_worker_died_before_sending_is_posted_by_the_next(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """Issue 16: a match deal's result (with the standings) is due until it was sent. The
    worker dies right after the settlement, its result still waiting for the group's flood
    budget; the worker that takes the table over posts it, before it deals the next deal."""
    group, user = fake_api.new_group("Match night"), fake_api.new_user("Ann")
    first = await start_worker("w-first")
    game = bot_data(first).game
    game.deal_seed = 7
    died = asyncio.Event()
    post = bot_data(first).outlet.post

    def dropped(key: str, *args: Any, **kwargs: Any) -> None:  # never sent: the worker died
        if key.endswith("#result"):  # right after the settlement
            died.set()
        else:
            post(key, *args, **kwargs)

    bot_data(first).outlet.post = dropped  # type: ignore[method-assign]
    fake_api.open_private_chat(user)
    table, refusal = await game.matches.open(group.id, None, group.title, Person(user.id, "Ann"),
                                             "fixed")
    assert table is not None and refusal is None
    fake_api.block_user(user)  # her seat is auto-played: the bots and she play fast
    async with game.tables.lock(table.key):
        assert game.lobby.add_bot(table) and game.lobby.add_bot(table)
        assert await game.matches.start(table) is None
    await asyncio.wait_for(died.wait(), TIMEOUT)
    await asyncio.sleep(0.2)
    await stop(first)
    standings = t("match.standings", "en", format=format_name("fixed", "en"))

    def results() -> list[Any]:
        return [c for c in fake_api.calls if c.ok and c.params.get("chat_id") == group.id
                and c.method in ("sendPhoto", "sendMessage")
                and standings in str(c.params.get("caption") or c.params.get("text"))]

    assert results() == []
    second = await start_worker("w-second")
    await wait_until(lambda: _async(bool(results())))
    resumed = bot_data(second).game.tables.get(table.key)
    await wait_until(lambda: _async(resumed is not None and resumed.phase == DEAL))
    await asyncio.sleep(0.3)
    assert len(results()) == 1


async def test_a_result_on_its_way_when_the_watchdog_resumes_the_table_is_posted_once(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """Issue 16 (the e2e SIGKILL test's suspect): a dead worker's watchdog resumes a table
    whose deal the survivor has just finished; the result is sent and its sent callback (which
    records it, under the table's lock) has not run yet, so the table still says the result is
    due. The resume must not post it a second time (a second result with live Play again
    buttons): the post on its way records it."""
    group, user = fake_api.new_group("Resumed"), fake_api.new_user("Ann")
    app = await start_worker("w-survivor")
    game, outlet = bot_data(app).game, bot_data(app).outlet
    game.deal_seed = 7
    release, held = asyncio.Event(), asyncio.Event()
    post = outlet.post

    def slow_to_record(key: str, *args: Any, sent: Any = None, **kwargs: Any) -> None:
        async def recorded(message_id: int) -> None:  # sent, and not recorded yet
            held.set()
            await release.wait()
            if sent is not None:
                await sent(message_id)

        post(key, *args, sent=recorded if key.endswith("#result") else sent, **kwargs)

    outlet.post = slow_to_record  # type: ignore[method-assign]
    fake_api.open_private_chat(user)
    table, refusal = await game.lobby.open_table(group.id, None, group.title,
                                                 Person(user.id, "Ann"))
    assert table is not None and refusal is None
    fake_api.block_user(user)  # her seat is auto-played: the bots and she play fast
    async with game.tables.lock(table.key):
        assert game.lobby.add_bot(table) and game.lobby.add_bot(table)
        await game.lobby.deal(table)
    await asyncio.wait_for(held.wait(), TIMEOUT)
    assert table.progress.result_due

    def results() -> list[Any]:
        return [c for c in fake_api.calls if c.ok and c.method in ("sendMessage", "sendPhoto")
                and c.params.get("chat_id") == group.id and call_text(c).startswith(RESULT_MARK)]

    assert len(results()) == 1
    await bot_data(app).worker.resumer.resume(timers.Stamp(table.key, ""))  # the watchdog
    release.set()
    await wait_until(lambda: _async(not table.progress.result_due))
    await asyncio.sleep(0.3)
    assert len(results()) == 1
    stored = await RawDatabase("postgres", database).fetch("SELECT data FROM tables")
    assert '"result_due": false' in stored[0][0]


async def test_final_standings_its_worker_died_before_sending_are_posted_by_the_next(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """Issue 16: a match's final standings are due until they were sent, as a deal's result.
    The worker dies right after the payout (its standings never sent); the worker that takes
    the table over posts them once, pays nothing again, and frees the table."""
    group, user = fake_api.new_group("Knock-out night"), fake_api.new_user("Ann")
    store_rows = RawDatabase("postgres", database)
    first = await start_worker("w-first")
    game = bot_data(first).game
    game.deal_seed = 7
    died = asyncio.Event()
    finish_match = bot_data(first).store.finish_match

    async def paid_then_killed(*args: Any, **kwargs: Any) -> Any:  # dies after the commit
        await finish_match(*args, **kwargs)
        died.set()
        raise RuntimeError("SIGKILL")

    bot_data(first).store.finish_match = paid_then_killed  # type: ignore[method-assign]
    fake_api.open_private_chat(user)
    table, refusal = await game.matches.open(group.id, None, group.title, Person(user.id, "Ann"),
                                             "knockout", entry_fee=10)
    assert table is not None and refusal is None
    table.competition.match_options = {**(table.competition.match_options or {}), "chips": 5,
                                       "chip_base": 20}
    fake_api.block_user(user)  # her seat is auto-played: one deal puts somebody out
    async with game.tables.lock(table.key):
        assert game.lobby.add_bot(table) and game.lobby.add_bot(table)
        assert await game.matches.start(table) is None
    match_id = table.competition.match_id
    await asyncio.wait_for(died.wait(), TIMEOUT)
    await asyncio.sleep(0.2)
    await stop(first)
    over = t("match.over", "en", format=format_name("knockout", "en"))

    def finals() -> list[Any]:
        return [c for c in fake_api.calls if c.ok and c.params.get("chat_id") == group.id
                and c.method in ("sendPhoto", "sendMessage")
                and over in str(c.params.get("caption") or c.params.get("text"))]

    assert finals() == []
    assert await store_rows.fetch("SELECT status FROM matches WHERE id = ?", match_id) \
        == [("finished",)]
    ledger = await store_rows.fetch(
        "SELECT user_id, amount FROM ledger WHERE match_id = ? ORDER BY id", match_id)
    assert sum(amount for _, amount in ledger) == 0 and len(ledger) == 2  # fee, prize
    await start_worker("w-second")
    await wait_until(lambda: _async(bool(finals())))
    await wait_until(lambda: _gone(store_rows, table.key))
    await asyncio.sleep(0.3)
    assert len(finals()) == 1
    assert await store_rows.fetch(
        "SELECT user_id, amount FROM ledger WHERE match_id = ? ORDER BY id", match_id) == ledger


async def _gone(rows: RawDatabase, key: str) -> bool:
    return await rows.fetch("SELECT 1 FROM tables WHERE table_key = ?", key) == []


async def _two_deals(deals: Callable[[], Awaitable[list[tuple[int, str]]]]) -> bool:
    return len(await deals()) >= 2


async def test_a_challenge_entered_and_closed_on_one_worker_is_seen_so_on_the_other(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    group = fake_api.new_group("Duplicate")
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    for user in (ann, bob):
        fake_api.open_private_chat(user)
    rows = RawDatabase("postgres", database)
    one, two = await start_worker("w-one"), await start_worker("w-two")
    a, b = bot_data(one).game.challenges, bot_data(two).game.challenges
    challenge_id, why = await a.open(group.id, None, group.title, Person(ann.id, "Ann"),
                                     ChallengeOptions(entry_fee=10))
    assert challenge_id is not None, why
    assert (await b._record(challenge_id)).pool == 0  # B has read it before the entries
    welcome = t("challenge.pop_welcome", "en")
    assert await a.enter(challenge_id, Person(ann.id, "Ann"), "en", group.id) == welcome
    assert await b.enter(challenge_id, Person(bob.id, "Bob"), "en", group.id) == welcome
    assert (await b._record(challenge_id)).pool == 20  # both fees, whoever took them
    assert (await a._record(challenge_id)).pool == 20

    # Ann's first deal runs on B; A closes the window: the deal is stopped all the same
    assert await b.play(challenge_id, 1, Person(ann.id, "Ann"), "en") is None
    [(deal_id, status)] = await rows.fetch(
        "SELECT id, status FROM deals WHERE table_key = ?", challenge_key(ann.id))
    assert status == "running"
    assert await a.close(challenge_id)
    assert await rows.fetch("SELECT status FROM deals WHERE id = ?", deal_id) == [("cancelled",)]
    assert await rows.fetch("SELECT table_key FROM tables") == []

    # B sees the challenge closed: no deal dealt, no entry taken
    closed = t("challenge.pop_closed", "en")
    assert await b.play(challenge_id, 2, Person(ann.id, "Ann"), "en") == closed
    carl = fake_api.new_user("Carl")
    fake_api.open_private_chat(carl)
    assert await b.enter(challenge_id, Person(carl.id, "Carl"), "en", group.id) == closed
    assert await rows.fetch("SELECT count(*) FROM deals") == [(1,)]
    assert (await b._record(challenge_id)).status == "closed"


async def test_a_close_cut_short_by_a_dead_worker_is_finished_by_the_watchdog(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    group, ann = fake_api.new_group("Close"), fake_api.new_user("Ann")
    fake_api.open_private_chat(ann)
    rows = RawDatabase("postgres", database)
    one, two = await start_worker("w-one"), await start_worker("w-two")
    a = bot_data(one).game.challenges
    challenge_id, why = await a.open(group.id, None, group.title, Person(ann.id, "Ann"),
                                     ChallengeOptions(entry_fee=10))
    assert challenge_id is not None, why
    assert await a.enter(challenge_id, Person(ann.id, "Ann"), "en", group.id) \
        == t("challenge.pop_welcome", "en")

    show = a._show
    dead = []

    async def killed(*args: Any) -> bool:  # dies with the payout stored, nothing shown
        if args[0].status == "closed" and not dead:
            dead.append(True)
            raise RuntimeError("SIGKILL")
        return await show(*args)

    a._show = killed  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        await a.close(challenge_id)
    record = await bot_data(two).store.get_challenge(challenge_id)
    assert (record.status, record.announced) == ("closed", False)
    seed = record.seed

    def final_posts() -> list[object]:
        return [c for c in fake_api.calls if c.ok and c.method == "sendMessage"
                and c.params.get("chat_id") == group.id and seed in str(c.params.get("text"))]

    async def announced() -> bool:
        return bool(final_posts()) and (await rows.fetch(
            "SELECT announced FROM challenges WHERE id = ?", challenge_id))[0][0] in (1, True)

    await wait_until(announced)  # the watchdog of the challenge's lock, on either worker
    await asyncio.sleep(0.5)
    assert len(final_posts()) == 1
    paid = await rows.fetch("SELECT count(*) FROM ledger WHERE reason = 'challenge'")
    assert paid == [(2,)]  # Ann's fee and her prize, once


async def _closed_challenge(fake_api: FakeBotApi, start_worker: Start, name: str
                            ) -> tuple[App, int, str, int]:
    """A challenge opened and entered on worker ``name``; its app, id, seed and group."""
    group, ann = fake_api.new_group("Final"), fake_api.new_user("Ann")
    fake_api.open_private_chat(ann)
    app = await start_worker(name)
    challenges = bot_data(app).game.challenges
    challenge_id, why = await challenges.open(group.id, None, group.title,
                                              Person(ann.id, "Ann"), ChallengeOptions())
    assert challenge_id is not None, why
    assert await challenges.enter(challenge_id, Person(ann.id, "Ann"), "en", group.id) \
        == t("challenge.pop_welcome", "en")
    seed = (await bot_data(app).store.get_challenge(challenge_id)).seed
    return app, challenge_id, seed, group.id


def _final_posts(fake_api: FakeBotApi, group_id: int, seed: str) -> list[object]:
    return [c for c in fake_api.calls if c.ok and c.method == "sendMessage"
            and c.params.get("chat_id") == group_id and seed in str(c.params.get("text"))]


async def test_a_final_ranking_sent_by_a_worker_that_died_before_recording_it_is_not_sent_again(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """Issue 16: two workers do not post the final ranking side by side. The worker dies after
    Telegram took the message and before the store recorded it posted; a worker starting next
    (its sweep posts the rankings not posted yet) does not post it while the dead worker's
    claim runs (``ANNOUNCE_CLAIM_SECONDS``; once it ran out the ranking is due again: the seed
    must be revealed, so it is posted at least once)."""
    one, challenge_id, seed, group_id = await _closed_challenge(fake_api, start_worker, "w-one")

    async def killed(cid: int) -> bool:
        raise RuntimeError("SIGKILL")

    bot_data(one).store.announce_challenge = killed  # type: ignore[method-assign]
    assert await bot_data(one).game.challenges.close(challenge_id)
    await wait_until(lambda: _async(bool(_final_posts(fake_api, group_id, seed))))
    await stop(one)

    await start_worker("w-two")
    await asyncio.sleep(1.0)  # the sweep's posts go out in the background
    assert len(_final_posts(fake_api, group_id, seed)) == 1


async def test_a_final_ranking_its_worker_died_before_sending_is_sent_by_the_next(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """Issue 16, the recovery: the worker dies with the final ranking still waiting to be sent
    (the group's flood budget); the next worker to start posts it, once."""
    one, challenge_id, seed, group_id = await _closed_challenge(fake_api, start_worker, "w-one")
    outlet = bot_data(one).outlet
    post = outlet.post

    def dropped(key: str, *args: Any, **kwargs: Any) -> None:  # never sent: the worker died
        if not key.endswith("#final"):
            post(key, *args, **kwargs)

    outlet.post = dropped  # type: ignore[method-assign]
    assert await bot_data(one).game.challenges.close(challenge_id)
    await stop(one)
    assert _final_posts(fake_api, group_id, seed) == []

    two = await start_worker("w-two")
    await wait_until(lambda: _async(bool(_final_posts(fake_api, group_id, seed))))
    await asyncio.sleep(0.5)
    assert len(_final_posts(fake_api, group_id, seed)) == 1
    assert (await bot_data(two).store.get_challenge(challenge_id)).announced


async def _async(value: object) -> object:
    return value


async def test_a_final_ranking_whose_worker_died_during_the_send_is_posted_once_its_claim_ran_out(
    fake_api: FakeBotApi, database: str, start_worker: Start, monkeypatch: pytest.MonkeyPatch
):
    """The worker dies with the final ranking's request on its way (its posting claimed, the
    message never sent). The next worker to start leaves it to the claim while it may run
    (the first worker might be alive), then posts it, once: the seed is revealed. Before, the
    claim stayed and the seed was never revealed."""
    one, challenge_id, seed, group_id = await _closed_challenge(fake_api, start_worker, "w-one")
    cut = asyncio.Event()

    async def dies(*args: object, **kwargs: object) -> None:  # the request never ends
        cut.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(challenge_driver, "ANNOUNCE_CLAIM_SECONDS", 1.5)
    monkeypatch.setattr(outlet_send, "send_text", dies)
    assert await bot_data(one).game.challenges.close(challenge_id)
    await asyncio.wait_for(cut.wait(), TIMEOUT)
    await stop(one)
    monkeypatch.setattr(outlet_send, "send_text", send_text)
    assert _final_posts(fake_api, group_id, seed) == []

    two = await start_worker("w-two")
    await asyncio.sleep(0.5)
    assert _final_posts(fake_api, group_id, seed) == []  # the claim still runs
    await wait_until(lambda: _async(bool(_final_posts(fake_api, group_id, seed))))
    await asyncio.sleep(0.5)
    assert len(_final_posts(fake_api, group_id, seed)) == 1
    assert (await bot_data(two).store.get_challenge(challenge_id)).announced


# --- Group tournaments -----------------------------------------------------------------------


async def _four_member_tournament(fake_api: FakeBotApi, app: App) -> tuple[int, Chat]:
    """A ``quick`` tournament of four members (no fee) started on worker ``app``: stage 1 is
    one table of three and a bye (3 deals), then the final. Every member blocked the bot
    after signing up, so their seats are auto-played (RULES.md §9) and the deals run fast."""
    tid, group, users = await _signed_up(fake_api, app, ("Ann", "Bob", "Cy", "Dan"))
    for user in users:
        fake_api.block_user(user)
    await bot_data(app).game.tournaments.start(tid)
    return tid, group


async def _signed_up(fake_api: FakeBotApi, app: App, names: Sequence[str], fee: int = 0
                     ) -> tuple[int, Chat, list[User]]:
    """A ``quick`` tournament opened on worker ``app`` (entry fee ``fee``) with members
    ``names`` signed up, not started: its id, group and members."""
    game = bot_data(app).game
    group = fake_api.new_group("Cup night")
    users = [fake_api.new_user(name) for name in names]
    for user in users:
        fake_api.open_private_chat(user)
    assert await game.tournaments.open(group.id, None, group.title,
                                       Person(users[0].id, names[0]), "quick", fee, None) is None
    (record,) = await game.ctx.store.live_tournaments()
    tid = record.tournament_id
    for user in users:
        assert await game.tournaments.sign_up(tid, Person(user.id, user.first_name), "en") \
            == t("tour.pop_signed", "en", id=tid)
    return tid, group, users


def _stage_results(fake_api: FakeBotApi, group: Chat, tid: int) -> list[str]:
    head = t("tour.result_title", "en", id=tid, stage="").split("·")[0]
    through = t("tour.through", "en", names="").strip()
    return [m.content for m in fake_api.messages_in(group)
            if m.content.startswith(head) and through in m.content]


async def test_a_tournament_stage_its_worker_died_before_deciding_is_decided_by_the_next(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """Stage 1's last table finished and its worker died before the stage was looked at:
    the next worker to start (its sweep) decides the stage and deals the final."""
    store_rows = RawDatabase("postgres", database)
    first = await start_worker("w-first")
    game = bot_data(first).game
    game.deal_seed = 11
    died = asyncio.Event()

    async def killed(tournament_id: int, stage: int) -> None:
        died.set()
        raise RuntimeError("SIGKILL")

    game.tournaments._stage_check = killed  # type: ignore[method-assign]
    tid, group = await _four_member_tournament(fake_api, first)
    await asyncio.wait_for(died.wait(), TIMEOUT)
    await asyncio.sleep(0.2)
    await stop(first)

    async def stage() -> int:
        ((raw,),) = await store_rows.fetch("SELECT state FROM tournaments WHERE id = ?", tid)
        state = json.loads(raw) if isinstance(raw, str) else raw
        return int(state.get("stage") or 0)

    async def tables(number: int) -> list[tuple[int, bool]]:
        rows = await store_rows.fetch("SELECT number, status FROM tournament_tables"
                                      " WHERE tournament_id = ? AND stage = ?", tid, number)
        return [(int(n), status == "done") for n, status in rows]

    assert await stage() == 1 and await tables(1) == [(1, True)]
    assert await tables(2) == []
    assert _decisions(fake_api, group, tid) == ([], [])

    second = await start_worker("w-second")
    await wait_until(lambda: _async(any(_decisions(fake_api, group, tid))))
    results, replays = _decisions(fake_api, group, tid)
    if results:  # the final drawn and dealt on the second worker
        assert await stage() == 2 and [n for n, _ in await tables(2)] == [1]
        final = tournament_key(tid, 2, 1)
        await wait_until(lambda: _async(
            (x := bot_data(second).game.tables.get(final)) is not None and x.phase == DEAL))
    else:  # a tie at the table: its extra deal (加赛) is being played
        assert await stage() == 1 and await tables(1) == [(1, False)]


def _decisions(fake_api: FakeBotApi, group: Chat, tid: int) -> tuple[list[str], list[str]]:
    """The group's messages deciding a stage: its results, its ties' extra deals (加赛)."""
    extra = t("tour.extra", "en", n="\0", deals="\0", names="\0").split("\0")[2]
    replays = [m.content for m in fake_api.messages_in(group) if extra in m.content]
    return _stage_results(fake_api, group, tid), replays


def stage_is(stage: Callable[[], Awaitable[int]], number: int
             ) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return await stage() == number
    return check


async def test_a_tournament_stage_decided_on_two_workers_at_once_is_decided_once(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """Both workers look at stage 1 once its tables finished (a worker's table ends while
    another's sweep or watchdog resumes the tournament): the tournament's lock is the
    database's, so the stage is decided once: its result posted once and the final drawn
    once, or (a tie) its extra deal announced and dealt once."""
    first = await start_worker("w-first")
    second = await start_worker("w-second")
    game = bot_data(first).game
    game.deal_seed = 11
    looked = asyncio.Event()

    async def noted(tournament_id: int, stage: int) -> None:
        looked.set()

    other = bot_data(second).game.tournaments
    # Either worker may fire the auto-played seats' timers (timers are rows), so either may
    # end the table: neither looks at the stage by itself until both do it below.
    game.tournaments._stage_check = other._stage_check = noted  # type: ignore[method-assign]
    tid, group = await _four_member_tournament(fake_api, first)
    await asyncio.wait_for(looked.wait(), TIMEOUT)
    dealt: list[str] = []

    async def deal(table: Table, **_: Any) -> None:  # counted, not played: as decided
        dealt.append(table.key)

    game.deals.deal = other.deals.deal = deal  # type: ignore[method-assign]
    store = game.ctx.store
    put = store.put_tournament_stage

    async def slow_put(*args: Any, **kwargs: Any) -> bool:
        await asyncio.sleep(0.5)  # the other worker reads the tournament meanwhile
        return await put(*args, **kwargs)

    store.put_tournament_stage = slow_put  # type: ignore[method-assign]
    check = Tournaments._stage_check  # the real one, here only (not after an extra deal)
    await asyncio.gather(check(game.tournaments, tid, 1), check(other, tid, 1))
    await asyncio.sleep(0.5)  # the group's messages on their way
    results, replays = _decisions(fake_api, group, tid)
    assert len(dealt) == 1  # one table dealt: the final's, or the tie's extra deal
    assert len(results) + len(replays) == 1  # the stage decided once: through, or a tie (加赛)
    record = await store.get_tournament(tid)
    if results:
        assert record.state["stage"] == 2
        assert [x.number for x in await store.tournament_tables(tid, 2)] == [1]
    else:
        assert record.state["stage"] == 1
        assert [x.number for x in await store.tournament_tables(tid, 2)] == []


async def _tournament_state(rows: RawDatabase, tid: int) -> dict[str, Any]:
    ((raw,),) = await rows.fetch("SELECT state FROM tournaments WHERE id = ?", tid)
    state: dict[str, Any] = json.loads(raw) if isinstance(raw, str) else raw
    return state


async def _fees(rows: RawDatabase, tid: int) -> list[tuple[int, int]]:
    return [(int(u), int(a)) for u, a in await rows.fetch(
        "SELECT user_id, amount FROM ledger WHERE tournament_id = ? ORDER BY id", tid)]


async def test_a_tournament_start_its_worker_died_after_the_fees_is_finished_by_the_next(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """The worker dies between taking the fees (the start's store transaction) and storing
    stage 1's draw: the tournament is running with no stage. The next worker (its sweep, or
    the dead worker's watchdog) finishes the start once: stage 1 drawn from the committed
    seed, the start and the draw told once, no fee taken again, and the member who could not
    pay still named (the fees' transaction keeps them). Before, nobody resumed it."""
    rows = RawDatabase("postgres", database)
    first = await start_worker("w-first")
    store = bot_data(first).store

    async def killed(*args: Any, **kwargs: Any) -> bool:  # dies with the fees committed
        raise RuntimeError("SIGKILL")

    store.put_tournament_stage = killed  # type: ignore[method-assign]
    tid, group, members = await _signed_up(fake_api, first, ("Ann", "Bob", "Cy", "Dan", "Eve"),
                                           fee=10)
    users, eve = members[:4], members[4]
    await rows.execute("UPDATE players SET balance = 5 WHERE user_id = ?", eve.id)
    with pytest.raises(RuntimeError):
        await bot_data(first).game.tournaments.start(tid)
    await stop(first)
    assert await rows.fetch("SELECT status, pool FROM tournaments WHERE id = ?", tid) \
        == [("running", 40)]
    assert not (await _tournament_state(rows, tid)).get("stage")
    fees = await _fees(rows, tid)
    assert fees == [(user.id, -10) for user in users]
    started = t("tour.started", "en", id=tid, n=4, pool=40)
    dropped = t("tour.dropped", "en", names="Eve", fee=10)
    drawn = t("tour.draw_title", "en", id=tid, stage="\0").split("\0")[0]

    def told(text: str) -> list[str]:  # the group's messages that start so
        return [m.content for m in fake_api.messages_in(group) if m.content.startswith(text)]

    assert told(drawn) == []

    second = await start_worker("w-second")  # the members play: their deal waits for them
    record = await bot_data(second).store.get_tournament(tid)
    field = [user.id for user in users]
    expected = draw(record.seed, 1, field, table_size=3)
    await wait_until(lambda: _async(bool(told(drawn))))
    assert (await _tournament_state(rows, tid))["stage"] == 1
    stored = await bot_data(second).store.tournament_tables(tid, 1)
    assert [x.players for x in stored] == [tuple(x) for x in expected.tables]
    key = tournament_key(tid, 1, 1)
    await wait_until(lambda: _async(
        (x := bot_data(second).game.tables.get(key)) is not None and x.phase == DEAL))
    await wait_until(lambda: _gone_watchdog(rows, "w-first"))  # the watchdog came too
    await asyncio.sleep(0.3)  # anything told twice would be on its way
    assert len(told(drawn)) == 1
    assert told(dropped) == [f"{dropped}\n{started}"]  # the lead: who could not pay, the start
    assert await _fees(rows, tid) == fees  # no fee taken twice
    assert await rows.fetch(
        "SELECT count(*) FROM deals WHERE table_key = ?", key) == [(1,)]


async def test_a_tournament_draw_its_worker_died_before_posting_is_posted_once_by_the_next(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """The worker dies right after storing stage 1 (its tables with the state), before the
    start and the draw went to the group: they were stored with the stage, so the next worker
    (its sweep, the watchdog) posts each once and deals the table. Before, they were lost."""
    rows = RawDatabase("postgres", database)
    first = await start_worker("w-first")
    store = bot_data(first).store
    put = store.put_tournament_stage

    async def killed(*args: Any, **kwargs: Any) -> bool:  # dies with the stage stored
        await put(*args, **kwargs)
        raise RuntimeError("SIGKILL")

    store.put_tournament_stage = killed  # type: ignore[method-assign]
    tid, group, users = await _signed_up(fake_api, first, ("Ann", "Bob", "Cy"))
    with pytest.raises(RuntimeError):
        await bot_data(first).game.tournaments.start(tid)
    await stop(first)
    assert (await _tournament_state(rows, tid))["stage"] == 1
    started = t("tour.started", "en", id=tid, n=3, pool=0)
    drawn = t("tour.draw_title", "en", id=tid, stage="\0").split("\0")[0]

    def told(text: str) -> list[str]:  # the group's messages that start so
        return [m.content for m in fake_api.messages_in(group) if m.content.startswith(text)]

    assert told(drawn) == [] and told(started) == []
    second = await start_worker("w-second")
    await wait_until(lambda: _async(bool(told(drawn))))
    key = tournament_key(tid, 1, 1)
    await wait_until(lambda: _async(
        (x := bot_data(second).game.tables.get(key)) is not None and x.phase == DEAL))
    await wait_until(lambda: _gone_watchdog(rows, "w-first"))  # the watchdog came too
    await wait_until(lambda: _no_posts(rows, tid))  # each recorded sent
    await asyncio.sleep(0.3)  # anything posted twice would be on its way
    assert len(told(started)) == 1 and len(told(drawn)) == 1
    ids = [m.message_id for m in fake_api.messages_in(group)]
    assert ids.index(next(m.message_id for m in fake_api.messages_in(group)
                          if m.content.startswith(started))) < \
        ids.index(next(m.message_id for m in fake_api.messages_in(group)
                       if m.content.startswith(drawn)))  # the lead first


async def test_a_tournament_cancel_notice_its_worker_died_before_posting_is_posted_by_the_next(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """The worker dies right after the cancel's refunds were stored, before the group was
    told: the notice was stored with the cancel, so the next worker posts it once."""
    rows = RawDatabase("postgres", database)
    first = await start_worker("w-first")
    store = bot_data(first).store
    cancel = store.cancel_tournament

    async def killed(*args: Any, **kwargs: Any) -> Any:  # dies with the refunds stored
        await cancel(*args, **kwargs)
        raise RuntimeError("SIGKILL")

    store.cancel_tournament = killed  # type: ignore[method-assign]
    tid, group, users = await _signed_up(fake_api, first, ("Ann", "Bob", "Cy"), fee=10)
    with pytest.raises(RuntimeError):
        await bot_data(first).game.tournaments.cancel(tid, "Ann")
    await stop(first)
    notice = t("tour.cancelled", "en", id=tid, by="Ann", n=0, beans="0")

    def told() -> list[str]:
        return [m.content for m in fake_api.messages_in(group) if m.content == notice]

    assert told() == []
    await start_worker("w-second")
    await wait_until(lambda: _async(bool(told())))
    await wait_until(lambda: _no_posts(rows, tid))
    await asyncio.sleep(0.3)
    assert len(told()) == 1


async def _no_posts(rows: RawDatabase, tid: int) -> bool:
    """The tournament's group messages stored with its steps were all recorded sent."""
    return await rows.fetch("SELECT posts FROM tournaments WHERE id = ?", tid) == [("[]",)]


async def _posted(rows: RawDatabase, tid: int) -> bool:
    """The tournament's final ranking is recorded posted (not merely claimed)."""
    return await rows.fetch("SELECT announced FROM tournaments WHERE id = ?", tid) == [(1,)]


async def _gone_watchdog(rows: RawDatabase, worker: str) -> bool:
    """No watchdog of ``worker`` is armed any more (it fired on another worker)."""
    return await rows.fetch("SELECT key FROM timers WHERE key LIKE ?",
                            f"watch:%@{worker}") == []


async def test_a_tournament_final_ranking_its_worker_died_before_posting_is_posted_once(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """The worker dies after the payout committed (``finish_tournament``) and before it posted
    the final ranking: the next workers (their sweeps, the dead worker's watchdog) post it
    exactly once, its posting claimed in the store, and pay nothing again. Before, the group
    never saw the final ranking and the seed was never revealed."""
    rows = RawDatabase("postgres", database)
    first = await start_worker("w-first")
    bot_data(first).game.deal_seed = 11
    store = bot_data(first).store
    finish = store.finish_tournament
    died = asyncio.Event()

    async def paid_then_killed(*args: Any, **kwargs: Any) -> Any:  # dies after the commit
        await finish(*args, **kwargs)
        died.set()
        raise RuntimeError("SIGKILL")

    store.finish_tournament = paid_then_killed  # type: ignore[method-assign]
    tid, group, users = await _signed_up(fake_api, first, ("Ann", "Bob", "Cy"), fee=10)
    for user in users:  # auto-played: the final's deals run fast
        fake_api.block_user(user)
    await bot_data(first).game.tournaments.start(tid)  # three members: the final at once
    await asyncio.wait_for(died.wait(), 4 * TIMEOUT)  # six deals (and a tie's extra ones)
    await asyncio.sleep(0.2)  # whatever else the dying step had started
    seed = (await store.get_tournament(tid)).seed
    await stop(first)

    def finals() -> list[str]:  # the final ranking reveals the seed
        return [m.content for m in fake_api.messages_in(group) if seed in m.content]

    assert finals() == []
    assert await rows.fetch("SELECT status, announced FROM tournaments WHERE id = ?", tid) \
        == [("finished", 0)]
    ledger = await _fees(rows, tid)
    assert sum(amount for _, amount in ledger) == 0 and len(ledger) > 3  # 3 fees, the prizes

    two = await start_worker("w-two")
    three = await start_worker("w-three")
    await wait_until(lambda: _async(bool(finals())))
    await wait_until(lambda: _gone_watchdog(rows, "w-first"))  # the watchdog came too
    for worker in (two, three):  # a retry now posts nothing
        await bot_data(worker).game.tournaments.resume(tid)
        await bot_data(worker).game.tournaments.restore()
    await asyncio.sleep(0.5)  # a second post would be on its way
    assert len(finals()) == 1
    assert t("tour.final_title", "en", id=tid) in finals()[0]
    await wait_until(lambda: _posted(rows, tid))  # recorded once sent
    assert await _fees(rows, tid) == ledger


async def _stage_one_on_hold(fake_api: FakeBotApi, one: App, two: App
                             ) -> tuple[int, Chat, list[User]]:
    """A four-member tournament started on worker ``one`` whose tables deal nothing and whose
    board neither worker draws by itself (each test step below does): stage 1 stays as
    drawn, with no board message."""
    for app in (one, two):
        game = bot_data(app).game

        async def deal(table: Table, **_: Any) -> None:
            pass

        def refresh_board(tournament_id: int, *, now: bool = False) -> None:
            pass

        game.deals.deal = deal  # type: ignore[method-assign]
        game.tournaments.refresh_board = refresh_board  # type: ignore[method-assign]
    tid, group, users = await _signed_up(fake_api, one, ("Ann", "Bob", "Cy", "Dan"))
    await bot_data(one).game.tournaments.start(tid)
    assert (await bot_data(one).store.get_tournament(tid)).board_id is None
    return tid, group, users


async def test_a_tournament_board_drawn_by_two_workers_at_once_is_one_message_never_older(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """Two workers draw the group's board at once (each asked by a table's deal, a timer or a
    stage): one board message is sent, the other draw edits it; a board drawn from an older
    state never replaces a newer one. Before, each worker sent a board of its own (both read
    no board stored), and a slow older edit overwrote a newer board."""
    one, two = await start_worker("w-one"), await start_worker("w-two")
    tid, group, users = await _stage_one_on_hold(fake_api, one, two)
    a, b = bot_data(one).game.tournaments, bot_data(two).game.tournaments
    title = t("tour.board_title", "en", id=tid, stage="\0").split("\0")[0]
    entered = asyncio.Event()
    release = {one: asyncio.Event(), two: asyncio.Event()}

    def slowed(app: App) -> None:
        present = bot_data(app).outlet.present

        async def slow(chat_id: int, *args: Any, **kwargs: Any) -> Any:
            if chat_id == group.id:  # the board: read before, sent after a while
                entered.set()
                await release[app].wait()
                await asyncio.sleep(0.3)
            return await present(chat_id, *args, **kwargs)

        bot_data(app).outlet.present = slow  # type: ignore[method-assign]

    for app in (one, two):
        slowed(app)
        release[app].set()
    await asyncio.gather(a._draw_board(tid), b._draw_board(tid))
    boards = [m for m in fake_api.messages_in(group) if m.content.startswith(title)]
    assert len(boards) == 1
    board_id = (await bot_data(two).store.get_tournament(tid)).board_id
    assert board_id == boards[0].message_id

    # A draws the board as stored (no deal played yet) and its edit waits; meanwhile a deal
    # ends at the table and B draws the newer board: the older one must not come last
    entered.clear()
    release[one].clear()  # A's edit waits; B's goes at once
    older = asyncio.ensure_future(a._draw_board(tid))
    await asyncio.wait_for(entered.wait(), TIMEOUT)
    store = bot_data(two).store
    [row] = await store.tournament_tables(tid, 1)
    played = TableStandings.from_dict(row.state).record(1, [2, -1, -1], landlord=0)
    await store.reopen_tournament_table(tid, 1, 1, played.to_dict())
    newer = asyncio.ensure_future(b._draw_board(tid))
    await asyncio.wait({newer}, timeout=2.0)  # done here only if it did not wait for A
    release[one].set()
    await asyncio.gather(older, newer)
    shown = fake_api.message(group, board_id)
    assert t("tour.board_table", "en", n=1, deals=1, state=t("tour.board_playing", "en")) \
        in shown.content
    assert [m.message_id for m in fake_api.messages_in(group)
            if m.content.startswith(title)] == [board_id]


async def test_a_sign_up_redrawn_on_one_worker_is_not_reopened_after_the_start_on_another(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """A member signs up on worker A, whose redraw of the sign-up message waits for the
    group's flood budget; meanwhile B starts the tournament and closes the message. A's
    redraw (read before the start) must not put the open sign-up with its buttons back: it is
    drawn under the tournament's lock, reading the store inside it."""
    one, two = await start_worker("w-one"), await start_worker("w-two")
    a, b = bot_data(one).game.tournaments, bot_data(two).game.tournaments
    tid, group, users = await _signed_up(fake_api, one, ("Ann", "Bob", "Cy"))
    await a.idle()
    message_id = (await bot_data(one).store.get_tournament(tid)).message_id
    assert message_id is not None
    entered, release = asyncio.Event(), asyncio.Event()
    present = bot_data(one).outlet.present

    async def slow(chat_id: int, *args: Any, **kwargs: Any) -> Any:
        if chat_id == group.id:  # A's redraw: drawn, then its edit waits
            entered.set()
            await release.wait()
        return await present(chat_id, *args, **kwargs)

    bot_data(one).outlet.present = slow  # type: ignore[method-assign]
    dan = fake_api.new_user("Dan")
    fake_api.open_private_chat(dan)
    assert await a.sign_up(tid, Person(dan.id, "Dan"), "en") == t("tour.pop_signed", "en",
                                                                   id=tid)
    await asyncio.wait_for(entered.wait(), TIMEOUT)
    started = asyncio.ensure_future(b.start(tid))  # the members play: the deal waits for them
    await asyncio.wait({started}, timeout=2.0)  # done here only if it did not wait for A
    release.set()
    await started
    await a.idle()
    shown = fake_api.message(group, message_id)
    assert t("tour.started", "en", id=tid, n=4, pool=0) in shown.content
    assert shown.buttons == []


async def test_a_tournament_cancelled_on_another_worker_stops_the_table_dealt_elsewhere(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """The final's table is dealt on worker A (its members bid: the deal waits for them) and
    an admin cancels the tournament on worker B, which never held the table: its deal is
    stopped and the stored table gone, whichever worker dealt it. Before, B stopped only the
    tables in its own memory and A's deal went on (and dealt the next ones)."""
    rows = RawDatabase("postgres", database)
    one, two = await start_worker("w-one"), await start_worker("w-two")
    a, b = bot_data(one).game.tournaments, bot_data(two).game.tournaments
    tid, group, users = await _signed_up(fake_api, one, ("Ann", "Bob", "Cy"), fee=10)
    await a.start(tid)
    key = tournament_key(tid, 1, 1)

    async def deals() -> list[tuple[str]]:
        return [(str(s),) for (s,) in await rows.fetch(
            "SELECT status FROM deals WHERE table_key = ? ORDER BY id", key)]

    assert await deals() == [("running",)]
    assert await b.cancel(tid, "Ann")
    assert await deals() == [("cancelled",)]
    assert await rows.fetch("SELECT table_key FROM tables") == []
    assert await _fees(rows, tid) == [(u.id, -10) for u in users] + [(u.id, 10) for u in users]


async def test_a_tournament_cancel_cut_short_after_the_refunds_has_its_table_stopped(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """The cancelling worker dies after the refunds committed and before it stopped the
    tables: the watchdog of the tournament's lock (on either worker) stops the table dealt on
    the other, refunding nothing again. Before, the table went on dealing."""
    rows = RawDatabase("postgres", database)
    one, two = await start_worker("w-one"), await start_worker("w-two")
    a, b = bot_data(one).game.tournaments, bot_data(two).game.tournaments
    tid, group, users = await _signed_up(fake_api, one, ("Ann", "Bob", "Cy"), fee=10)
    await a.start(tid)
    key = tournament_key(tid, 1, 1)
    stop_tables = b._stop_tables
    dead: list[bool] = []

    async def killed(*args: Any) -> None:  # dies once, with the refunds stored
        if not dead:
            dead.append(True)
            raise RuntimeError("SIGKILL")
        await stop_tables(*args)

    b._stop_tables = killed  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        await b.cancel(tid, "Ann")
    refunded = [(u.id, -10) for u in users] + [(u.id, 10) for u in users]
    assert await _fees(rows, tid) == refunded

    async def stopped() -> bool:
        return await rows.fetch("SELECT status FROM deals WHERE table_key = ?", key) \
            == [("cancelled",)] and await rows.fetch("SELECT table_key FROM tables") == []

    await wait_until(stopped)
    assert await _fees(rows, tid) == refunded


async def test_a_tournament_table_dealt_on_one_worker_is_watched_from_another(
    fake_api: FakeBotApi, database: str, start_worker: Start
):
    """观战 pressed on worker B, which never held the table worker A deals (its members bid:
    the deal waits for them): B reads the stored table, so the member is not told the table
    does not play; the watch is taken under the table's lock (which loads it on B) and the
    member's private chat shows the table. Before, B looked at its own memory only and
    refused."""
    one, two = await start_worker("w-one"), await start_worker("w-two")
    a, b = bot_data(one).game.tournaments, bot_data(two).game.tournaments
    tid, group, users = await _signed_up(fake_api, one, ("Ann", "Bob", "Cy"))
    await a.start(tid)
    key = tournament_key(tid, 1, 1)
    assert bot_data(two).game.ctx.tables.get(key) is None
    record = await bot_data(two).game.ctx.store.get_tournament(tid)
    assert await b.watch_refusal(record, 2, "en") == t("tour.pop_no_table", "en")
    assert await b.watch_refusal(record, 1, "en") is None
    dan = fake_api.new_user("Dan")
    fake_api.open_private_chat(dan)
    assert await b.watch(tid, 1, dan.id)
    await wait_until(lambda: _async(any("Ann" in m.content for m in fake_api.messages_in(dan))))
    table = bot_data(two).game.ctx.tables.get(key)
    assert table is not None and dan.id in table.messages.watchers
