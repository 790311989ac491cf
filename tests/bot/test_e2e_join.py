"""End to end: a Join is answered before any request it causes, and welcomed after (issue 16: a
press is answered first; the welcome waits for the token's budget). A player whose private chat
is closed to the bot (never started, or blocked) is unseated again and told in the group; a
Start pressed while a welcome is on its way deals only once the welcome told whether every
player can be reached."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.core.i18n import t
from bot.core.table import StoredLobby
from bot.telegram.outlet import send
from tests.bot.flow_helpers import HAND_PREFIX, LANG, Players, button_data, hand_message
from tests.conftest import BotRunner
from tests.fakebot import Call, Chat, FakeBotApi, FakeMessage, User


def _hands_sent(api: FakeBotApi, user: User) -> list[Call]:
    return [call for method in ("sendMessage", "sendPhoto")
            for call in api.calls_to(method, chat_id=user.id)
            if str(call.params.get("text") or call.params.get("caption") or "")
            .startswith(HAND_PREFIX)]


async def _ann_bob_kim(api: FakeBotApi, title: str, seated: str
                       ) -> tuple[Chat, tuple[User, User, User], FakeMessage]:
    """A group ``title`` whose lobby Ann opened, with Ann, Bob and Kim in private chat with the
    bot; the lobby's message once the players named in ``seated`` (Bob, Kim) joined."""
    group = api.new_group(title)
    users = ann, bob, kim = tuple(api.new_user(n) for n in ("Ann", "Bob", "Kim"))
    lobby = await Players(api, group, list(users)).open_table(
        ann, [user for user in (bob, kim) if user.first_name in seated])
    return group, (ann, bob, kim), lobby


async def _one_batch(api: FakeBotApi, lobby: FakeMessage, *presses: tuple[User, str]
                     ) -> list[Call]:
    """Each ``(user, button text)`` pressed on ``lobby`` at once (one batch of updates for the
    bot): their answers, in order, once each press is settled."""
    queries = [api.click(user, lobby, t(button, LANG)) for user, button in presses]
    return list(await asyncio.gather(*(api.wait_settled(q) for q in queries)))


def _hold_welcomes(runner: BotRunner, user: User) -> asyncio.Event:
    """Hold the bot's private text messages to ``user`` on their way (as a saturated token
    would) until the returned event is set; they go through the fake Bot API then."""
    outlet = runner.app.bot_data.game.ctx.outlet
    send = outlet.send
    gate = asyncio.Event()

    async def held(chat_id: int, *args: Any, **kwargs: Any) -> int | None:
        if chat_id == user.id:
            await gate.wait()
        return await send(chat_id, *args, **kwargs)

    outlet.send = held  # type: ignore[method-assign]
    return gate


async def test_a_join_is_answered_before_its_welcome_is_sent(fake_api: FakeBotApi,
                                                             running_bot: BotRunner):
    group = fake_api.new_group("Early birds")
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    players = Players(fake_api, group, [ann, bob])
    lobby = await players.open_table(ann, [])
    answer = await players.click(bob, lobby, t("btn.join", LANG))
    assert answer.params["text"] == t("pop.seating", LANG)  # the welcome tells if it can
    welcome = fake_api.calls_to("sendMessage", chat_id=bob.id)
    assert [call.params["text"] for call in welcome] == [
        t("hand.welcome", LANG, group="Early birds")]
    assert fake_api.calls.index(answer) < fake_api.calls.index(welcome[0])
    table = running_bot.app.bot_data.tables.table_of(bob.id)
    assert [(s.name, s.welcoming) for s in table.seats] == [("Ann", None), ("Bob", None)]
    stored = (await running_bot.app.bot_data.store.load_tables())[table.key]
    assert [seat.get("welcoming") for seat in stored["seats"]] == [None, None]
    await fake_api.wait_for(lambda: "2. Bob" in lobby.text)


