"""End to end: the duplicate challenge (复式挑战, issue 12, RULES.md §10) through the fake Bot API.

Three members of a group enter a 2-deal challenge with an entry fee and play it in their private
chats (one across a bot restart, one letting a deal time out). The board and the final ranking
are checked against this test's own matchpoint computation from the engine's results of the
stored deals; the revealed seed, fed to the referee (``python -m engine.judge``), must give the
published hash and the very cards every member was dealt; the prize is paid once. Replaying a
deal, entering twice and looking at an unplayed deal are refused with nothing changed.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

from bot.core.i18n import t
from bot.core.table import DEAL, challenge_key
from bot.features.challenge import driver as challenge_driver
from bot.features.challenge.views import challenge_callback, mp_text, title
from bot.presentation.scenes import picture_labels
from bot.presentation.views import place_text, points_text
from bot.telegram.outlet import send as outlet_send
from bot.telegram.outlet.telegram import job_name
from engine import Action, DealState, apply, new_deal
from engine.ai import choose_action
from engine.match import PRIZE_SPLIT, prizes
from images.challenge_board import BoardRow, BoardScene, render_challenge_board
from tests.bot.flow_helpers import LANG, Players, cannot_follow, hand_message
from tests.conftest import BotRunner
from tests.fakebot import Chat, FakeBotApi, FakeMessage, User

FEE = 100
ACTIVE = ("bidding", "doubling", "playing")


def enter_message(api: FakeBotApi, group: Chat) -> FakeMessage:
    """The group's challenge message (the one with the Enter button)."""
    label = t("challenge.btn_enter", LANG)
    for message in reversed(api.messages_in(group)):
        if any(b.text == label for b in message.buttons):
            return message
    raise LookupError("no challenge message in the group")


def menu_message(api: FakeBotApi, user: User) -> FakeMessage:
    """The member's newest private message with challenge buttons (their menu)."""
    for message in reversed(api.messages_in(user)):
        if any((b.callback_data or "").startswith("D:") for b in message.buttons):
            return message
    raise LookupError(f"no challenge menu for {user.first_name}")


def plays_of(plays, user: User) -> dict[int, int]:
    return {p.deal: p.points for p in plays if p.user_id == user.id}


async def drive(runner: BotRunner, api: FakeBotApi, group: Chat, user: User, cid: int,
                deal: int, *, limit: int | None = None) -> int:
    """Decide for the member's seat with ``engine.ai.choose_action`` through its buttons until
    the deal is recorded (or ``limit`` actions were made); returns the actions made."""
    acted = 0
    while True:
        app = runner.app
        if deal in plays_of(await app.bot_data.store.challenge_plays(cid), user):
            return acted
        if limit is not None and acted >= limit:
            return acted
        table = app.bot_data.tables.get(challenge_key(user.id))
        state = table.state if table is not None else None
        if table is None or table.phase != DEAL or state is None or state.phase not in ACTIVE \
                or 0 not in state.to_act or state.autoplay[0] \
                or (table.options.auto_pass and cannot_follow(state, 0)):  # the bot passes for it
            await asyncio.sleep(0.02)
            continue
        drawn = f":{table.token}:{state.version}:"
        await api.wait_for(lambda drawn=drawn: any(drawn in (b.callback_data or "")
                                                   for b in hand_message(api, user).buttons), 10)
        players = Players(api, group, [user])
        players.state = state
        await players.act(choose_action(state.view(0)))
        acted += 1


async def press(api: FakeBotApi, user: User, message: FakeMessage, data: str):
    return await api.wait_settled(api.press(user, message, data), 10)


async def stored_deals(store, user: User) -> list[tuple[int, DealState, int]]:
    """The member's challenge deals as the deals table holds them (id, final state, finished
    at), read directly: a source independent of the challenge's own records."""
    rows = await store._backend._db.execute_fetchall(
        "SELECT id, state, finished_at FROM deals WHERE table_key = ? AND status = 'cancelled'"
        " ORDER BY id", (challenge_key(user.id),))
    return [(row[0], DealState.from_json(row[1]), row[2]) for row in rows]


def ranking(results: dict[str, list[tuple[int, bool, int]]]) -> list[tuple[str, int, int]]:
    """This test's own board: per member (name → per deal (points, landlord won, finished
    at)), matchpoints 2 per lower and 1 per equal result on each deal, ranked by matchpoints,
    then landlord wins, then the earlier last finish; returns (name, place, matchpoints)."""
    names = list(results)
    totals = dict.fromkeys(names, 0)
    for deal in range(2):
        for a in names:
            mine = results[a][deal][0]
            for b in names:
                if b != a:
                    other = results[b][deal][0]
                    totals[a] += 2 if other < mine else 1 if other == mine else 0
    key = {n: (-totals[n], -sum(w for _, w, _ in results[n]), max(f for _, _, f in results[n]))
           for n in names}
    ordered = sorted(names, key=lambda n: key[n])
    board, place = [], 0
    for i, name in enumerate(ordered):
        if i == 0 or key[name] != key[ordered[i - 1]]:
            place = i + 1
        board.append((name, place, totals[name]))
    return board


