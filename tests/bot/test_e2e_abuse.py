"""End to end: presses that must change nothing (double presses, strangers, forged data), a
player who blocked the bot, and Telegram's 429 on the table edit (issue 3, "Never trust input")."""

from __future__ import annotations

import pytest

from bot.core.i18n import t
from bot.presentation import views
from engine import Action
from tests.bot.flow_helpers import (
    LANG,
    Players,
    button_data,
    hand_message,
    start_seeded_deal,
    table_picture,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

SEED = 4242


@pytest.fixture
async def dealt(fake_api: FakeBotApi, running_bot: BotRunner) -> Players:
    """Three players at a table whose deal (seed SEED, Ann bids first) has just started."""
    players = await start_seeded_deal(fake_api, running_bot.app, "Rough crowd", seed=SEED)
    await table_picture(fake_api, players.group)
    return players


def table_state(players: Players):
    return players.app.bot_data.tables.table_of(players.users[0].id).state


async def test_double_press_applies_once(dealt: Players):
    api, ann = dealt.api, dealt.users[0]
    message = hand_message(api, ann)
    data = button_data(message, label=t("btn.bid_3", LANG))
    first, second = api.press(ann, message, data), api.press(ann, message, data)
    answers = [await api.wait_settled(first), await api.wait_settled(second)]
    texts = sorted(str(a.params.get("text")) for a in answers)
    assert texts == sorted(["None", t("pop.stale", LANG)])
    state = table_state(dealt)
    assert state.version == 1 and state.history == (Action("bid", 0, value=3),)
    dealt.state = state
    # Ann leads: select her lowest card and press Play twice at once.
    low = min(dealt.hand_ranks(0))
    message = hand_message(api, ann)
    await dealt.press(ann, message, button_data(message, suffix=f":r{low}"))
    message = hand_message(api, ann)
    play = button_data(message, label=t("btn.play", LANG))
    presses = [api.press(ann, message, play) for _ in range(2)]
    answers = [await api.wait_settled(q) for q in presses]
    assert sorted(str(a.params.get("text")) for a in answers) == sorted(
        ["None", t("pop.stale", LANG)])
    state = table_state(dealt)
    assert state.version == 2 and state.history[-1] == Action("play", 0, cards=(low,))
    stored = await dealt.app.bot_data.store.running_deals()
    assert [deal.version for deal in stored] == [2]


async def test_strangers_and_other_seats_change_nothing(dealt: Players):
    api = dealt.api
    ann, bob, _ = dealt.users
    stranger = api.new_user("Zed")
    message = hand_message(api, ann)
    bid = button_data(message, label=t("btn.bid_3", LANG))
    answer = await dealt.press(stranger, message, bid)
    assert answer.params["text"] == t("pop.not_seated", LANG)
    answer = await dealt.press(bob, message, bid)  # Bob presses Ann's button: not his turn
    assert answer.params["text"] == t("pop.not_your_turn", LANG)
    assert table_state(dealt).version == 0

    table = api.messages_in(dealt.group)[0]
    my_cards = button_data(table, label=t("btn.my_cards", LANG))
    answer = await dealt.press(stranger, table, my_cards)
    assert answer.params["text"] == t("pop.not_seated", LANG)
    answer = await dealt.press(bob, table, my_cards)
    bob_hand = views.cards_text(dealt.state.hands[1], LANG)
    assert answer.params["text"] == t("pop.my_cards", LANG, cards=bob_hand)
    assert answer.params["show_alert"] is True
    # Nobody else's pop-up ever showed Bob's hand.
    others = [a for a in api.calls_to("answerCallbackQuery") if a is not answer]
    assert all(bob_hand not in str(a.params.get("text", "")) for a in others)


async def test_forged_callbacks_get_a_popup_and_change_nothing(dealt: Players):
    api, ann = dealt.api, dealt.users[0]
    message = hand_message(api, ann)
    token = button_data(message, label=t("btn.bid_3", LANG)).split(":")[1]
    forged = {
        "garbage": t("pop.invalid", LANG),
        "A:" + "x" * 70 + ":0:bid3": t("pop.invalid", LANG),
        f"A:{token}:0:bid9": t("pop.invalid", LANG),
        "A:ZZZZZZZZ:0:bid3": t("pop.old_button", LANG),
        f"A:{token}:7:bid3": t("pop.stale", LANG),
        f"A:{token}:0:double": views.illegal_text("wrong_phase", LANG),
        f"S:{token}:0:play": t("pop.not_your_turn", LANG),
        f"G:{token}:0:": t("pop.not_over", LANG),
        f"L:{token}:0:join": t("pop.game_started", LANG),
    }
    for data, text in forged.items():
        answer = await dealt.press(ann, message, data)
        assert answer.params.get("text") == text, data
    assert table_state(dealt).version == 0
    await dealt.act(Action("bid", 0, value=3))
    absent = next(r for r in range(15) if r not in dealt.hand_ranks(0))
    version = table_state(dealt).version
    answer = await dealt.press(ann, hand_message(api, ann), f"S:{token}:{version}:r{absent}")
    assert answer.params["text"] == t("pop.invalid", LANG)
    assert table_state(dealt).version == version


async def test_blocked_player_goes_to_autoplay_and_group_is_told(dealt: Players):
    api = dealt.api
    ann, bob, _ = dealt.users
    api.block_user(bob)
    await dealt.act(Action("bid", 0, value=1))  # redraws Bob's hand: 403
    told = t("table.blocked", LANG, name="Bob")
    await api.wait_for("sendMessage", chat_id=dealt.group, where=lambda c: c.params["text"] == told)
    state = await api.wait_for(lambda: (s := table_state(dealt)).autoplay[1] and s)
    assert state.autoplay == (False, True, False)
    # Bob's turn is played for him; when he comes back he takes control back.
    await api.wait_for(lambda: 1 not in table_state(dealt).to_act)
    api.unblock_user(bob)
    message = hand_message(api, bob)  # drawn before the block: still offers Auto-play
    answer = await dealt.click(bob, message, t("btn.autoplay", LANG))
    assert answer.params["text"] == t("pop.autoplay_on", LANG)
    answer = await dealt.click(bob, hand_message(api, bob), t("btn.take_back", LANG))
    assert answer.params["text"] == t("pop.autoplay_off", LANG)
    assert table_state(dealt).autoplay[1] is False
    assert t("btn.autoplay", LANG) in [b.text for b in hand_message(api, bob).buttons]


async def test_a_429_on_the_table_edit_is_retried(dealt: Players):
    api = dealt.api
    table = api.messages_in(dealt.group)[0]
    api.fail_next("editMessageMedia", 429, retry_after=1, chat=dealt.group)
    await dealt.act(Action("bid", 0, value=2))
    await api.wait_for("editMessageMedia", chat_id=dealt.group, ok=False, since=0)
    shown = f"Ann · 17 cards · {t('btn.bid_2', LANG)}"
    await api.wait_for(lambda: shown in table.content, timeout=5)
    failed = api.calls_to("editMessageMedia", chat_id=dealt.group.id)
    assert [c.status for c in failed].count(429) == 1


async def test_join_without_private_chat_shows_deep_link(fake_api: FakeBotApi, running_bot):
    group = fake_api.new_group("Newcomers")
    ann, kim = fake_api.new_user("Ann"), fake_api.new_user("Kim")
    players = Players(fake_api, group, [ann])
    lobby = await players.open_table(ann, [])
    answer = await players.click(kim, lobby, t("btn.join", LANG))
    assert answer.params["text"] == t("pop.seating", LANG)  # answered first, welcomed after
    welcome = fake_api.calls_to("sendMessage", chat_id=kim.id)
    assert [call.status for call in welcome] == [403]
    assert fake_api.calls.index(answer) < fake_api.calls.index(welcome[0])
    told = t("lobby.unreachable", LANG, name="Kim")
    await fake_api.wait_for("sendMessage", chat_id=group, since=0,
                            where=lambda call: call.params["text"] == told)
    await fake_api.wait_for(lambda: any(b.url for b in lobby.buttons))
    link = next(b for b in lobby.buttons if b.url)
    token = button_data(lobby, label=t("btn.join", LANG)).split(":")[1]
    assert link.url == f"https://t.me/{running_bot.app.bot.username}?start=join_{token}"
    assert "Kim" not in lobby.text
    fake_api.send_text(kim, kim, f"/start join_{token}")
    reply = await fake_api.wait_for("sendMessage", chat_id=kim)
    assert reply.params["text"] == t("reply.start_joined", LANG, group="Newcomers")
    await fake_api.wait_for(lambda: "2. Kim" in lobby.text)
    fake_api.send_text(kim, kim, "/start join_nonsense")
    reply = await fake_api.wait_for("sendMessage", chat_id=kim)
    assert reply.params["text"] == t("reply.start_join_failed", LANG)


async def test_a_deleted_table_message_is_posted_again(dealt: Players):
    api = dealt.api
    table = api.messages_in(dealt.group)[0]
    table.deleted = True  # an admin deleted it
    await dealt.act(Action("bid", 0, value=1))
    call = await api.wait_for("sendPhoto", chat_id=dealt.group)
    assert call.params["caption"].startswith("🃏")
    fresh = api.message(dealt.group, call.result["message_id"])
    assert fresh.button(t("btn.my_cards", LANG))
    table = dealt.app.bot_data.tables.table_of(dealt.users[0].id)
    await api.wait_for(lambda: table.messages.message_id == fresh.message_id)
    assert table.messages.message_photo is True


async def test_a_press_is_answered_before_its_table_is_free(dealt: Players):
    """Issue 16: a press is answered first, also while its table's lock is held by the step
    before (whose hands may still be waiting for the token's budget); the bid itself is made
    once the table is free. A refusal decided on the table as it is now is answered at once
    too."""
    api, ann, bob = dealt.api, dealt.users[0], dealt.users[1]
    game = dealt.app.bot_data.game
    table = game.tables.table_of(ann.id)
    message = hand_message(api, ann)
    bid = button_data(message, label=t("btn.bid_3", LANG))
    async with game.tables.lock(table.key):
        pressed = api.press(ann, message, bid)
        answer = await api.wait_answer(pressed, 5.0)
        assert answer.params.get("text") is None
        early = api.press(bob, hand_message(api, bob), bid)
        refused = await api.wait_answer(early, 5.0)
        assert refused.params.get("text") == t("pop.not_your_turn", LANG)
        assert table.state.version == 0  # nothing applied while the lock is held
    await api.wait_settled(pressed)
    assert table_state(dealt).history == (Action("bid", 0, value=3),)
