"""End to end: what a player's private hand message shows, and what a tap costs (issue 32 items 4
and 5), through the fake Bot API with the real Application.

A tap that changes only the selection (a rank, Hint, Clear) is one ``editMessageCaption`` of the
presser's hand: the keyboard and the caption show the selection and whether it can be played,
and no picture is uploaded; the picture is drawn again when the cards change (a play, the kitty).
A seat that waits reads what each other seat did last and whom it waits for, edited by caption
as the deal goes on, in the player's language."""

from __future__ import annotations

from bot.core.i18n import t
from bot.presentation import views
from bot.telegram.services import App
from engine import SCORE, Action, apply, new_deal
from engine.ai import choose_action
from engine.cards import card_rank
from images import render_hand
from tests.bot.flow_helpers import (
    LANG,
    Players,
    button_data,
    call_text,
    hand_message,
    start_seeded_deal,
    with_button,
)
from tests.conftest import BotRunner
from tests.fakebot import Call, FakeBotApi, FakeMessage, User

SEED = 20240601
#: Calls that put a picture into a message.
PICTURE_METHODS = ("sendPhoto", "editMessageMedia")


def uploads(call: Call) -> bool:
    """The call carries a picture's bytes (not a file_id Telegram already has)."""
    if call.method not in PICTURE_METHODS:
        return False
    value = call.params["media"]["media"] if "media" in call.params else call.params.get("photo")
    return value is None or str(value).startswith("attach://")


def own_hand(api: FakeBotApi, user: User) -> FakeMessage:
    """The user's hand message in any language: the newest picture in their private chat."""
    return next(m for m in reversed(api.messages_in(user)) if m.photo)


def private_calls(api: FakeBotApi, user: User, since: int) -> list[Call]:
    return [c for c in api.calls[since:] if c.params.get("chat_id") == user.id]


async def to_play(players: Players) -> None:
    """Ann (seat 0) bids 3 and takes the kitty; the doubling round, if any, goes by."""
    await players.act(Action("bid", 0, value=3))
    while players.state.phase != "playing":
        seat = players.state.to_act[0]
        await players.act(choose_action(players.state.view(seat)))


async def tap(players: Players, user: User, data_suffix: str, line: str) -> FakeMessage:
    """``user`` presses the hand button ending in ``data_suffix``; the hand once its caption
    carries ``line``."""
    api = players.api
    message = own_hand(api, user)
    answer = await players.press(user, message, button_data(message, suffix=data_suffix))
    assert answer.params.get("text") is None, answer
    return await api.wait_for(lambda: (m := own_hand(api, user)) and line in
                              m.content.splitlines() and m)


async def test_a_selection_tap_uploads_no_picture_and_a_play_draws_the_hand_again(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    players = await start_seeded_deal(fake_api, running_bot.app, "Quiet taps", seed=SEED)
    await to_play(players)
    ann = players.users[0]
    hand = await players.prompt(ann, label=t("btn.play", LANG))
    photo, shown = hand.photo, fake_api.file(hand.photo)
    assert shown == render_hand(players.state.hands[0])
    ranks = sorted(set(players.hand_ranks(0)))
    low, other = ranks[0], ranks[1]
    label = views.rank_label(low, LANG)

    # A rank tap: one caption edit of Ann's hand, no picture; the caption names the selection
    # and says it can be played; the keyboard ticks the rank and offers nothing to upload.
    mark = fake_api.mark()
    single = f"Selected: {label} · ✅ single, can be played"
    hand = await tap(players, ann, f":r{low}", single)
    calls = private_calls(fake_api, ann, mark)
    assert [c.method for c in calls] == ["editMessageCaption"], calls
    assert not any(uploads(c) for c in fake_api.calls[mark:])
    assert hand.photo == photo and fake_api.file(hand.photo) == shown
    assert any(b.text.startswith(f"✅{label}") for b in hand.buttons)

    # A second rank: two singles are no play, and the caption says why (as Play's pop-up would).
    mark = fake_api.mark()
    both = views.ranks_text([low, other], LANG)
    hand = await tap(players, ann, f":r{other}",
                     f"Selected: {both} · ✖ These cards are not a valid combination.")
    assert [c.method for c in private_calls(fake_api, ann, mark)] == ["editMessageCaption"]
    assert hand.photo == photo

    # Clear, Hint: captions too; then Play: the cards changed, the picture is drawn again.
    mark = fake_api.mark()
    await players.click(ann, hand_message(fake_api, ann), t("btn.clear", LANG))
    await fake_api.wait_for(lambda: not any(line.startswith("Selected")
                                            for line in hand_message(fake_api, ann).content
                                            .splitlines()))
    hand = await tap(players, ann, f":r{low}", single)
    assert {c.method for c in private_calls(fake_api, ann, mark)} == {"editMessageCaption"}
    assert not any(uploads(c) for c in private_calls(fake_api, ann, mark))
    mark = fake_api.mark()
    await players.click(ann, hand, t("btn.play", LANG))
    lowest = min(c for c in players.state.hands[0] if card_rank(c) == low)
    left = tuple(c for c in players.state.hands[0] if c != lowest)
    await fake_api.wait_for(lambda: fake_api.file(hand_message(fake_api, ann).photo)
                            == render_hand(left))
    media = [c for c in private_calls(fake_api, ann, mark) if c.method == "editMessageMedia"]
    assert len(media) == 1 and uploads(media[0])
    assert call_text(media[0]).splitlines()[0] == t("hand.title", LANG, n=19)


async def test_the_selection_caption_in_chinese(fake_api: FakeBotApi, running_bot: BotRunner):
    """Ann reads Chinese at an English table: her caption says the selection in her words."""
    ann = fake_api.new_user("Ann", language_code="zh-hans")
    players = await seated(fake_api, running_bot.app, [ann, fake_api.new_user("Bob"),
                                                       fake_api.new_user("Cat")])
    await zh_to_play(players, ann)
    await with_button(fake_api, lambda: own_hand(fake_api, ann), suffix=":play")
    ranks = sorted(set(players.hand_ranks(0)))
    low, other = ranks[0], ranks[1]
    mark = fake_api.mark()
    label = views.rank_label(low, "zh-Hans")
    await tap(players, ann, f":r{low}", f"已选：{label} · ✅ 单张，可以出")
    both = views.ranks_text([low, other], "zh-Hans")
    await tap(players, ann, f":r{other}", f"已选：{both} · ✖ 这些牌不是有效牌型。")
    assert {c.method for c in private_calls(fake_api, ann, mark)} == {"editMessageCaption"}


async def seated(api: FakeBotApi, app: App, users: list[User]) -> Players:
    """``users`` at a new English group's table, its deal started from :data:`SEED` with seat
    0 bidding first (as :func:`start_seeded_deal`, with users of the test's own)."""
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    players = Players(api, api.new_group("Tap table"), users)
    players.app = app
    players.lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], players.lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    return players