def replayed(deal: dict, stored: DealState) -> DealState:
    """The stored deal's history applied to the cards the referee printed."""
    state = new_deal(stored.rules, first_bidder=deal["first_bidder"], hands=deal["hand_cards"],
                     kitty=deal["kitty_cards"])
    history = list(stored.history)
    while history:
        action: Action = history.pop(0)
        state = apply(state, action)
        if action.kind == "timeout":
            history.pop(0)  # its resolution, applied with it
    return state


async def test_three_members_play_a_two_deal_challenge(fake_api: FakeBotApi,
                                                       running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    app.bot_data.game.challenges.board_interval = 0.0
    ann, bob, cy, dan = (api.new_user(n) for n in ("Ann", "Bob", "Cy", "Dan"))
    group = api.new_group("Cards")
    api.make_admin(group, ann)
    for user in (ann, bob, cy, dan):
        api.open_private_chat(user)
    await store.update_group_settings(group.id, play_timeout=5, bid_timeout=5)

    # Bad input first: a non-admin, malformed numbers, a private chat. Nothing opens.
    for who, text, key in ((bob, "/challenge", "challenge.admins_only"),
                           (ann, "/challenge 2 x", None), (ann, "/challenge 13", None),
                           (ann, "/challenge 2 1 100 5", None), (ann, "/challenge ²", None)):
        api.send_text(who, group, text)
        reply = await api.wait_for("sendMessage", chat_id=group)
        assert reply.params["text"] == (t(key, LANG) if key else t(
            "challenge.usage", LANG, deals_low=1, deals_high=12, days=7, fee="1,000,000"))
    api.send_text(ann, ann, "/challenge")
    reply = await api.wait_for("sendMessage", chat_id=ann)
    assert reply.params["text"] == t("challenge.private", LANG)
    assert await store.open_challenges() == []

    api.send_text(ann, group, f"/challenge 2 1 {FEE}")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)
                                   if m.photo))
    (record,) = await store.open_challenges()
    cid = record.challenge_id
    announced = enter_message(api, group)
    assert announced.photo
    published = re.search(r"\b[0-9a-f]{64}\b", announced.caption)
    assert published and published[0] == record.seed_hash
    assert record.seed not in announced.caption
    api.send_text(ann, group, "/challenge")
    reply = await api.wait_for("sendMessage", chat_id=group)
    assert reply.params["text"] == t("challenge.refused_challenge_open", LANG)

    for user in (ann, bob, cy):
        answer = await press(api, user, announced, challenge_callback(cid, "enter"))
        assert answer.params["text"] == t("challenge.pop_welcome", LANG)
    assert [await store.balance(u.id) for u in (ann, bob, cy)] == [900, 900, 900]
    ledger = await store.challenge_ledger(cid)
    # Entering twice is refused; nothing changes.
    answer = await press(api, ann, enter_message(api, group), challenge_callback(cid, "enter"))
    assert answer.params["text"] == t("challenge.pop_entered", LANG)
    assert await store.balance(ann.id) == 900 and await store.challenge_ledger(cid) == ledger
    menu = menu_message(api, ann)
    assert [b.text for b in menu.buttons] == [t("challenge.btn_play", LANG, deal=d)
                                            for d in (1, 2)]

    # Ann plays both deals.
    for deal in (1, 2):
        answer = await press(api, ann, menu_message(api, ann), challenge_callback(cid, "play",
                                                                                  deal))
        assert answer.params.get("text") is None
        await drive(running_bot, api, group, ann, cid, deal)
    # Replaying a deal is refused; no deal is dealt.
    deals_before = len(await stored_deals(store, ann))
    answer = await press(api, ann, menu_message(api, ann), challenge_callback(cid, "play", 1))
    assert answer.params["text"] == t("challenge.pop_played", LANG, deal=1)
    assert app.bot_data.tables.get(challenge_key(ann.id)).phase != DEAL
    assert len(await stored_deals(store, ann)) == deals_before

    # Bob plays deal 1: his result shows how Ann did on it; then deal 2 across a restart.
    await press(api, bob, menu_message(api, bob), challenge_callback(cid, "play", 1))
    await drive(running_bot, api, group, bob, cid, 1)
    result = await api.wait_for(lambda: next((m for m in reversed(api.messages_in(bob))
                                              if m.content.startswith("🏁")), None))
    ann_points = plays_of(await store.challenge_plays(cid), ann)[1]
    assert f"Ann: {points_text(ann_points, LANG)}" in result.content
    await press(api, bob, menu_message(api, bob), challenge_callback(cid, "play", 2))
    await drive(running_bot, api, group, bob, cid, 2, limit=1)
    running = app.bot_data.tables.get(challenge_key(bob.id))
    before = running.progress.deal_id, running.state.history
    app = await running_bot.restart()
    app.bot_data.game.challenges.board_interval = 0.0
    store = app.bot_data.store
    resumed = app.bot_data.tables.get(challenge_key(bob.id))
    assert resumed is not None and resumed.phase == DEAL and resumed.progress.deal_id == before[0]
    assert resumed.state.history[:len(before[1])] == before[1]  # resumed, not dealt again
    assert app.job_queue.get_jobs_by_name(job_name(challenge_driver.CLOSE, f"challenge:{cid}"))
    await drive(running_bot, api, group, bob, cid, 2)

    # Cy plays deal 1; looking at deal 2 before playing it is refused, nothing is sent.
    await press(api, cy, menu_message(api, cy), challenge_callback(cid, "play", 1))
    await drive(running_bot, api, group, cy, cid, 1)
    viewed = t("challenge.btn_view", LANG, deal=1)
    await api.wait_for(lambda: any(b.text == viewed for b in menu_message(api, cy).buttons)
                       and any(m.content.startswith("🏁") for m in api.messages_in(cy)), 10)
    await app.bot_data.outlet.caught_up()
    sent = len(api.messages_in(cy))
    answer = await press(api, cy, menu_message(api, cy), challenge_callback(cid, "view", 2))
    assert answer.params["text"] == t("challenge.pop_unplayed", LANG, deal=2)
    answer = await press(api, dan, announced, challenge_callback(cid, "view", 1))
    assert answer.params["text"] == t("challenge.pop_not_entered", LANG)
    answer = await press(api, cy, menu_message(api, cy), "D:1:play:99")
    assert answer.params["text"] == t("pop.invalid", LANG)
    await asyncio.sleep(0.1)
    assert len(api.messages_in(cy)) == sent
    # A played deal can be looked at: Ann's and Bob's results on it.
    await press(api, cy, menu_message(api, cy), challenge_callback(cid, "view", 1))
    compared = await api.wait_for(lambda: len(api.messages_in(cy)) > sent
                                  and api.messages_in(cy)[-1])
    assert "Ann:" in compared.content and "Bob:" in compared.content
    # Cy lets deal 2 time out: the seat goes on auto-play (RULES.md §9) and the deal counts.
    await press(api, cy, menu_message(api, cy), challenge_callback(cid, "play", 2))
    for _ in range(300):
        if 2 in plays_of(await store.challenge_plays(cid), cy):
            break
        await asyncio.sleep(0.05)
    cy_deals = await stored_deals(store, cy)
    assert cy_deals[1][1].autoplay[0] and any(a.kind == "timeout" and a.seat == 0
                                                 for a in cy_deals[1][1].history)

    # The board and, at the close, the final ranking against this test's own matchpoints.
    results = {}
    for user in (ann, bob, cy):
        deals = await stored_deals(store, user)
        assert len(deals) == 2
        results[user.first_name] = [
            (s.result.points[0], s.result.landlord == 0 and s.result.winner == "landlord", f)
            for _, s, f in deals]
    expected = ranking(results)
    lines = [t("challenge.line", LANG, place=place, name=name, mp=mp_text(mp, LANG), played=2,
               total=2) for name, place, mp in expected]
    await app.bot_data.outlet.caught_up()
    board = await api.wait_for(lambda: "\n".join(lines) in enter_message(api, group).caption
                               and enter_message(api, group), 10)
    assert board.photo

    assert await app.bot_data.game.challenges.close(cid) is True
    final = await api.wait_for(lambda: next((m for m in api.messages_in(group)
                                             if m.content.startswith("🏁")), None), 10)
    paid = prizes(3 * FEE, [place for _, place, _ in expected])
    for (name, place, mp), prize in zip(expected, paid, strict=True):
        line = t("challenge.final_line", LANG, place=place_text(place, LANG), name=name,
                 mp=mp_text(mp, LANG), played=2, total=2) + t("challenge.prize", LANG,
                                                              beans=prize)
        assert line in final.content
    balances = {u.first_name: await store.balance(u.id) for u in (ann, bob, cy)}
    assert balances == {name: 900 + prize for (name, _, _), prize in zip(expected, paid,
                                                                         strict=True)}
    # The prize is paid once: closing again pays nothing.
    assert await app.bot_data.game.challenges.close(cid) is False
    assert {u.first_name: await store.balance(u.id) for u in (ann, bob, cy)} == balances
    ledger = await store.challenge_ledger(cid)
    assert sum(r.amount for r in ledger) == 0 and len(ledger) == 3 + sum(1 for p in paid if p)
    assert (await store.totals()).conserved
    # The closed message has no Enter button any more; its board carries the final mark.
    assert not enter_message_or_none(api, group)
    await app.bot_data.outlet.caught_up()
    closed = api.message(group, announced.message_id)
    final_board = BoardScene(title(cid, LANG), tuple(BoardRow(place, name, mp, 2, 2)
                                                     for name, place, mp in expected),
                             picture_labels(LANG), mark=picture_labels(LANG).final)
    assert api.file(closed.photo) == render_challenge_board(final_board)
    # entering now is refused
    answer = await press(api, dan, announced, challenge_callback(cid, "enter"))
    assert answer.params["text"] == t("challenge.pop_closed", LANG)
    assert await store.get_player(dan.id) is None  # nothing was taken, nobody was made

    # The revealed seed, fed to the referee, gives the published hash and the dealt cards.
    command = final.content.strip().splitlines()[-1]
    request = re.fullmatch(r"echo '(.*)' \| python -m engine\.judge", command)
    assert request, command
    out = subprocess.run([sys.executable, "-m", "engine.judge"], input=request[1] + "\n",
                         capture_output=True, text=True, check=True).stdout
    verdict = json.loads(out)
    assert verdict["sha256"] == published[0]
    assert json.loads(request[1])["seed"] in final.content
    for user in (ann, bob, cy):
        for number, (_, stored, _) in enumerate(await stored_deals(store, user), start=1):
            deal = verdict["deals"][number - 1]
            again = replayed(deal, stored)
            assert again.history == stored.history and again.result == stored.result
            assert again.first_bidder == (number - 1) % 3