@pytest.mark.parametrize("closed", ["never started", "blocked"])
async def test_a_joiner_the_bot_cannot_write_to_is_unseated_and_told(
    fake_api: FakeBotApi, running_bot: BotRunner, closed: str
):
    group = fake_api.new_group("Closed doors")
    ann, bob, kim = (fake_api.new_user(n) for n in ("Ann", "Bob", "Kim"))
    players = Players(fake_api, group, [ann, bob])
    lobby = await players.open_table(ann, [bob])
    if closed == "blocked":
        fake_api.open_private_chat(kim)
        fake_api.block_user(kim)
    answer = await players.click(kim, lobby, t("btn.join", LANG))
    assert answer.params["text"] == t("pop.seating", LANG)  # not "You are seated"
    welcome = fake_api.calls_to("sendMessage", chat_id=kim.id)
    assert [call.status for call in welcome] == [403]
    assert fake_api.calls.index(answer) < fake_api.calls.index(welcome[0])
    told = t("lobby.unreachable", LANG, name="Kim")
    assert told.count("Kim") == 2 and t("btn.open_private", LANG) in told
    await fake_api.wait_for("sendMessage", chat_id=group, since=0,
                            where=lambda call: call.params["text"] == told)
    await fake_api.wait_for(lambda: any(b.url for b in lobby.buttons) and "Kim" not in lobby.text)
    table = running_bot.app.bot_data.tables.table_of(ann.id)
    assert [s.name for s in table.seats] == ["Ann", "Bob"]
    assert running_bot.app.bot_data.tables.table_of(kim.id) is None
    stored = (await running_bot.app.bot_data.store.load_tables())[table.key]
    assert [seat["name"] for seat in stored["seats"]] == ["Ann", "Bob"]
    answer = await players.click(ann, lobby, t("btn.start", LANG))
    assert answer.params["text"] == t("pop.need_three", LANG)  # nobody is dealt in for Kim

    # Kim opens the private chat through the lobby's link: seated, and dealt in.
    fake_api.unblock_user(kim)
    link = next(b for b in lobby.buttons if b.url)
    token = button_data(lobby, label=t("btn.join", LANG)).split(":")[1]
    assert link.url.endswith(f"?start=join_{token}")
    fake_api.send_text(kim, kim, f"/start join_{token}")
    reply = await fake_api.wait_for("sendMessage", chat_id=kim)
    assert reply.params["text"] == t("reply.start_joined", LANG, group="Closed doors")
    await fake_api.wait_for(lambda: "3. Kim" in lobby.text)
    answer = await players.click(ann, lobby, t("btn.start", LANG))
    assert answer.params["text"] == t("lobby.starting", LANG)
    for user in (ann, bob, kim):
        assert hand_message(fake_api, user).content.startswith(t("hand.title", LANG, n=17))


