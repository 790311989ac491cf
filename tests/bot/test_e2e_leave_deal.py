"""End to end: what players see after /leave in a running deal (RULES.md §9): a practice leave
costs nothing in every text; the hand message of a seat that left, or is on auto-play, is not
edited when what it shows did not change; a table that every human left is free at once."""

from __future__ import annotations

from bot.core.i18n import t
from bot.core.table import Table
from engine import Action
from engine.ai import choose_action
from tests.bot.economy_helpers import reply
from tests.bot.flow_helpers import (
    HAND_PREFIX,
    LANG,
    Players,
    call_text,
    cannot_follow,
    hand_message,
    result_message,
    start_practice,
    start_seeded_deal,
)
from tests.conftest import BotRunner
from tests.fakebot import Chat, FakeBotApi, FakeMessage, User

SEED = 31


async def _leave(players: Players, user: User, chat: Chat | User | None = None) -> FakeMessage:
    """``user`` sends /leave (in the group, or ``chat``: their practice) and confirms; the
    prompt, edited. A practice's button says it ends the practice, not that it forfeits."""
    api = players.api
    target = chat or players.group
    api.send_text(user, target, "/leave")
    call = await api.wait_for("sendMessage", chat_id=target,
                              where=lambda c: bool(c.params.get("reply_markup")))
    prompt = api.message(target, call.result["message_id"])
    label = "btn.leave_practice" if target is user else "btn.leave_confirm"
    answer = await players.click(user, prompt, t(label, LANG))
    assert answer.params.get("text") is None
    return prompt


async def _play_out(players: Players, table: Table) -> None:
    """The humans still deciding play (the AI's choice) until the deal ends; seats the bot plays
    for (left, on auto-play) or passes for (自动要不起: they cannot follow) are waited for."""
    api = players.api
    while table.state is not None and table.state.phase not in ("finished", "redeal"):
        state = table.state
        seat = state.to_act[0]
        if state.autoplay[seat] or table.seats[seat].is_bot \
                or (table.options.auto_pass and cannot_follow(state, seat)):
            version = state.version
            await api.wait_for(lambda v=version: table.state.version != v or None, timeout=10)
            continue
        user = players.users[seat]
        await api.wait_for(lambda u=user, v=state.version: any(  # the prompt of this turn
            (b.callback_data or "").split(":")[2:3] == [str(v)]
            for b in hand_message(api, u).buttons) or None, timeout=10)
        players.state = state
        await players.act(choose_action(state.view(seat)))


def _hand_edits(api: FakeBotApi, user: User, since: int) -> list[str]:
    """The texts of the edits of ``user``'s hand message since call ``since``."""
    return [call_text(c) for c in api.calls[since:]
            if c.params.get("chat_id") == user.id and c.method.startswith("edit")
            and call_text(c).startswith(HAND_PREFIX)]


async def test_leaving_practice_says_no_penalty_everywhere(fake_api: FakeBotApi,
                                                          running_bot: BotRunner):
    """QA: the /leave prompt of a practice deal says "no penalty", yet the announcement said
    "escape penalty", the result "-9 points" and the hand "You lost -9 points"."""
    app = running_bot.app
    ann, _ = await start_practice(fake_api, app, SEED)
    table = app.bot_data.tables.table_of(ann.id)
    players = Players(fake_api, fake_api.chat(ann), [ann])
    players.state = table.state
    await players.act(Action("bid", 0, value=3))  # Ann is landlord: the deal is played out
    since = len(fake_api.calls)
    prompt = await _leave(players, ann, ann)
    assert prompt.content == t("table.left_practice", LANG, name="Ann")
    result = await result_message(fake_api, fake_api.chat(ann), timeout=20, since=since)
    lines = result.content.splitlines()
    assert lines[0] == t("result.practice_left", LANG, names="Ann")
    assert lines[1:3] == ["", "👑 Ann (Landlord): 0 points"]  # no multiplier to explain
    assert "-" not in "".join(line for line in result.content.splitlines() if "points" in line)
    assert result.buttons == []  # nobody is left to answer Play again
    edits = _hand_edits(fake_api, ann, since)
    assert [e.splitlines()[-1] for e in edits] == [t("hand.left", LANG),
                                                   t("hand.practice_left", LANG)]
    assert await app.bot_data.store.balance(ann.id) == 1000
    fake_api.send_text(ann, ann, "/practice")  # the practice table is free at once
    await fake_api.wait_for(lambda: len([m for m in fake_api.messages_in(ann)
                                         if m.content.startswith(HAND_PREFIX)]) == 2 or None)