def enter_message_or_none(api: FakeBotApi, group: Chat) -> FakeMessage | None:
    try:
        return enter_message(api, group)
    except LookupError:
        return None


async def test_one_challenge_deal_at_a_time_and_a_group_table_meanwhile(
        fake_api: FakeBotApi, running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    ann, bob = api.new_user("Ann"), api.new_user("Bob")
    first, second = api.new_group("First"), api.new_group("Second")
    for user in (ann, bob):
        api.open_private_chat(user)
    await store.update_group_settings(second.id, challenge_open="anyone")
    api.make_admin(first, ann)
    cids = []
    for group in (first, second):
        api.send_text(ann, group, "/challenge 1")
        await api.wait_for(lambda group=group: any(m.buttons for m in api.messages_in(group)))
        (record,) = [r for r in await store.open_challenges() if r.chat_id == group.id]
        cids.append(record.challenge_id)
        answer = await press(api, ann, enter_message(api, group),
                             challenge_callback(record.challenge_id, "enter"))
        assert answer.params["text"] == t("challenge.pop_welcome", LANG)
    answer = await press(api, ann, menu_message(api, ann), challenge_callback(cids[0], "play", 1))
    assert answer.params.get("text") is None
    table = app.bot_data.tables.get(challenge_key(ann.id))
    assert table is not None and table.phase == DEAL and table.competition.challenge_id == cids[0]
    # A second challenge deal (another group's) waits until this one is over.
    answer = await press(api, ann, menu_message(api, ann), challenge_callback(cids[1], "play", 1))
    assert answer.params["text"] == t("challenge.pop_busy", LANG, deal=1,
                                      title=t("challenge.title", LANG, id=cids[0]))
    assert app.bot_data.tables.get(challenge_key(ann.id)) is table
    # The same deal again: it is running already.
    answer = await press(api, ann, menu_message(api, ann), challenge_callback(cids[0], "play", 1))
    assert answer.params["text"] == t("challenge.pop_playing", LANG, deal=1)
    # Meanwhile Ann may sit at a group's table.
    api.send_text(ann, second, "/newgame")
    join = t("btn.join", LANG)
    lobby = await api.wait_for(lambda: next((m for m in api.messages_in(second)
                                             if any(b.text == join for b in m.buttons)), None))
    assert app.bot_data.tables.table_of(ann.id).key == f"{second.id}:0"
    await press(api, bob, lobby, next(b.callback_data for b in lobby.buttons if b.text == join))
    assert app.bot_data.tables.get(challenge_key(ann.id)) is table
    # The challenge's own window closing stops the running deal: it does not count.
    assert await app.bot_data.game.challenges.close(cids[0]) is True
    assert app.bot_data.tables.get(challenge_key(ann.id)) is None
    assert await store.challenge_plays(cids[0]) == []
    told = await api.wait_for("sendMessage", chat_id=ann, since=0,
                              where=lambda c: c.params.get("text") == t("challenge.stopped",
                                                                        LANG))
    assert told.ok
    # Now the other group's deal may be played.
    answer = await press(api, ann, menu_message(api, ann), challenge_callback(cids[1], "play", 1))
    assert answer.params.get("text") is None


async def test_the_board_is_drawn_at_most_once_a_minute(fake_api: FakeBotApi,
                                                       running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    users = [api.new_user(n) for n in ("Ann", "Bob", "Cy")]
    group = api.new_group("Cards")
    api.make_admin(group, users[0])
    for user in users:
        api.open_private_chat(user)
    api.send_text(users[0], group, "/challenge 2")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.open_challenges()
    cid = record.challenge_id
    message = enter_message(api, group)
    start = api.mark()
    for user in users:
        await press(api, user, message, challenge_callback(cid, "enter"))
    await app.bot_data.outlet.caught_up()
    edits = [c for c in api.calls[start:] if c.method.startswith("edit")
             and c.params.get("message_id") == message.message_id]
    assert len(edits) == 1  # the first entry's board; the next ones wait for the minute
    assert "Ann" in call_caption(edits[0]) and "Cy" not in call_caption(edits[0])
    (job,) = app.job_queue.get_jobs_by_name(job_name(challenge_driver.BOARD,
                                                     f"challenge:{cid}"))
    app.bot_data.game.challenges.board_interval = 0.0  # the minute is up
    await job.run(app)
    await app.bot_data.outlet.caught_up()
    shown = enter_message(api, group).caption
    assert all(t("challenge.line_unplaced", LANG, name=u.first_name, played=0, total=2)
               in shown for u in users)  # nobody played: no place yet


def call_caption(call) -> str:
    media = call.params.get("media")
    if isinstance(media, dict):
        return media.get("caption") or ""
    return call.params.get("caption") or call.params.get("text") or ""


async def test_a_daily_challenge_opens_once_a_day_where_the_group_wants_it(
        fake_api: FakeBotApi, running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    ann = api.new_user("Ann")
    group, quiet = api.new_group("Daily"), api.new_group("Quiet")
    api.make_admin(group, ann)
    api.send_text(ann, group, "/settings daily_challenge on")
    await api.wait_for("sendMessage", chat_id=group)
    assert (await store.get_group_settings(group.id))["daily_challenge"] is True
    (job,) = app.job_queue.get_jobs_by_name("daily_challenge")
    await job.run(app)
    await job.run(app)
    (record,) = await store.open_challenges()
    assert record.chat_id == group.id and record.opener_id == 0 and record.daily
    assert record.options["deals"] == 6 and record.entry_fee == 0
    assert enter_message(api, group).photo
    assert api.messages_in(quiet) == []


async def test_a_final_ranking_that_failed_to_send_is_posted_after_a_restart(
        fake_api: FakeBotApi, running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    ann = api.new_user("Ann")
    group = api.new_group("Cards")
    api.make_admin(group, ann)
    api.open_private_chat(ann)
    api.send_text(ann, group, "/challenge 1 1 50")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.open_challenges()
    await press(api, ann, enter_message(api, group), challenge_callback(record.challenge_id,
                                                                        "enter"))
    assert await store.balance(ann.id) == 950
    api.fail_next("sendMessage", 400, chat=group)
    assert await app.bot_data.game.challenges.close(record.challenge_id)
    await app.bot_data.outlet.caught_up()
    assert not (await store.get_challenge(record.challenge_id)).announced
    assert await store.balance(ann.id) == 1000  # nobody played: the fee came back, once
    app = await running_bot.restart()
    final = await api.wait_for(lambda: next((m for m in api.messages_in(group)
                                             if m.content.startswith("🏁")), None), 10)
    assert t("challenge.refunded", LANG) in final.content
    assert (await app.bot_data.store.get_challenge(record.challenge_id)).announced
    assert await app.bot_data.store.balance(ann.id) == 1000


async def test_an_admin_cancels_a_challenge_and_every_fee_comes_back_once(
        fake_api: FakeBotApi, running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    ann, bob, cy, dan = (api.new_user(n) for n in ("Ann", "Bob", "Cy", "Dan"))
    group = api.new_group("Cards")
    api.make_admin(group, ann)
    api.make_admin(group, dan)
    for user in (ann, bob, cy, dan):
        api.open_private_chat(user)
    api.send_text(dan, group, "/challenge cancel")  # nothing open yet
    reply = await api.wait_for("sendMessage", chat_id=group)
    assert reply.params["text"] == t("challenge.cancel_none", LANG)
    api.send_text(ann, group, f"/challenge 2 1 {FEE}")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group) if m.photo))
    (record,) = await store.open_challenges()
    cid = record.challenge_id
    announced = enter_message(api, group)
    for user in (bob, cy):
        await press(api, user, announced, challenge_callback(cid, "enter"))
    # Bob is in the middle of deal 1 when the challenge is cancelled.
    await press(api, bob, menu_message(api, bob), challenge_callback(cid, "play", 1))
    await drive(running_bot, api, group, bob, cid, 1, limit=1)
    assert app.bot_data.tables.get(challenge_key(bob.id)).phase == DEAL
    assert [await store.balance(u.id) for u in (bob, cy)] == [1000 - FEE] * 2

    # A member who neither opened it nor administers the group may not cancel it.
    api.send_text(cy, group, "/challenge cancel")
    reply = await api.wait_for("sendMessage", chat_id=group)
    assert reply.params["text"] == t("challenge.cancel_admins", LANG)
    assert (await store.get_challenge(cid)).status == "open"

    api.send_anonymously(group, "/challenge 取消")  # an anonymous admin, in Chinese
    post = await api.wait_for(lambda: next((m for m in api.messages_in(group)
                                            if m.content.startswith("🛑")), None), 10)
    assert post.content.splitlines()[:2] == [
        t("challenge.cancelled", LANG, title=title(cid, LANG), name="Cards"),
        t("challenge.cancel_refunded", LANG, n=2, pool=2 * FEE)]
    assert t("challenge.seed", LANG, seed=record.seed) in post.content
    assert [await store.balance(u.id) for u in (bob, cy)] == [1000, 1000]
    ledger = await store.challenge_ledger(cid)
    assert sorted(r.amount for r in ledger) == [-FEE, -FEE, FEE, FEE] and sum(
        r.amount for r in ledger) == 0
    assert (await store.totals()).conserved
    assert app.bot_data.tables.get(challenge_key(bob.id)) is None  # the deal was stopped
    assert any(m.content == t("challenge.cancel_stopped", LANG) for m in api.messages_in(bob))
    await app.bot_data.outlet.caught_up()
    closed = api.message(group, announced.message_id)
    assert closed.buttons == [] and t("challenge.cancelled_note", LANG) in closed.caption
    assert t("challenge.hash_revealed", LANG, hash=record.seed_hash) in closed.caption
    assert t("challenge.hash", LANG, hash=record.seed_hash) not in closed.caption
    split = " / ".join(f"{p}%" for p in PRIZE_SPLIT)  # no prize pool once cancelled
    assert t("challenge.fee", LANG, fee=FEE, pool=2 * FEE, split=split) not in closed.caption
    # Nothing more happens: cancelling again, entering, closing, a restart.
    api.send_text(dan, group, "/challenge cancel")
    reply = await api.wait_for("sendMessage", chat_id=group)
    assert reply.params["text"] == t("challenge.cancel_none", LANG)
    answer = await press(api, dan, announced, challenge_callback(cid, "enter"))
    assert answer.params["text"] == t("challenge.pop_closed", LANG)
    assert await app.bot_data.game.challenges.close(cid) is False
    app = await running_bot.restart()
    assert await app.bot_data.store.challenge_ledger(cid) == ledger
    assert [await app.bot_data.store.balance(u.id) for u in (bob, cy)] == [1000, 1000]
    assert sum(m.content.startswith("🛑") for m in api.messages_in(group)) == 1


async def test_a_challenge_follows_its_group_into_the_supergroup(fake_api: FakeBotApi,
                                                                 running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    ann = api.new_user("Ann")
    family = api.new_group("Family", type="group")
    api.make_admin(family, ann)
    api.open_private_chat(ann)
    api.send_text(ann, family, "/challenge 1")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(family)))
    (record,) = await store.open_challenges()
    supergroup = api.migrate_to_supergroup(family, by=ann)
    board = await api.wait_for(lambda: next((m for m in api.messages_in(supergroup)
                                             if m.buttons), None), 10)
    assert board.photo and record.seed_hash in board.caption
    answer = await press(api, ann, board, challenge_callback(record.challenge_id, "enter"))
    assert answer.params["text"] == t("challenge.pop_welcome", LANG)
    assert (await store.get_challenge(record.challenge_id)).chat_id == supergroup.id


async def test_a_forged_enter_from_another_chat_and_practice_beside_a_challenge_deal(
        fake_api: FakeBotApi, running_bot: BotRunner):
    """Never trust callback data: an Enter naming another group's challenge (the ids count up)
    is refused as an invalid button and takes no fee; a member playing a challenge deal cannot
    open a practice deal beside it in the same private chat, nor the other way round."""
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    ann, zed = api.new_user("Ann"), api.new_user("Zed")
    cards, other = api.new_group("Cards"), api.new_group("Other")
    for user in (ann, zed):
        api.open_private_chat(user)
    api.make_admin(cards, ann)
    api.make_admin(other, zed)
    api.send_text(ann, cards, f"/challenge 1 0 {FEE}")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(cards)))
    (record,) = await store.open_challenges()
    cid = record.challenge_id
    api.send_text(zed, other, "/newgame")
    lobby = await api.wait_for(lambda: next((m for m in api.messages_in(other) if m.buttons),
                                            None))
    answer = await press(api, zed, lobby, challenge_callback(cid, "enter"))
    assert answer.params["text"] == t("pop.invalid", LANG)
    assert await store.challenge_entries(cid) == [] and await store.balance(zed.id) == 1000

    answer = await press(api, ann, enter_message(api, cards), challenge_callback(cid, "enter"))
    assert answer.params["text"] == t("challenge.pop_welcome", LANG)
    answer = await press(api, ann, menu_message(api, ann), challenge_callback(cid, "play", 1))
    assert answer.params.get("text") is None
    api.send_text(ann, ann, "/practice")
    refused = await api.wait_for("sendMessage", chat_id=ann, since=0, where=lambda c: c.params.get(
        "text") == t("reply.practice_in_challenge", LANG))
    assert refused.ok and app.bot_data.tables.get(f"{ann.id}:0") is None
    # QA: /leave here said "You are not playing here ... it leaves a /practice deal"
    api.send_text(ann, ann, "/leave")
    where = t("challenge.notice_where", LANG, id=cid, deal=1)
    told = await api.wait_for("sendMessage", chat_id=ann, since=0, where=lambda c: c.params.get(
        "text") == t("reply.leave_challenge", LANG, where=where))
    assert told.ok and app.bot_data.tables.get(challenge_key(ann.id)).phase == "deal"
    await app.bot_data.game.challenges.close(cid)