async def test_a_start_waits_for_a_welcome_on_its_way_and_deals_nobody_it_cannot_reach(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    group = fake_api.new_group("Slow post")
    ann, bob, kim = (fake_api.new_user(n) for n in ("Ann", "Bob", "Kim"))
    players = Players(fake_api, group, [ann, bob])
    lobby = await players.open_table(ann, [bob])
    gate = _hold_welcomes(running_bot, kim)
    joined = fake_api.click(kim, lobby, t("btn.join", LANG))
    answer = await fake_api.wait_answer(joined)
    assert answer.params["text"] == t("pop.seating", LANG)
    tables = running_bot.app.bot_data.tables
    await fake_api.wait_for(lambda: tables.table_of(kim.id) is not None)
    assert "Kim" not in lobby.text  # not shown seated before the welcome reached Kim
    start = fake_api.click(ann, lobby, t("btn.start", LANG))
    answer = await fake_api.wait_answer(start)  # at once, the welcome still on its way
    assert answer.params["text"] == t("lobby.starting", LANG)
    await asyncio.sleep(0.5)
    table = running_bot.app.bot_data.tables.table_of(ann.id)
    assert table.phase == "lobby" and table.seats[2].welcoming is not None
    assert _hands_sent(fake_api, ann) == [] and _hands_sent(fake_api, bob) == []

    gate.set()  # Kim's private chat is closed (never started): the deal does not start
    for text in (t("lobby.unreachable", LANG, name="Kim"), t("pop.need_three", LANG)):
        await fake_api.wait_for("sendMessage", chat_id=group, since=0,
                                where=lambda call, text=text: call.params["text"] == text)
    await fake_api.wait_settled(start)
    assert table.phase == "lobby" and [s.name for s in table.seats] == ["Ann", "Bob"]
    assert _hands_sent(fake_api, ann) == [] and _hands_sent(fake_api, bob) == []
    assert [call.status for call in fake_api.calls_to("sendMessage", chat_id=kim.id)] == [403]


async def test_a_start_deals_once_the_welcome_on_its_way_was_sent(fake_api: FakeBotApi,
                                                                   running_bot: BotRunner):
    group = fake_api.new_group("Patient table")
    ann, bob, kim = (fake_api.new_user(n) for n in ("Ann", "Bob", "Kim"))
    players = Players(fake_api, group, [ann, bob, kim])
    lobby = await players.open_table(ann, [bob])  # opens all three private chats
    gate = _hold_welcomes(running_bot, kim)
    joined = fake_api.click(kim, lobby, t("btn.join", LANG))
    assert (await fake_api.wait_answer(joined)).params["text"] == t("pop.seating", LANG)
    start = fake_api.click(ann, lobby, t("btn.start", LANG))
    assert (await fake_api.wait_answer(start)).params["text"] == t("lobby.starting", LANG)
    await asyncio.sleep(0.5)
    assert _hands_sent(fake_api, ann) == []
    gate.set()
    await fake_api.wait_settled(start)
    table = running_bot.app.bot_data.tables.table_of(kim.id)
    assert table.phase == "deal" and [s.name for s in table.seats] == ["Ann", "Bob", "Kim"]
    for user in (ann, bob, kim):
        assert hand_message(fake_api, user).content.startswith(t("hand.title", LANG, n=17))
    welcome = fake_api.calls_to("sendMessage", chat_id=kim.id)[0]
    assert welcome.params["text"] == t("hand.welcome", LANG, group="Patient table")
    assert fake_api.calls.index(welcome) < fake_api.calls.index(_hands_sent(fake_api, kim)[0])


async def test_two_joins_for_the_last_seat_at_once_seat_one_and_refuse_the_other(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Both answered before the lock, on the same copy of the table: the first claims the last
    seat, the second is told the table is full (not "seated", then nothing)."""
    group = fake_api.new_group("Last chair")
    ann, bob, cat, dan = (fake_api.new_user(n) for n in ("Ann", "Bob", "Cat", "Dan"))
    players = Players(fake_api, group, [ann, bob, cat, dan])
    lobby = await players.open_table(ann, [bob])
    joins = [fake_api.click(user, lobby, t("btn.join", LANG)) for user in (cat, dan)]
    answers = await asyncio.gather(*(fake_api.wait_settled(q) for q in joins))
    assert sorted(a.params["text"] for a in answers) == sorted(
        [t("pop.seating", LANG), t("pop.table_full", LANG)])
    table = running_bot.app.bot_data.tables.table_of(ann.id)
    assert len(table.seats) == 3
    seated = table.seats[2].name
    assert answers[("Cat", "Dan").index(seated)].params["text"] == t("pop.seating", LANG)
    notes = [c.params["text"] for c in fake_api.calls_to("sendMessage", chat_id=group.id)]
    assert not any("not seated" in text for text in notes)


async def test_a_start_in_the_same_batch_as_the_third_join_counts_its_seat_and_deals(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """The third Join and the opener's Start reach the bot in one batch of updates: the Join is
    answered as seated, so the Start counts its seat (it is claimed before the Join reads the
    player's beans), is answered as starting and deals all three. Before, a Start decided while
    the Join read the beans was answered "Three seats must be filled" after "You are seated"."""
    group, (ann, bob, kim), lobby = await _ann_bob_kim(fake_api, "One batch", "Bob")
    joined, started = await _one_batch(fake_api, lobby, (kim, "btn.join"), (ann, "btn.start"))
    assert joined.params["text"] == t("pop.seating", LANG)
    assert started.params["text"] == t("lobby.starting", LANG)
    for user in (ann, bob, kim):
        await fake_api.wait_for(lambda user=user: _hands_sent(fake_api, user), 10)


async def test_a_join_and_an_add_bot_for_the_last_seat_in_one_batch_answer_what_happened(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Kim's Join, then the opener's Add bot, in one batch of updates, for the last seat: the
    Join is answered as seated only if Kim sits (the bot took the seat while Kim's beans were
    read: the Join is refused as the table is full), and a bot is added only if it was said."""
    group, (ann, bob, kim), lobby = await _ann_bob_kim(fake_api, "Last seat", "Bob")
    joined, added = await _one_batch(fake_api, lobby, (kim, "btn.join"), (ann, "btn.add_bot"))
    await fake_api.wait_for(lambda: "3. " in lobby.text, 10)
    table = running_bot.app.bot_data.tables.table_of(ann.id)
    names = [seat.name for seat in table.seats]
    assert (joined.params["text"] == t("pop.seating", LANG)) == ("Kim" in names), names
    assert (added.params["text"] == t("pop.bot_added", LANG)) == any(
        seat.is_bot for seat in table.seats), names
    notes = [c.params["text"] for c in fake_api.calls_to("sendMessage", chat_id=group.id)]
    assert not any("not seated" in text for text in notes), notes


async def test_a_join_while_the_last_joiners_seat_is_still_being_shown_takes_the_free_seat(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Bob is seated and the lobby still being redrawn for him (his Join's block has not
    ended: a slow group edit, or a slow store on a worker): his claim on a seat and the seat
    itself are one seat, so Kim's Join takes the third seat (it was answered "All seats are
    taken" at a table of two)."""
    group, (ann, bob, kim), lobby = await _ann_bob_kim(fake_api, "Third chair", "")
    game_lobby = running_bot.app.bot_data.game.lobby
    refresh, gate, held = game_lobby.refresh, asyncio.Event(), asyncio.Event()

    async def slow_refresh(*args: Any, **kwargs: Any) -> Any:
        if not gate.is_set():
            held.set()
            await gate.wait()
        return await refresh(*args, **kwargs)

    game_lobby.refresh = slow_refresh  # type: ignore[method-assign]
    # The bot wrote to Bob before: his Join's block shows his seat at once (a Join not sure of
    # the private chat shows it once its welcome reached them).
    running_bot.app.bot_data.game.ctx.private_chats.reached(bob.id)
    joined = fake_api.click(bob, lobby, t("btn.join", LANG))
    await asyncio.wait_for(held.wait(), 10)
    table = running_bot.app.bot_data.tables.table_of(ann.id)
    assert [s.name for s in table.seats] == ["Ann", "Bob"]
    kim_joins = fake_api.click(kim, lobby, t("btn.join", LANG))
    try:
        kim_told = (await fake_api.wait_answer(kim_joins)).params["text"]
    finally:
        gate.set()
    assert kim_told == t("pop.seating", LANG)
    assert (await fake_api.wait_answer(joined)).params["text"] == t("pop.joined", LANG)
    await fake_api.wait_settled(kim_joins)
    assert [s.name for s in table.seats] == ["Ann", "Bob", "Kim"]


async def test_a_leave_and_the_openers_start_in_one_batch_answer_what_happens(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """QA defect D3 of issue 16: Kim, seated third, presses Leave, and the opener Start, in
    one batch of updates. The Leave is on its way before the Start is answered (before its
    table's lock), so the Start counts Kim as gone: answered "Three seats must be filled",
    not "The deal starts!" followed by the group's "Three seats must be filled". Kim leaves,
    nobody is dealt in."""
    group, (ann, bob, kim), lobby = await _ann_bob_kim(fake_api, "Changed mind", "Bob Kim")
    await fake_api.wait_for(lambda: "3. Kim" in lobby.text)
    left, started = await _one_batch(fake_api, lobby, (kim, "btn.leave"), (ann, "btn.start"))
    assert left.params["text"] == t("pop.left_lobby", LANG)
    assert started.params["text"] == t("pop.need_three", LANG)
    await fake_api.wait_for(lambda: "Kim" not in lobby.text)
    table = running_bot.app.bot_data.tables.table_of(ann.id)
    assert table.phase == "lobby" and [s.name for s in table.seats] == ["Ann", "Bob"]
    notes = [c.params["text"] for c in fake_api.calls_to("sendMessage", chat_id=group.id)]
    assert t("pop.need_three", LANG) not in notes, notes
    assert all(_hands_sent(fake_api, user) == [] for user in (ann, bob, kim))
    assert [len(fake_api.calls_to("answerCallbackQuery",
                                  callback_query_id=a.params["callback_query_id"]))
            for a in (left, started)] == [1, 1]


async def test_a_leave_pressed_while_the_starts_answer_is_on_its_way_lets_the_start_deal(
    fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch: pytest.MonkeyPatch
):
    """The other order of QA defect D3 of issue 16: Ann's Start is answered as starting (its
    answer still on its way, its block not at the table's lock yet) when Kim's Leave arrives.
    The Leave lets the Start take the lock first: the Start deals Ann, Bob and Kim as it said,
    and the Leave is answered "The game has already started". Before, the Leave's block ran first,
    unseated Kim, and the group was told "Three seats must be filled" after "The deal
    starts!"."""
    group, (ann, bob, kim), lobby = await _ann_bob_kim(fake_api, "Late feet", "Bob Kim")
    await fake_api.wait_for(lambda: "3. Kim" in lobby.text)
    game_lobby = running_bot.app.bot_data.game.lobby
    table = running_bot.app.bot_data.tables.table_of(kim.id)
    answer, gate, held = send.answer, asyncio.Event(), asyncio.Event()

    async def slow_answer(query: Any, text: str | None = None, alert: bool = False,
                          url: str | None = None) -> None:
        if text == t("lobby.starting", LANG) and not gate.is_set():
            held.set()
            await gate.wait()
        await answer(query, text, alert, url)

    monkeypatch.setattr(send, "answer", slow_answer)
    start = fake_api.click(ann, lobby, t("btn.start", LANG))
    await asyncio.wait_for(held.wait(), 10)
    leave = fake_api.click(kim, lobby, t("btn.leave", LANG))
    async with asyncio.timeout(10):  # until the Leave is on its way
        while (await game_lobby.promised_seats(table)) != (2, 0):
            await asyncio.sleep(0.01)
    gate.set()
    started, left = await asyncio.gather(fake_api.wait_settled(start),
                                         fake_api.wait_settled(leave))
    assert started.params["text"] == t("lobby.starting", LANG)
    assert left.params["text"] == t("pop.game_started", LANG)  # /leave leaves the deal
    for user in (ann, bob, kim):
        assert hand_message(fake_api, user).content.startswith(t("hand.title", LANG, n=17))
    notes = [c.params["text"] for c in fake_api.calls_to("sendMessage", chat_id=group.id)]
    assert t("pop.need_three", LANG) not in notes, notes


async def test_a_lobby_nobody_can_be_reached_at_stays_open_and_takes_no_bots_alone(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """QA of issue 9: the opener and a joiner have never opened a private chat with the bot.
    The joiner's seat is given up and the group told, by name; the lobby stays open with its
    link (it closed as "everybody left" before). Add bot is refused while no player sits (a
    table of bots alone played a deal by itself in the group before)."""
    group = fake_api.new_group("Strangers")
    ann, kim = fake_api.new_user("Ann"), fake_api.new_user("Kim")
    players = Players(fake_api, group, [ann, kim])
    await players.command(ann, "/newgame")
    lobby = players.table_message()
    assert any(b.url for b in lobby.buttons) and "Ann" not in lobby.text
    answer = await players.click(kim, lobby, t("btn.join", LANG))
    assert answer.params["text"] == t("pop.seating", LANG)
    told = t("lobby.unreachable", LANG, name="Kim")
    await fake_api.wait_for("sendMessage", chat_id=group, since=0,
                            where=lambda call: call.params["text"] == told)
    await fake_api.wait_for(lambda: any(b.url for b in lobby.buttons) and "Kim" not in lobby.text)
    tables = running_bot.app.bot_data.tables
    table = next(table for table in tables if table.chat_id == group.id)
    assert table.seats == [] and table.opener_id == ann.id
    for _ in range(2):
        answer = await players.click(ann, lobby, t("btn.add_bot", LANG))
        assert answer.params["text"] == t("pop.need_player", LANG)
    assert table.seats == [] and lobby.buttons
    answer = await players.click(ann, lobby, t("btn.start", LANG))
    assert answer.params["text"] == t("pop.need_three", LANG)

    # Kim opens the private chat through the link: seated; now bots may join her.
    fake_api.open_private_chat(kim)
    token = button_data(lobby, label=t("btn.join", LANG)).split(":")[1]
    fake_api.send_text(kim, kim, f"/start join_{token}")
    await fake_api.wait_for(lambda: "Kim" in lobby.text)
    for _ in range(2):
        answer = await players.click(ann, lobby, t("btn.add_bot", LANG))
        assert answer.params["text"] == t("pop.bot_added", LANG)
    answer = await players.click(ann, lobby, t("btn.start", LANG))
    assert answer.params["text"] == t("lobby.starting", LANG)
    assert hand_message(fake_api, kim).content.startswith(t("hand.title", LANG, n=17))


async def test_start_refuses_a_full_table_of_bots_alone(fake_api: FakeBotApi,
                                                        running_bot: BotRunner):
    """A lobby of bots alone (stored by a version that let Add bot fill it) is not dealt: a
    player must sit at the table."""
    group = fake_api.new_group("Robots")
    ann = fake_api.new_user("Ann")
    players = Players(fake_api, group, [ann])
    await players.command(ann, "/newgame")
    lobby = players.table_message()
    game = running_bot.app.bot_data.game
    table = next(table for table in game.tables if table.chat_id == group.id)
    async with game.tables.lock(table.key):
        assert all(game.lobby.add_bot(table) for _ in range(3))
    answer = await players.click(ann, lobby, t("btn.start", LANG))
    assert answer.params["text"] == t("pop.need_player", LANG)
    assert table.phase == "lobby" and not fake_api.calls_to("sendPhoto", chat_id=group.id)


class _StoredElsewhere:
    """The workers' shared seats (:class:`bot.core.table.SeatClaims`) as another worker left
    them: it stored ``seats`` at the lobby after this process's copy was brought up to date."""

    def __init__(self, seats: list[int | None]) -> None:
        self.seats = seats

    async def lobby_seats(self, key: str, token: str) -> StoredLobby:
        return StoredLobby(list(self.seats), set(), set())


async def test_a_start_checked_on_a_copy_older_than_the_stored_seats_is_answered_starting(
    fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch: pytest.MonkeyPatch
):
    """With several workers, Kim's Join on another worker was stored (its claim let go) after
    this worker's copy of the lobby was read for Ann's Start: the store shows three seats, the
    copy two. The Start is answered as starting (the block decides on the stored table), not
    "Three seats must be filled" (the copy's count), as it was once in a two-worker run."""
    group, (ann, bob, kim), lobby = await _ann_bob_kim(fake_api, "Stale copy", "Bob")
    table = running_bot.app.bot_data.tables.table_of(ann.id)
    game_lobby = running_bot.app.bot_data.game.lobby
    monkeypatch.setattr(game_lobby.ctx, "seat_claims",
                        _StoredElsewhere([ann.id, bob.id, kim.id]))
    assert len(table.seats) == 2
    assert await game_lobby.start_check(table, LANG) == (None, None)
    monkeypatch.setattr(game_lobby.ctx, "seat_claims", _StoredElsewhere([ann.id, bob.id]))
    assert await game_lobby.start_check(table, LANG) == (t("pop.need_three", LANG), None)


async def test_one_welcome_per_player_and_table_not_per_lobby(fake_api: FakeBotApi,
                                                              running_bot: BotRunner):
    """A new user's report: "your cards for the table in … come here" arrived at every lobby
    of the same group; now once per player and table (the group)."""
    group = fake_api.new_group("Regulars")
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    players = Players(fake_api, group, [ann, bob])
    welcome = t("hand.welcome", LANG, group="Regulars")
    seated = (t("pop.joined", LANG), t("pop.seating", LANG))
    lobby = await players.open_table(ann, [])
    assert (await players.click(bob, lobby, t("btn.join", LANG))).params["text"] in seated
    await players.click(bob, lobby, t("btn.leave", LANG))
    assert (await players.click(bob, lobby, t("btn.join", LANG))).params["text"] in seated
    await players.click(ann, lobby, t("btn.close", LANG))
    again = await players.open_table(ann, [])  # a new lobby of the same table
    assert again is not lobby
    assert (await players.click(bob, again, t("btn.join", LANG))).params["text"] in seated
    await fake_api.wait_for(lambda: "2. Bob" in again.text)
    for user in (ann, bob):
        texts = [c.params["text"] for c in fake_api.calls_to("sendMessage", chat_id=user.id)]
        assert texts.count(welcome) == 1, user.first_name
    other = Players(fake_api, fake_api.new_group("Elsewhere"), [bob])
    await players.click(bob, again, t("btn.leave", LANG))
    await other.open_table(bob, [])  # another table: told where its cards come from
    texts = [c.params["text"] for c in fake_api.calls_to("sendMessage", chat_id=bob.id)]
    assert texts.count(t("hand.welcome", LANG, group="Elsewhere")) == 1
