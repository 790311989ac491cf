"""End to end: a group tournament's options (RULES.md §10.1, §11) through the fake Bot API.

- **The field** (a minimum and maximum field): ``/tournament quick min 4 max 5``; a number out
  of range is answered with its range and opens nothing; 开赛 is refused below the minimum, the
  maximum signed up starts it (满人开赛) and nobody more gets in; a timed start with fewer than
  the minimum cancels.
- **A stage time limit** (seed 001 比賽以15分鐘為限。時間一到，每桌把手中的牌打完):
  ``/tournament quick time 10``; the sign-up shows it, each stage arms its timer (a timer row,
  :data:`bot.features.tournament.driver.TIME`, armed again after a restart); the test moves
  the driver's clock past it and fires the timer as the timer rows would: the group is told,
  every table ends after the deal it was playing, the stage advances by the deals played; a
  stage's timer that fires late, once the stage is over, changes nothing.
- **Three lost landlord deals** in a four-player tournament stage (RULES.md §11, seed 004 rule
  5): the seat may only pass in its later biddings; its hand says why, the standings mark it
  and a forged bid is refused. Playing three whole four-player deals that one seat loses as
  landlord would be slow and hang on the AI's choices, so the test writes three such deals into
  the table's stored standings (as three settlements would have) while the first deal is bid.
"""

from __future__ import annotations

import asyncio
import json
import time

from bot.core.callbacks import make_callback
from bot.core.i18n import t
from bot.core.table import DEAL, Table
from bot.features.tournament.driver import START, TIME, tournament_lock
from bot.features.tournament.standings import TableStandings
from bot.features.tournament.views import tournament_callback
from bot.game.timers import Stamp
from bot.telegram.outlet.telegram import job_name
from engine import Action
from tests.bot.flow_helpers import LANG, button_data, hand_message
from tests.bot.four_helpers import FourTable
from tests.bot.test_e2e_tournament import autoplay_until, press, signup_message
from tests.conftest import BotRunner
from tests.fakebot import Chat, FakeBotApi, User

NAMES = ("Ann", "Bob", "Cy", "Dan", "Eve", "Fay")


async def open_group(api: FakeBotApi, runner: BotRunner, count: int
                     ) -> tuple[list[User], Chat]:
    """``count`` members (the first an admin) of a new group, their private chats open."""
    users = [api.new_user(name) for name in NAMES[:count]]
    group = api.new_group("Cards")
    api.make_admin(group, users[0])
    for user in users:
        api.open_private_chat(user)
    await runner.app.bot_data.store.update_group_settings(group.id, pictures=False)
    return users, group