async def test_a_challenge_deal_holds_no_beans_for_a_match_fee(
        fake_api: FakeBotApi, running_bot: BotRunner):
    """A challenge deal moves no beans, so it holds none: its player may sit at a match with
    an entry fee meanwhile and pay it at the Start (was refused "Still seated at a running
    deal, their beans are held")."""
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    ann, bob, cat = api.new_user("Ann"), api.new_user("Bob"), api.new_user("Cat")
    group = api.new_group("Club")
    for user in (ann, bob, cat):
        api.open_private_chat(user)
    api.make_admin(group, ann)
    api.send_text(ann, group, "/challenge")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.open_challenges()
    cid = record.challenge_id
    await press(api, ann, enter_message(api, group), challenge_callback(cid, "enter"))
    answer = await press(api, ann, menu_message(api, ann), challenge_callback(cid, "play", 1))
    assert answer.params.get("text") is None
    assert app.bot_data.tables.get(challenge_key(ann.id)).phase == DEAL
    assert await store.deal_hold(ann.id) is None
    before = await store.balance(ann.id)
    players = Players(api, api.new_group("Match night"), [ann, bob, cat])
    await players.command(ann, "/match 100")
    lobby = players.table_message()
    for user in (bob, cat):
        await players.click(user, lobby, t("btn.join", LANG))
    await players.click(ann, lobby, t("btn.start", LANG))
    (match,) = await store.running_matches()
    assert match.pool == 300
    assert [await store.balance(u.id) for u in (ann, bob, cat)] == [before - 100, 900, 900]
    assert app.bot_data.tables.get(challenge_key(ann.id)).phase == DEAL  # still playing it


