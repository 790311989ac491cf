"""End to end: a group tournament (锦标赛, RULES.md §10.1) through the fake Bot API.

Ten members of a group sign up for a ``quick`` tournament with an entry fee (a member the bot
cannot write to privately is told and not signed up; forged, stale and strangers' presses change
nothing), the opener starts it, and it plays to the end in the members' private chats: stage 1
with 3 tables and a bye, stage 2 with 2 tables, the final; every seat is put on auto-play
(托管, RULES.md §9) by its player's own button so the deals run by themselves. Checked: the
draws against the referee (``python -m engine.judge``) for the seed revealed at the end (whose
SHA-256 the sign-up message showed), every table of a stage dealt at the same time, the fees
into the pool and the prizes out of it (ledger rows summing to zero, beans conserved), no hand
in the group. A second test cancels a started tournament: every fee refunded once.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

from bot.core.callbacks import make_callback
from bot.core.i18n import t
from bot.core.table import DEAL
from bot.features.tournament.driver import START, tournament_lock
from bot.features.tournament.views import tournament_callback
from bot.game.timers import Stamp
from bot.telegram.outlet.telegram import job_name
from engine.prizes import split_pool
from engine.tournament import QUICK, plan
from tests.bot.flow_helpers import LANG, assert_no_hand_in_group, hand_message
from tests.conftest import BotRunner
from tests.fakebot import Chat, FakeBotApi, FakeMessage, User

FEE = 100
ACTIVE = ("bidding", "doubling", "playing")
NAMES = ("Ann", "Bob", "Cy", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo")


def signup_message(api: FakeBotApi, group: Chat) -> FakeMessage:
    """The group's sign-up message (the one with the Sign up button)."""
    label = t("tour.btn_join", LANG)
    for message in reversed(api.messages_in(group)):
        if any(b.text == label for b in message.buttons):
            return message
    raise LookupError("no sign-up message in the group")


async def press(api: FakeBotApi, user: User, message: FakeMessage, data: str) -> str:
    """Press and return the pop-up's text ('' when none)."""
    call = await api.wait_settled(api.press(user, message, data), 10)
    return str(call.params.get("text") or "")