async def wait_live(store, timeout: float = 10.0):
    """The live tournament once there is one."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (live := await store.live_tournaments()):
        assert loop.time() < deadline, "no tournament opened"
        await asyncio.sleep(0.05)
    return live[0]


async def reply_to(api: FakeBotApi, user: User, group: Chat, text: str) -> str:
    api.send_text(user, group, text)
    return str((await api.wait_for("sendMessage", chat_id=group)).params["text"])


async def test_the_fields_minimum_and_maximum(fake_api: FakeBotApi, running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    users, group = await open_group(api, running_bot, 6)
    ann = users[0]

    # Out of range: the reply gives the range, nothing opens.
    for text, expected in (
            ("/tournament min 2", t("tour.bad_min", LANG, low=3, high=30)),
            ("/tournament quick max 31", t("tour.bad_max", LANG, low=3, high=30)),
            ("/tournament min 6 max 5", t("tour.bad_field", LANG, min=6, max=5)),
            ("/tournament time 500", t("tour.bad_limit", LANG, high=180)),
            ("/tournament min", t("tour.usage", LANG, fee="1,000,000", max=30, min=3,
                                  limit=180))):
        assert await reply_to(api, ann, group, text) == expected
    assert await store.live_tournaments() == []

    api.send_text(ann, group, "/tournament quick min 4 max 5")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.live_tournaments()
    tid = record.tournament_id
    assert (record.options["min"], record.options["max"]) == (4, 5)
    shown = signup_message(api, group).content
    assert t("tour.signed_none", LANG, max=5, min=4) in shown
    assert t("tour.start_full", LANG, max=5) in shown

    # 开赛 below the minimum is refused and changes nothing.
    for user in users[:3]:
        assert await press(api, user, signup_message(api, group),
                           tournament_callback(tid, "join")) == t("tour.pop_signed", LANG, id=tid)
    assert await press(api, ann, signup_message(api, group), tournament_callback(tid, "start")) \
        == t("tour.pop_too_few", LANG, min=4, n=3)
    assert (await store.get_tournament(tid)).status == "open"
    assert len(await store.tournament_entries(tid)) == 3

    # The fifth sign-up fills the field and starts it (满人开赛); a sixth gets no place.
    sign_up = signup_message(api, group)
    for user in users[3:5]:
        assert await press(api, user, signup_message(api, group),
                           tournament_callback(tid, "join")) == t("tour.pop_signed", LANG, id=tid)
    draw = t("tour.draw_title", LANG, id=tid, stage=t("tour.stage_n", LANG, n=1))
    await api.wait_for(lambda: any(m.content.startswith(draw) for m in api.messages_in(group)),
                       10)
    assert (await store.get_tournament(tid)).status == "running"
    assert await press(api, users[5], sign_up, tournament_callback(tid, "join")) in (
        t("tour.pop_full", LANG, max=5), t("tour.pop_closed", LANG))
    assert [e.user_id for e in await store.tournament_entries(tid)] == [u.id for u in users[:5]]
    assert await app.bot_data.game.tournaments.cancel(tid, "Ann")

    # A timed start with fewer than the minimum cancels (nothing was taken).
    api.send_text(ann, group, "/tournament quick 50 21:30 min 4")
    live = await wait_live(store)
    timed = live.tournament_id
    assert timed != tid and live.options["min"] == 4
    join = tournament_callback(timed, "join")  # stored before its sign-up message is posted
    await api.wait_for(lambda: any(b.callback_data == join for m in api.messages_in(group)
                                   for b in m.buttons))
    for user in users[:3]:
        await press(api, user, signup_message(api, group), tournament_callback(timed, "join"))
    key = tournament_lock(timed)
    await api.wait_for(lambda: app.job_queue.get_jobs_by_name(job_name(START, key)), 5)
    await app.bot_data.game.tournaments._on_start(Stamp(key, ""))  # the time has come
    await api.wait_for(lambda: any(m.content.startswith(t("tour.too_few", LANG, id=timed, min=4))
                                   for m in api.messages_in(group)), 10)
    assert (await store.get_tournament(timed)).status == "cancelled"
    assert await store.tournament_ledger(timed) == []
    assert [await store.balance(u.id) for u in users[:3]] == [1000] * 3


async def test_a_stage_time_limit_ends_every_table_after_its_running_deal(
        fake_api: FakeBotApi, running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    tournaments = app.bot_data.game.tournaments
    tournaments.board_interval = 0.0
    now = [time.time()]
    tournaments.clock = lambda: now[0]
    users, group = await open_group(api, running_bot, 6)
    by_id = {u.id: u for u in users}
    ann = users[0]
    api.send_text(ann, group, "/tournament quick time 10")
    tid = (await wait_live(store)).tournament_id
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    shown = signup_message(api, group).content
    assert t("tour.time_part", LANG, n=10) in shown
    for user in users:
        await press(api, user, signup_message(api, group), tournament_callback(tid, "join"))
    started = now[0]
    assert await press(api, ann, signup_message(api, group), tournament_callback(tid, "start")) \
        == t("tour.pop_starting", LANG)

    # Stage 1: two tables, each dealing; the stage's timer is armed 10 minutes on, and armed
    # again after a restart.
    key = tournament_lock(tid)
    record = await store.get_tournament(tid)
    assert record.state["stage"] == 1 and record.state["ends_at"] == started + 600
    (job,) = app.job_queue.get_jobs_by_name(job_name(TIME, key))
    assert abs(job.next_t.timestamp() - (started + 600)) < 1

    def dealing(stage: int) -> list[Table]:
        return [x for x in running_bot.app.bot_data.tables if x.competition.tournament is not None
                and x.competition.tournament["stage"] == stage and x.phase == DEAL
                and x.state is not None and x.state.phase == "bidding"]

    await api.wait_for(lambda: len(dealing(1)) == 2 or None, 10)
    app = await running_bot.restart()
    store = app.bot_data.store
    tournaments = app.bot_data.game.tournaments
    tournaments.board_interval = 0.0
    tournaments.clock = lambda: now[0]
    (job,) = app.job_queue.get_jobs_by_name(job_name(TIME, key))
    assert abs(job.next_t.timestamp() - (started + 600)) < 1
    await api.wait_for(lambda: len(dealing(1)) == 2 or None, 10)
    told = t("tour.time_up", LANG, id=tid, minutes=10, stage=t("tour.stage_n", LANG, n=1))
    assert not any(m.content == told for m in api.messages_in(group))
    now[0] += 600
    # the deal each table is playing (the first, unless a seat's 15 s ran out meanwhile)
    running = {x.competition.tournament["number"]: x.competition.tournament["deal"]
               for x in dealing(1)}
    await tournaments._on_time(Stamp(key, "1"))  # the timer row fires (on one worker)
    await api.wait_for(lambda: any(m.content == told for m in api.messages_in(group)), 10)
    assert (await store.get_tournament(tid)).state["time_up"] == 1

    # The deals in progress are played out (on auto-play) and are the tables' last.
    async def final_drawn() -> bool:
        return (await store.get_tournament(tid)).state.get("stage") == 2

    await autoplay_until(api, running_bot, by_id, final_drawn, timeout=120)
    rows = await store.tournament_tables(tid, 1)
    assert len(rows) == 2 and all(r.done for r in rows)
    assert sorted(running) == [1, 2] and max(running.values()) < 3
    for row in rows:
        table = TableStandings.from_dict(row.state)
        assert table.time_up and table.match.played == running[row.number] < table.deals == 3
    record = await store.get_tournament(tid)
    (stage1,) = record.state["advancements"]
    assert len(stage1["through"]) == 3  # the winner of each table and the best runner-up
    result = t("tour.result_title", LANG, id=tid, stage=t("tour.stage_n", LANG, n=1))
    await api.wait_for(lambda: any(m.content.startswith(result)
                                   for m in api.messages_in(group)), 10)

    # The final has its own 10 minutes; the first stage's timer firing late changes nothing.
    assert record.state["ends_at"] >= now[0] + 600 and record.state["time_up"] is None
    count = len(api.messages_in(group))
    await tournaments._on_time(Stamp(key, "1"))
    assert (await store.get_tournament(tid)).state["time_up"] is None
    now[0] += 600
    await tournaments._on_time(Stamp(key, "2"))

    async def finished() -> bool:
        return (await store.get_tournament(tid)).status == "finished"

    await autoplay_until(api, running_bot, by_id, finished, timeout=120)
    await tournaments.idle()
    await app.bot_data.outlet.caught_up()
    told2 = t("tour.time_up", LANG, id=tid, minutes=10, stage=t("tour.stage_final", LANG))
    assert [m.content for m in api.messages_in(group)[count:]].count(told2) == 1
    assert told not in [m.content for m in api.messages_in(group)[count:]]
    (final,) = await store.tournament_tables(tid, 2)
    standings = TableStandings.from_dict(final.state)
    assert standings.time_up and standings.match.played < standings.deals == 6
    places = (await store.get_tournament(tid)).result["places"]
    assert sorted(p for p in places.values() if p is not None)[0] == 1


async def seed_lost_landlord_deals(store, tournament_id: int, seat: int, deals: int) -> None:
    """Write ``deals`` deals that ``seat`` lost as landlord into stage 1's table 1 (as
    settlements would have, ``TableStandings.record(..., landlord=seat)``)."""
    (row,) = await store.tournament_tables(tournament_id, 1)
    table = TableStandings.from_dict(row.state)
    for n in range(deals):
        points = [1, 1, 1, 1]
        points[seat] = -3
        table = table.record(-1 - n, points, landlord=seat)
    async with store._write() as db:  # the test plays the part of three settlements
        await db.execute("UPDATE tournament_tables SET state = $1 WHERE tournament_id = $2"
                         " AND stage = 1 AND number = 1", json.dumps(table.to_dict()),
                         tournament_id)


async def test_a_four_player_stage_bars_a_player_who_lost_three_landlord_deals(
        fake_api: FakeBotApi, running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    four = await FourTable.open(api, app, "Four", NAMES[:4], LANG, pictures=False)
    ann = four.users[0]
    api.make_admin(four.group, ann)
    by_id = {u.id: u for u in four.users}
    api.send_text(ann, four.group, "/tournament quick")
    tid = (await wait_live(store)).tournament_id
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(four.group)))
    for user in four.users:
        assert await press(api, user, signup_message(api, four.group),
                           tournament_callback(tid, "join")) == t("tour.pop_signed", LANG, id=tid)
    await press(api, ann, signup_message(api, four.group), tournament_callback(tid, "start"))

    def seated() -> Table | None:
        return next((x for x in app.bot_data.tables if x.competition.tournament is not None
                     and x.phase == DEAL and x.state is not None), None)

    table = await api.wait_for(seated, 10)
    first = table.progress.deal_id
    assert table.state.rules.variant == "four" and table.state.bidding.barred == ()
    barred = (table.state.first_bidder + 1) % 4  # the first bidder of the next deal
    eve = by_id[table.seats[barred].user_id]
    await seed_lost_landlord_deals(store, tid, barred, 3)

    # Deal 1 plays itself out on auto-play (each player's own button).
    for _, player in table.humans():
        user = by_id[player.user_id]
        await api.wait_for(lambda user=user: hand_message(api, user), 10)
        await press(api, user, hand_message(api, user),
                    make_callback("A", table.token, 0, "auto1"))

    def second_deal_bidding() -> bool | None:
        state = table.state
        return table.progress.deal_id != first and state is not None and state.phase == "bidding" \
            and state.to_act == (barred,) or None

    await api.wait_for(second_deal_bidding, 60)
    (row,) = await store.tournament_tables(tid, 1)
    standings = TableStandings.from_dict(row.state)
    assert standings.match.played == 4 and standings.landlord_losses()[barred] >= 3
    state = table.state
    assert state.bidding.barred == tuple(s == barred for s in range(4))
    assert state.legal_actions(barred) == [Action("pass", barred)]

    # The standings under deal 1's result mark the barred player.
    mark = t("tour.barred_mark", LANG)
    await api.wait_for(lambda: any(
        line.startswith(f"{eve.first_name}:") and line.endswith(mark)
        for m in api.messages_in(eve) for line in m.content.splitlines()), 10)

    # Her hand: No bid is her only bidding button, and a line says why.
    message = await four.prompt(eve, suffix=":pass")
    assert t("hand.barred_stage", LANG) in message.content.splitlines()
    labels = [b.text for b in message.buttons]
    assert t("btn.no_bid", LANG) in labels
    assert not {t(f"btn.bid_{v}", LANG) for v in (1, 2, 3)} & set(labels)

    # A bid forged from the prompt's own token and version is refused and changes nothing.
    forged = button_data(message, suffix=":pass").removesuffix("pass") + "bid3"
    answer = await four.press(eve, message, forged)
    assert answer.params.get("text") == t("illegal.barred", LANG)
    assert table.state is state and table.state.to_act == (barred,)
    assert await app.bot_data.game.tournaments.cancel(tid, "Ann")