async def test_a_final_ranking_cut_short_by_a_kill_reveals_the_seed_after_the_restart(
        fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch):
    """The bot dies during the final post, its request on its way (the posting claimed, the
    message never sent): after the restart the ranking is posted, its seed revealed, once.
    Before, the claim stayed and the seed was never revealed in the group."""
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    ann = api.new_user("Ann")
    group = api.new_group("Cut")
    api.make_admin(group, ann)
    api.open_private_chat(ann)
    api.send_text(ann, group, "/challenge 1 1 50")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.open_challenges()
    cid = record.challenge_id
    await press(api, ann, enter_message(api, group), challenge_callback(cid, "enter"))
    cut = asyncio.Event()

    async def dies(*args: object, **kwargs: object) -> None:  # the request never ends
        cut.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(outlet_send, "send_text", dies)
    assert await app.bot_data.game.challenges.close(cid)
    await asyncio.wait_for(cut.wait(), 10)
    assert (await store.get_challenge(cid)).announced  # claimed, on its way
    app.post_stop = None  # a kill: nothing flushed
    await running_bot.stop()
    monkeypatch.undo()

    def finals() -> list[FakeMessage]:
        return [m for m in api.messages_in(group) if record.seed in m.content]

    assert finals() == []
    app = await running_bot.restart()
    (final,) = await api.wait_for(lambda: finals() or None, 10)
    assert final.content.startswith("🏁")
    await app.bot_data.outlet.caught_up()
    assert (await app.bot_data.store.get_challenge(cid)).announced
    app = await running_bot.restart()  # posted and recorded: not again
    await app.bot_data.outlet.caught_up()
    await asyncio.sleep(0.3)
    assert len(finals()) == 1