async def autoplay_until(api: FakeBotApi, runner: BotRunner, users: dict[int, User],
                         done, timeout: float = 420.0) -> set[int]:
    """Put every human seat of every running tournament table on auto-play with its player's
    own button until ``done()``; returns how many tables were seen dealing at the same moment,
    per stage (the largest count)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    pressed: dict[tuple[str, int, int], float] = {}
    concurrent: dict[int, int] = {}
    while not await done():
        if loop.time() >= deadline:
            where = [(x.key, x.phase, x.state.phase if x.state else None,
                      x.state.to_act if x.state else None, x.state.autoplay if x.state else None)
                     for x in runner.app.bot_data.tables if x.competition.tournament is not None]
            raise AssertionError(f"the tournament did not finish in time: {where}")
        live = [table for table in runner.app.bot_data.tables
                if table.competition.tournament is not None and table.phase == DEAL]
        for table in live:
            stage = table.competition.tournament["stage"]
            concurrent[stage] = max(concurrent.get(stage, 0), len(
                [x for x in live if x.competition.tournament["stage"] == stage]))
            state = table.state
            if state is None or state.phase not in ACTIVE:
                continue
            for seat, player in table.humans():
                mark = (table.key, table.progress.deal_id or 0, seat)
                if state.autoplay[seat] or player.user_id is None or player.blocked \
                        or loop.time() < pressed.get(mark, 0.0) + 1.0:
                    continue  # a press lost to a redeal's new token is made again
                user = users[player.user_id]
                try:
                    message = hand_message(api, user)
                except LookupError:
                    continue
                pressed[mark] = loop.time()
                api.press(user, message, make_callback("A", table.token, 0, "auto1"))
        await asyncio.sleep(0.05)
    return set(concurrent.items())


def referee(command: str) -> dict:
    """Run one referee command printed in the final ranking (``echo '<json>' | python -m
    engine.judge``) and return its answer."""
    match = re.fullmatch(r"echo '(.*)' \| python -m engine\.judge", command)
    assert match, command
    out = subprocess.run([sys.executable, "-m", "engine.judge"], input=match[1],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


async def test_a_ten_member_quick_tournament_plays_to_the_payout(fake_api: FakeBotApi,
                                                                 running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    tournaments = app.bot_data.game.tournaments
    tournaments.board_interval = 0.0
    users = [api.new_user(name) for name in NAMES]
    by_id = {u.id: u for u in users}
    ann = users[0]
    zed = api.new_user("Zed")  # never opened the bot's private chat
    group = api.new_group("Cards")
    api.make_admin(group, ann)
    for user in users:
        api.open_private_chat(user)
    await store.update_group_settings(group.id, pictures=False)

    # Bad input: a non-admin, a fee and a time out of range, an unknown word. Nothing opens.
    for who, text, key in ((users[1], "/tournament", "tour.admins_only"),
                           (ann, "/tournament quick 2000000", "tour.bad_fee"),
                           (ann, "/tournament 25:00", "tour.bad_time"),
                           (ann, "/tournament quick fast", "tour.usage")):
        api.send_text(who, group, text)
        reply = await api.wait_for("sendMessage", chat_id=group)
        assert reply.params["text"] == t(key, LANG, high="1,000,000", fee="1,000,000", max=30,
                                         min=3, limit=180)
    assert await store.live_tournaments() == []

    api.send_text(ann, group, f"/jinbiao quick {FEE}")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.live_tournaments()
    tid = record.tournament_id
    shown = signup_message(api, group)
    assert shown.photo is None and shown.text is not None  # the group's pictures are off
    assert record.seed_hash in shown.content and record.seed not in shown.content
    assert t("tour.title", LANG, id=tid, preset=t("tour.preset_quick", LANG)) in shown.content
    api.send_text(ann, group, "/tournament")  # one live tournament per group
    reply = await api.wait_for("sendMessage", chat_id=group)
    assert reply.params["text"] == t("tour.refused_live", LANG)

    # Forged, stale and strangers' presses change nothing.
    assert await press(api, users[1], shown, "T:abc:join") == t("pop.invalid", LANG)
    assert await press(api, users[1], shown, tournament_callback(tid + 1, "join")) == \
        t("tour.pop_closed", LANG)
    assert await press(api, users[1], shown, tournament_callback(tid, "start")) == \
        t("tour.pop_opener_only", LANG)
    assert await press(api, ann, shown, tournament_callback(tid, "start")) == \
        t("tour.pop_too_few", LANG, min=3, n=0)
    assert await store.tournament_entries(tid) == []

    # Sign-up: ten members; twice is refused; Zed cannot be written to and is not signed up.
    for user in users:
        assert await press(api, user, signup_message(api, group),
                           tournament_callback(tid, "join")) == \
            t("tour.pop_signed", LANG, id=tid)
    assert await press(api, ann, signup_message(api, group), tournament_callback(tid, "join")) \
        == t("tour.pop_already", LANG)
    assert await press(api, zed, signup_message(api, group), tournament_callback(tid, "join")) \
        == t("tour.pop_open_private", LANG)
    assert await press(api, users[3], signup_message(api, group),
                       tournament_callback(tid, "quit")) == t("tour.pop_withdrawn", LANG)
    assert await press(api, users[3], signup_message(api, group),
                       tournament_callback(tid, "join")) == t("tour.pop_signed", LANG, id=tid)
    order = [*users[:3], *users[4:], users[3]]
    assert [e.user_id for e in await store.tournament_entries(tid)] == [u.id for u in order]
    # the names signed up are shown (the message is redrawn after the presses are answered)
    await api.wait_for(lambda: "Jo" in signup_message(api, group).content)
    assert [await store.balance(u.id) for u in users] == [1000] * 10  # nothing taken yet

    # The opener starts it: the fees go into the pool, stage 1 is drawn and dealt. Four
    # members have blocked the bot since: their seats are away and auto-played (RULES.md §9).
    away = users[6:]
    for user in away:
        api.block_user(user)
    assert await press(api, ann, signup_message(api, group), tournament_callback(tid, "start")) \
        == t("tour.pop_starting", LANG)
    assert [await store.balance(u.id) for u in users] == [1000 - FEE] * 10
    draw_text = t("tour.draw_title", LANG, id=tid, stage=t("tour.stage_n", LANG, n=1))
    await api.wait_for(lambda: any(m.content.startswith(draw_text)
                                   for m in api.messages_in(group)), 10)

    # 观战: a member who plays no table watches table 1 in his private chat: the table, no
    # hand; a table that does not run is refused.
    kim = api.new_user("Kim")
    api.open_private_chat(kim)
    board = await api.wait_for(lambda: next(
        (m for m in api.messages_in(group) if any(
            b.text == t("tour.btn_watch", LANG, n=1) for b in m.buttons)), None), 10)
    assert board.photo is None and board.text is not None
    assert await press(api, kim, board, tournament_callback(tid, "watch", 1)) == \
        t("tour.pop_watching", LANG)
    # the bot did not know it could write to Kim: a note there tried it before the pop-up
    assert api.messages_in(kim)[0].content == t("tour.watch_private", LANG, id=tid, n=1)
    watched = await api.wait_for(lambda: next(
        (m for m in api.messages_in(kim) if "Tournament #" in m.content), None), 10)
    assert watched.photo is None  # pictures are off
    assert not any(line.startswith(t("hand.title", LANG, n=17)) for line in
                   watched.content.splitlines())
    assert await press(api, kim, board, tournament_callback(tid, "watch", 9)) == \
        t("tour.pop_no_table", LANG)
    # Lou never opened the bot's private chat, and the bot has not tried it yet: the note is
    # tried before the pop-up, which carries the link that opens the chat (its own /start)
    # and Lou watches nothing, not a "watching" that nothing follows.
    lou = api.new_user("Lou")
    call = await api.wait_settled(api.press(lou, board, tournament_callback(tid, "watch", 1)),
                                  10)
    assert call.params["text"] == t("tour.pop_open_private_watch", LANG)
    assert call.params["url"].endswith(f"?start=watch_{tid}")
    assert not any(lou.id in x.messages.watchers for x in app.bot_data.tables)
    # Zed, known unreachable (his Sign up), gets the link at once; after its /start (which
    # says to press Watch again) his Watch works.
    call = await api.wait_settled(api.press(zed, board, tournament_callback(tid, "watch", 1)),
                                  10)
    assert call.params["text"] == t("tour.pop_open_private_watch", LANG)
    assert call.params["url"].endswith(f"?start=watch_{tid}")
    assert not any(zed.id in x.messages.watchers for x in app.bot_data.tables)
    api.open_private_chat(zed)
    api.send_text(zed, zed, f"/start watch_{tid}")
    reply = await api.wait_for("sendMessage", chat_id=zed)
    assert reply.params["text"] == t("tour.start_watch_link", LANG)
    assert await press(api, zed, board, tournament_callback(tid, "watch", 1)) == \
        t("tour.pop_watching", LANG)
    assert any(zed.id in x.messages.watchers for x in app.bot_data.tables)

    async def finished() -> bool:
        return (await store.get_tournament(tid)).status == "finished"

    concurrent = await autoplay_until(api, running_bot, by_id, finished)
    await tournaments.idle()
    await app.bot_data.outlet.caught_up()
    record = await store.get_tournament(tid)

    # The stages: 3 tables and a bye, then 2 tables, then the final; each stage's tables
    # were dealing at the same time.
    planned = [(s.tables, s.byes) for s in plan(QUICK, 10)]
    assert planned == [(3, 1), (2, 0), (1, 0)]
    tables = await store.tournament_tables(tid)
    assert [sum(1 for x in tables if x.stage == n) for n in (1, 2, 3)] == [3, 2, 1]
    assert (1, 3) in concurrent and (2, 2) in concurrent

    # The draws equal the referee's for the revealed seed, whose SHA-256 was shown.
    final = next(m for m in reversed(api.messages_in(group))
                 if m.content.startswith(t("tour.final_title", LANG, id=tid)))
    assert record.seed in final.content and final.photo is None
    commands = [line for line in final.content.splitlines() if line.startswith("echo '")]
    assert len(commands) == 3
    stages = record.state["stages"]
    for number, command in enumerate(commands, start=1):
        answer = referee(command)
        assert answer["sha256"] == record.seed_hash
        stored = [list(x.players) for x in tables if x.stage == number]
        assert answer["tables"] == stored
        assert sorted(answer["byes"] + [p for x in stored for p in x]) == \
            sorted(stages[number - 1]["players"])
    assert len(referee(commands[0])["byes"]) == 1

    # The pool: ten fees in, the same beans out as prizes (50/30/20), once; beans conserved.
    assert record.pool == 10 * FEE
    rows = await store.tournament_ledger(tid)
    fees = [r for r in rows if r.amount < 0]
    prizes = [r for r in rows if r.amount > 0]
    assert sorted(r.user_id for r in fees) == sorted(u.id for u in users)
    assert all(r.amount == -FEE for r in fees)
    assert sum(r.amount for r in prizes) == 10 * FEE and sum(r.amount for r in rows) == 0
    places = {int(p): place for p, place in record.result["places"].items()}
    signup = [e.user_id for e in await store.tournament_entries(tid)]
    expected = split_pool(10 * FEE, [places[p] for p in signup])  # 50/30/20, shared places
    assert {r.user_id: r.amount for r in prizes} == \
        {p: a for p, a in zip(signup, expected, strict=True) if a}
    assert sorted(places.values())[:1] == [1] and None not in places.values()
    balances = [await store.balance(u.id) for u in users]
    assert sum(balances) == 10 * 1000
    champion = next(int(p) for p, place in record.result["places"].items() if place == 1)
    assert await store.balance(champion) == 1000 - FEE + 500
    final_players = next(x.players for x in tables if x.stage == 3)
    assert champion in final_players
    assert_no_hand_in_group(api, group, users[:6])
    assert not [x for x in app.bot_data.tables if x.competition.tournament is not None]

    # /me counts the tournament played and won; /top tournaments ranks the winners.
    winners = sorted(p for p, place in places.items() if place == 1)
    loser = next(p for p in signup if places[p] != 1)
    for user_id, won in ((champion, 1), (loser, 0)):
        api.send_text(by_id[user_id], group, "/me")
        line = t("me.tournaments", LANG, played=1, won=won)
        await api.wait_for(lambda line=line: any(line in m.content
                                                 for m in api.messages_in(group)), 10)
    api.send_text(ann, group, "/top tournaments")
    title = t("top.tournaments_title", LANG)
    board = await api.wait_for(lambda: next((m for m in api.messages_in(group)
                                             if m.content.startswith(title)), None), 10)
    names = {u.id: u.first_name for u in users}
    week = [t("top.matches_line", LANG, rank=rank, name=names[p], wins=1, games=1)
            for rank, p in enumerate(winners, start=1)]
    assert board.content.splitlines() == [title, "", t("top.matches_week", LANG), *week, "",
                                          t("top.matches_all", LANG), *week]


async def test_a_cancel_refunds_every_fee_once(fake_api: FakeBotApi, running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    users = [api.new_user(name) for name in NAMES[:4]]
    by_id = {u.id: u for u in users}
    ann = users[0]
    group = api.new_group("Cards")
    api.make_admin(group, ann)
    for user in users:
        api.open_private_chat(user)
    await store.update_group_settings(group.id, pictures=False, hands="group")
    api.send_text(ann, group, f"/tournament classic {FEE}")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.live_tournaments()
    tid = record.tournament_id
    for user in users:
        await press(api, user, signup_message(api, group), tournament_callback(tid, "join"))
    assert await press(api, ann, signup_message(api, group), tournament_callback(tid, "start")) \
        == t("tour.pop_starting", LANG)
    await api.wait_for(lambda: any(t("tour.table_line", LANG, n=1, names="")[:7] in m.content
                                   for m in api.messages_in(group)), 10)
    assert [await store.balance(u.id) for u in users] == [1000 - FEE] * 4
    running = [x for x in app.bot_data.tables
               if x.competition.tournament is not None and x.phase == DEAL]
    assert len(running) == 1  # 4 players: one table and a bye
    # the group shows hands in the group, but a tournament's hands are private (§10.1)
    assert not any(seat.in_group for seat in running[0].seats)
    for seat in running[0].seats:
        await api.wait_for(lambda seat=seat: hand_message(api, by_id[seat.user_id]), 10)

    # A stranger's /stop is refused; the admin's cancels it and refunds every fee once.
    api.send_text(users[1], group, "/stop")
    reply = await api.wait_for("sendMessage", chat_id=group)
    assert reply.params["text"] == t("reply.admin_only", LANG)
    api.send_text(ann, group, "/stop")
    await api.wait_for(lambda: any(m.content.startswith(t("tour.cancelled", LANG, id=tid,
                                                          by="Ann", n=4, beans="400"))
                                   for m in api.messages_in(group)), 10)
    assert [await store.balance(u.id) for u in users] == [1000] * 4
    api.send_text(ann, group, "/tournament cancel")
    reply = await api.wait_for("sendMessage", chat_id=group)
    assert reply.params["text"] == t("tour.nothing_to_cancel", LANG)
    rows = await store.tournament_ledger(tid)
    assert len(rows) == 8 and sum(r.amount for r in rows) == 0
    assert (await store.get_tournament(tid)).status == "cancelled"
    assert not [x for x in app.bot_data.tables if x.competition.tournament is not None]
    assert [await store.balance(u.id) for u in users] == [1000] * 4


async def test_a_restart_mid_stage_and_a_member_who_leaves(fake_api: FakeBotApi,
                                                           running_bot: BotRunner):
    """Four members, ``quick``: stage 1 is one table and a bye, then the final. The bot
    restarts during stage 1's first deal: the deal resumes where it was (not dealt again) and
    the tournament goes on. A table player /leaves (in his private chat, confirmed): he
    forfeits (no prize), the seat is auto-played to the stage's end, and the pool is paid to
    the others."""
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    users = [api.new_user(name) for name in NAMES[:4]]
    by_id = {u.id: u for u in users}
    ann = users[0]
    group = api.new_group("Cards")
    api.make_admin(group, ann)
    for user in users:
        api.open_private_chat(user)
    await store.update_group_settings(group.id, pictures=False)
    api.send_text(ann, group, f"/tournament quick {FEE}")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.live_tournaments()
    tid = record.tournament_id
    for user in users:
        await press(api, user, signup_message(api, group), tournament_callback(tid, "join"))
    await press(api, ann, signup_message(api, group), tournament_callback(tid, "start"))

    def running():
        return next((x for x in running_bot.app.bot_data.tables
                     if x.competition.tournament is not None and x.phase == DEAL
                     and x.state is not None and x.state.phase in ACTIVE), None)

    table = await api.wait_for(running, 10)
    before = table.key, table.progress.deal_id, table.state.version
    app = await running_bot.restart()
    store = app.bot_data.store
    resumed = app.bot_data.tables.get(before[0])
    assert resumed is not None and resumed.phase == DEAL
    # resumed, not dealt again
    assert (resumed.progress.deal_id, resumed.state.version) == before[1:]

    # A table player leaves: /leave in his private chat, then Yes on the prompt.
    leaver = by_id[next(s.user_id for s in resumed.seats if s.user_id is not None)]
    api.send_text(leaver, leaver, "/leave")
    prompt = await api.wait_for(lambda: next(
        (m for m in reversed(api.messages_in(leaver))
         if any((b.callback_data or "").startswith("Q:") for b in m.buttons)), None), 10)
    assert t("tour.leave_forfeit", LANG, id=tid) in prompt.content
    yes = next(b.callback_data for b in prompt.buttons if "yes" in (b.callback_data or ""))
    await press(api, leaver, prompt, yes)

    async def finished() -> bool:
        return (await store.get_tournament(tid)).status == "finished"

    await autoplay_until(api, running_bot, by_id, finished)
    await app.bot_data.game.tournaments.idle()
    record = await store.get_tournament(tid)
    assert record.result["places"][str(leaver.id)] is None  # forfeited: no place, no prize
    rows = await store.tournament_ledger(tid)
    assert sum(r.amount for r in rows) == 0
    assert all(r.user_id != leaver.id for r in rows if r.amount > 0)
    assert sum(r.amount for r in rows if r.amount > 0) == 4 * FEE
    assert sum([await store.balance(u.id) for u in users]) == 4 * 1000
    assert await store.balance(leaver.id) == 1000 - FEE
    final = [x for x in await store.tournament_tables(tid) if x.stage == 2]
    assert len(final) == 1 and leaver.id not in final[0].players


async def test_a_timed_start_with_too_few_signed_up_cancels(fake_api: FakeBotApi,
                                                             running_bot: BotRunner):
    """定时赛: ``/tournament quick 50 21:30`` shows the start time in the group's time zone and
    arms the start (a timer, kept across a restart); when it fires with fewer than one table
    signed up, the tournament is cancelled, nothing was taken and the group is told."""
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    ann, bob = api.new_user("Ann"), api.new_user("Bob")
    group = api.new_group("Cards")
    api.make_admin(group, ann)
    for user in (ann, bob):
        api.open_private_chat(user)
    await store.update_group_settings(group.id, pictures=False, timezone="Asia/Shanghai")
    api.send_text(ann, group, "/tournament quick 50 21:30")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.live_tournaments()
    tid = record.tournament_id
    shown = signup_message(api, group).content
    assert t("tour.start_at", LANG, time="21:30", tz="Asia/Shanghai") in shown
    key = tournament_lock(tid)
    await api.wait_for(lambda: app.job_queue.get_jobs_by_name(job_name(START, key)), 5)
    await press(api, bob, signup_message(api, group), tournament_callback(tid, "join"))
    app = await running_bot.restart()  # the start is armed again
    assert app.job_queue.get_jobs_by_name(job_name(START, key))
    await app.bot_data.game.tournaments._on_start(Stamp(key, ""))  # the time has come
    await api.wait_for(lambda: any(m.content.startswith(t("tour.too_few", LANG, id=tid, min=3))
                                   for m in api.messages_in(group)), 10)
    assert (await app.bot_data.store.get_tournament(tid)).status == "cancelled"
    assert await app.bot_data.store.balance(bob.id) == 1000
    assert await app.bot_data.store.tournament_ledger(tid) == []


async def test_a_sign_up_is_answered_before_the_sign_up_message_is_redrawn(
        fake_api: FakeBotApi, running_bot: BotRunner):
    """A press is answered first: with the sign-up message's edit held (a group whose flood
    window is full holds it for most of a minute), Sign up and Withdraw are answered at once and
    the message shows the latest sign-ups once the edit may go."""
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    tournaments = app.bot_data.game.tournaments
    users = [api.new_user(name) for name in NAMES[:3]]
    ann = users[0]
    group = api.new_group("Cards")
    api.make_admin(group, ann)
    for user in users:
        api.open_private_chat(user)
    api.send_text(ann, group, "/tournament quick")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.live_tournaments()
    tid = record.tournament_id
    gate = asyncio.Event()
    redraw = tournaments._redraw_signup

    async def held(*args, **kwargs) -> None:
        await gate.wait()
        await redraw(*args, **kwargs)

    tournaments._redraw_signup = held
    try:
        for user in users:
            assert await press(api, user, signup_message(api, group),
                               tournament_callback(tid, "join")) == \
                t("tour.pop_signed", LANG, id=tid)
        assert await press(api, users[1], signup_message(api, group),
                           tournament_callback(tid, "quit")) == t("tour.pop_withdrawn", LANG)
    finally:
        gate.set()
    shown = await api.wait_for(lambda: (lambda m: m if all(
        u.first_name in m.content for u in (users[0], users[2])) else None)(
        signup_message(api, group)))
    assert users[1].first_name not in shown.content