def lines_of(api: FakeBotApi, user: User) -> list[str]:
    return own_hand(api, user).content.splitlines()


async def shows(api: FakeBotApi, user: User, *lines: str) -> list[str]:
    """Wait until the user's hand caption ends with ``lines`` (the last ones: the others'
    decisions, the blank line, whom it waits for); its lines then."""
    want = list(lines)
    return await api.wait_for(lambda: lines_of(api, user)[-len(want):] == want
                              and lines_of(api, user))


async def test_a_waiting_hand_shows_the_others_last_plays_and_whose_turn(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Ann (landlord) leads a 3, Bob beats it with a 5, Cat passes: each waiting hand reads
    what the others did last, from the next seat on, and whom it waits for, by caption edits
    (no picture sent), without a look at the group."""
    players = await start_seeded_deal(fake_api, running_bot.app, "Table at hand", seed=SEED)
    ann, bob, cat = players.users
    await to_play(players)
    mark = fake_api.mark()
    await players.act(Action("play", 0, cards=(0,)))  # the 3
    await shows(fake_api, cat, "Ann 3", "", "Waiting for Bob.")
    bob_sees = await players.prompt(bob, label=t("btn.play", LANG))
    assert "Ann 3" not in bob_sees.content.splitlines()  # to act: the status line instead
    caption_edits_only(fake_api, cat, mark)
    await players.act(Action("play", 1, cards=(2,)))  # the 5
    await shows(fake_api, ann, "Bob 5", "", "Waiting for Cat.")
    mark = fake_api.mark()
    await players.act(Action("pass", 2))
    await shows(fake_api, bob, "Cat Pass · Ann 3", "", "Waiting for Ann.")
    caption_edits_only(fake_api, bob, mark)


def caption_edits_only(api: FakeBotApi, user: User, since: int) -> None:
    """The user's waiting hand changed since call ``since`` by one caption edit, no picture."""
    calls = private_calls(api, user, since)
    assert [c.method for c in calls] == ["editMessageCaption"], calls


async def test_a_waiting_hand_in_chinese(fake_api: FakeBotApi, running_bot: BotRunner):
    """Ann reads Chinese at an English table: 不出 and 等待 in her words, the names as they are."""
    ann = fake_api.new_user("Ann", language_code="zh-hans")
    players = await seated(fake_api, running_bot.app, [ann, fake_api.new_user("Bob"),
                                                       fake_api.new_user("Cat")])
    await zh_to_play(players, ann)
    await press_own(players, ann, "r0")
    await press_own(players, ann, "play")  # she leads her 3
    players.state = apply(players.state, Action("play", 0, cards=(0,)))
    await players.act(Action("pass", 1))
    await shows(fake_api, ann, "Bob 不出", "", "等待 Cat。")


async def press_own(players: Players, user: User, payload: str) -> None:
    """``user`` presses the button of their hand whose data ends in ``:payload`` (once it
    shows it), in whatever language they read."""
    api = players.api
    message = await with_button(api, lambda: own_hand(api, user), suffix=f":{payload}")
    answer = await players.press(user, message, button_data(message, suffix=f":{payload}"))
    assert answer.params.get("text") is None, answer


async def zh_to_play(players: Players, ann: User) -> None:
    """As :func:`to_play`, Ann (seat 0) pressing on her hand in her own language."""
    while players.state.phase != "playing":
        seat = players.state.to_act[0]
        if seat != 0:
            await players.act(choose_action(players.state.view(seat)))
            continue
        action = Action("bid", 0, value=3) if players.state.phase == "bidding" \
            else choose_action(players.state.view(0))
        await press_own(players, ann, f"{action.kind}{action.value}" if action.kind == "bid"
                        else action.kind)
        players.state = apply(players.state, action)