async def test_a_challenge_pays_by_its_prize_table_once_and_a_bad_table_opens_nothing(
        fake_api: FakeBotApi, running_bot: BotRunner):
    """``/challenge 1 1 100 prizes=60,40``: the announcement shows the table, the close pays
    60 % and 40 % of the pool to the first two, once; a table that breaks a rule is refused
    with that rule and opens nothing."""
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    ann, bob, cy = (api.new_user(n) for n in ("Ann", "Bob", "Cy"))
    app.bot_data.game.challenges.board_interval = 0.0
    group = api.new_group("Two prizes")
    api.make_admin(group, ann)
    for user in (ann, bob, cy):
        api.open_private_chat(user)
    for bad, key, fields in (("/challenge 1 1 100 prizes=70,20", "prizes.bad_sum",
                              {"total": 90}),
                             ("/challenge prizes=20,80", "prizes.bad_order",
                              {"place": 2, "share": 80, "above": 20})):
        api.send_text(ann, group, bad)
        reply = await api.wait_for("sendMessage", chat_id=group)
        assert reply.params["text"] == t(key, LANG, **fields)
    assert await store.open_challenges() == []

    api.send_text(ann, group, f"/challenge 1 1 {FEE} prizes=60,40")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group) if m.photo))
    (record,) = await store.open_challenges()
    cid = record.challenge_id
    assert record.options["prizes"] == [60, 40]
    announced = enter_message(api, group)
    for user in (ann, bob, cy):
        await press(api, user, announced, challenge_callback(cid, "enter"))
    shown = t("challenge.fee", LANG, fee=FEE, pool=3 * FEE, split="60% / 40%")
    await app.bot_data.outlet.caught_up()
    await api.wait_for(lambda: shown in enter_message(api, group).caption, 10)
    for user in (ann, bob, cy):
        await press(api, user, menu_message(api, user), challenge_callback(cid, "play", 1))
        await drive(running_bot, api, group, user, cid, 1)
    # this test's own places: matchpoints of the one deal, ties on the landlord's wins, then
    # the earlier finish
    results = {}
    for user in (ann, bob, cy):
        ((_, state, finished),) = await stored_deals(store, user)
        won = state.result.landlord == 0 and state.result.winner == "landlord"
        results[user.first_name] = [(state.result.points[0], won, finished)]
    mine = {name: r[0][0] for name, r in results.items()}
    key = {name: (-sum(2 if mine[o] < mine[name] else 1 if mine[o] == mine[name] else 0
                       for o in mine if o != name), -results[name][0][1], results[name][0][2])
           for name in mine}
    places = {name: 1 + sum(k < key[name] for k in key.values()) for name in key}
    paid = prizes(3 * FEE, [places[n] for n in ("Ann", "Bob", "Cy")], (60, 40))
    assert sum(paid) == 3 * FEE

    assert await app.bot_data.game.challenges.close(cid) is True
    balances = [await store.balance(u.id) for u in (ann, bob, cy)]
    assert balances == [900 + p for p in paid]
    assert await app.bot_data.game.challenges.close(cid) is False  # paid once
    assert [await store.balance(u.id) for u in (ann, bob, cy)] == balances
    ledger = await store.challenge_ledger(cid)
    assert sum(r.amount for r in ledger) == 0
    assert sorted(r.amount for r in ledger if r.amount > 0) == sorted(p for p in paid if p)
    assert (await store.totals()).conserved