async def test_the_hand_of_a_seat_that_left_is_edited_once_then_with_its_outcome(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """QA: after Bob's /leave his unchanged hand was edited twice on each of his turns (the
    counter line added, then taken away): 16 edits; now the "left" drawing and the outcome."""
    app = running_bot.app
    players = await start_seeded_deal(fake_api, app, "Leavers", seed=SEED)
    bob = players.users[1]
    await players.act(Action("bid", 0, value=3))
    table = app.bot_data.tables.table_of(bob.id)
    since = len(fake_api.calls)
    await _leave(players, bob)
    await _play_out(players, table)
    await result_message(fake_api, players.group, timeout=20, since=since)
    bob_turns = sum(1 for a in table.state.history[-40:] if a.seat == 1 and a.kind != "leave")
    assert bob_turns >= 3  # auto-play acted for him several times
    edits = _hand_edits(fake_api, bob, since)
    outcome = app.bot_data.game.deals.hands.outcomes[table.key][1]
    assert [e.splitlines()[-1] for e in edits] == [t("hand.left", LANG), outcome]
    assert not any(t("hand.counter", LANG, counts="") in e for e in edits)


async def test_a_seat_on_autoplay_is_edited_only_when_its_hand_changes(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """QA: the hand of a seat on auto-play alternated on each of its turns between a caption
    with the status and counter lines and one without (16 edits of a hand that never
    changed); now it keeps the 记牌器 button and is edited when its cards change only."""
    app = running_bot.app
    players = await start_seeded_deal(fake_api, app, "Autoplay", seed=SEED)
    bob = players.users[1]
    await players.act(Action("bid", 0, value=3))
    table = app.bot_data.tables.table_of(bob.id)
    message = hand_message(fake_api, bob)
    since = len(fake_api.calls)
    answer = await players.click(bob, message, t("btn.autoplay", LANG))
    assert answer.params["text"] == t("pop.autoplay_on", LANG)
    start = len(table.state.history)
    await _play_out(players, table)
    await result_message(fake_api, players.group, timeout=20, since=since)
    history = table.state.history[start:]
    plays = sum(1 for a in history if a.seat == 1 and a.kind == "play")
    assert sum(1 for a in history if a.seat == 1) >= 3
    edits = _hand_edits(fake_api, bob, since)
    # the switch itself, one edit per card play of his seat, the outcome
    assert len(edits) == 1 + plays + 1, [e.splitlines()[-1] for e in edits]
    assert [e.splitlines()[-1] for e in edits[:-1]] == [t("hand.autoplay", LANG)] * (plays + 1)
    assert not any(t("hand.counter", LANG, counts="") in e for e in edits)


async def test_a_table_every_human_left_is_free_at_once(fake_api: FakeBotApi,
                                                       running_bot: BotRunner):
    """QA: when all three humans left, the result still offered Play again (answered "You do
    not sit at this table") and /newgame was refused ("still answering Play again") until the
    lobby timeout (300 s)."""
    app = running_bot.app
    players = await start_seeded_deal(fake_api, app, "Everybody out", seed=SEED)
    await players.act(Action("bid", 0, value=3))
    since = len(fake_api.calls)
    for user in players.users:
        await _leave(players, user)
    result = await result_message(fake_api, players.group, timeout=20, since=since)
    assert result.buttons == []
    assert t("result.again_note", LANG, time="5 min") not in result.content
    zed = fake_api.new_user("Zed")
    fake_api.open_private_chat(zed)
    text = await reply(fake_api, zed, players.group, "/newgame")
    assert text != t("reply.again_pending", LANG)
    lobby = app.bot_data.tables.get(f"{players.group.id}:0")
    assert lobby.phase == "lobby" and [s.name for s in lobby.seats] == ["Zed"]


async def test_leaving_practice_in_the_bidding_ends_it_at_once(fake_api: FakeBotApi,
                                                              running_bot: BotRunner):
    """QA of issue 9: the announcement said auto-play would play the deal out, and the result
    had two blank lines, for a practice deal left before any card was played."""
    ann, _ = await start_practice(fake_api, running_bot.app, SEED)
    players = Players(fake_api, fake_api.chat(ann), [ann])
    since = len(fake_api.calls)
    prompt = await _leave(players, ann, ann)
    assert prompt.content == "Ann ended the practice deal: no penalty, every seat scores 0."
    result = await result_message(fake_api, fake_api.chat(ann), timeout=20, since=since)
    assert result.content.splitlines() == [
        t("result.practice_left", LANG, names="Ann"), "", "Ann: 0 points", "🤖 Bot 2: 0 points",
        "🤖 Bot 3: 0 points"]


async def test_leaving_after_two_robs_costs_the_bidding_so_far_in_the_ledger(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """RULES.md §9 at a bean table (10 beans a point) of the rob preset: Ann calls, Bob and Cat
    rob (×4), and Ann, about to rob back, leaves: she pays 3 × 1 × 4 = 12 points, 120 beans
    (it was a flat 6 whatever the bidding), one deal ledger row each, summing to zero, and the
    result says how the 12 came about."""
    app = running_bot.app
    store = app.bot_data.store
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group("Robbers")
    await store.update_group_settings(group.id, bidding="rob")
    users = [fake_api.new_user(name) for name in ("Ann", "Bob", "Cat")]
    players = Players(fake_api, group, users)
    players.lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], players.lobby, t("btn.start", LANG))
    table = app.bot_data.tables.table_of(users[0].id)
    players.state = table.state
    assert table.state.rules.bidding == "rob" and table.state.to_act == (0,)
    for action in (Action("call", 0), Action("rob", 1), Action("rob", 2)):
        await players.act(action)
    assert table.state.bidding.robs == 2 and table.state.to_act == (0,)
    since = len(fake_api.calls)
    await _leave(players, users[0])
    result = await result_message(fake_api, group, since=since)
    assert table.state.result.points == (-12, 6, 6)
    line = t("result.bidding_escape_bid", LANG, n=12, base=1, m=4)
    assert line in result.content.splitlines()
    rows = [(await store.ledger(user.id, limit=1))[0] for user in users]
    assert [(r.reason, r.amount, r.balance_after) for r in rows] == [
        ("deal", -120, 880), ("deal", 60, 1060), ("deal", 60, 1060)]
    assert len({r.deal_id for r in rows}) == 1
    assert [await store.balance(user.id) for user in users] == [880, 1060, 1060]
