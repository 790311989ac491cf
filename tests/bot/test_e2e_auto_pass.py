"""End to end: 自动要不起 (the group setting ``auto_pass``, on by default; issue 9). A human seat
to follow with nothing in its hand that beats the table (pass is its only legal action,
RULES.md §4 rule 2; §11 with a farmer's bomb allowance) is passed by the bot after
``BOT_MOVE_DELAY``: its hand message is never a prompt (no keyboard to press or take off, only
the caption edits of a waiting hand: what the others did, whom it waits for), it gets no "your
turn" notice, and the group table shows the pass. With ``/settings auto_pass off`` the same turn
prompts the one-button 要不起 keyboard and waits for the press. A restart while the pass is
pending still passes. The setting parses, validates, is stored, frozen per deal and kept by the
table."""

from __future__ import annotations

import pytest

from bot.core.i18n import t
from bot.core.table import Seat, Table, TableOptions
from bot.game import timers
from bot.presentation import views
from bot.telegram.outlet.telegram import job_name
from bot.telegram.services import App
from engine import SCORE, Action, DealState, Play, apply, classify, new_deal
from engine.ai import choose_action
from engine.cards import rank_counts
from tests.bot.economy_helpers import reply
from tests.bot.flow_helpers import (
    LANG,
    Players,
    after_bot_passes,
    call_text,
    cannot_follow,
    hand_message,
    served,
    start_seeded_deal,
)
from tests.bot.four_helpers import FourTable
from tests.conftest import BotRunner
from tests.fakebot import Call, Chat, FakeBotApi, User

#: Ann bids 3 and leads a straight 3…Q that neither farmer can beat: both are passed.
SEED = 20240601
#: Four seats, everybody passes (逼打: Ann is the landlord); after three plays Dan, whose only
#: bombs are over his allowance (none for the seat before the landlord), cannot beat KK222.
FOUR_SEED = 7


def calls_to(api: FakeBotApi, user: User, since: int) -> list[Call]:
    """Every call the bot made into the user's private chat from call index ``since``."""
    return [c for c in api.calls[since:] if c.params.get("chat_id") == user.id]


def never_prompted(api: FakeBotApi, user: User, since: int, lang: str = LANG) -> None:
    """Since call ``since`` the user's hand changed by caption edits only (a waiting hand
    following the table), none with a 要不起 button: no prompt, no notice."""
    calls = calls_to(api, user, since)
    assert {c.method for c in calls} <= {"editMessageCaption"}, calls
    for call in calls:
        markup = call.params.get("reply_markup") or {}
        labels = [b["text"] for row in markup.get("inline_keyboard", []) for b in row]
        assert t("btn.cannot_beat", lang) not in labels, call


def table_line(api: FakeBotApi, group: Chat, name: str) -> str:
    """The group table's line of the seat named ``name`` (its newest table message)."""
    message = next(m for m in reversed(api.messages_in(group)) if name in m.content)
    return next(line for line in message.content.splitlines() if name in line)


async def shows_pass(api: FakeBotApi, group: Chat, name: str, lang: str = LANG) -> None:
    """Wait until the group table's line of ``name`` ends with the pass (不出 / Pass)."""
    await api.wait_for(lambda: table_line(api, group, name).endswith(t("btn.pass", lang)))


def played_straight(state: DealState) -> Play:
    """The reading of the last play of ``state`` (Ann's straight, passed by both farmers)."""
    action = next(a for a in reversed(state.history) if a.kind == "play")
    return classify(action.cards or ())[0]


async def led_straight(players: Players, app: App) -> int:
    """Ann bids 3 and leads the straight once everything before the lead is shown; the call
    index just before her lead."""
    await players.act(Action("bid", 0, value=3))
    await app.bot_data.outlet.caught_up()  # the farmers' hands show the bid's end already
    since = len(players.api.calls)
    state = players.state
    assert state is not None
    await players.act(choose_action(state.view(0), level="normal"))
    after = players.state
    assert after is not None and cannot_follow(after, 1)
    return since


async def test_a_seat_that_cannot_follow_is_passed_without_a_prompt(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await start_seeded_deal(fake_api, app, "Auto pass", seed=SEED)
    ann, bob, cat = players.users
    since = await led_straight(players, app)
    settled = await players.bot_passes(app)
    assert [(a.kind, a.seat) for a in settled.history[-2:]] == [("pass", 1), ("pass", 2)]
    assert settled.to_act == (0,) and settled.view(0).leading
    await players.prompt(ann, label=t("btn.play", LANG))  # Ann leads again
    await app.bot_data.outlet.caught_up()
    straight = views.play_text(played_straight(settled), LANG)
    for user, line in ((bob, f"Cat Pass · Ann {straight}"), (cat, f"Ann {straight} · Bob Pass")):
        never_prompted(fake_api, user, since)  # no prompt, no keyboard to take off, no 🔔
        await fake_api.wait_for(lambda u=user, line=line: hand_message(fake_api, u).content
                                .splitlines()[-3:] == [line, "", "Waiting for Ann."])
        labels = [b.text for b in hand_message(fake_api, user).buttons]
        assert t("btn.cannot_beat", LANG) not in labels and t("btn.counter", LANG) in labels
    notices = [c for c in calls_to(fake_api, ann, since) if c.method == "sendMessage"]
    assert [c.params["text"] for c in notices] == [t("notice.your_turn_in", LANG,
                                                     group="Auto pass")]
    for name in ("Bob", "Cat"):
        await shows_pass(fake_api, players.group, name)


async def test_with_the_setting_off_the_seat_is_prompted_and_waits(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group("Manual pass")
    users = [fake_api.new_user(name) for name in ("Ann", "Bob", "Cat")]
    ann, bob, cat = users
    fake_api.make_admin(group, ann)
    assert (await store.get_group_settings(group.id))["auto_pass"] is True  # on by default
    name = t("set.name.auto_pass", LANG)
    assert await reply(fake_api, ann, group, "/settings auto_pass off") == t(
        "set.saved", LANG, name=name, value=t("set.off", LANG))
    assert (await store.get_group_settings(group.id))["auto_pass"] is False
    players = Players(fake_api, group, users, auto_pass=False)
    lobby = await players.open_table(ann, users[1:])
    await players.click(ann, lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    since = await led_straight(players, app)
    played = players.state
    assert played is not None and played.trick.play is not None
    for seat, user in ((1, bob), (2, cat)):
        message = await players.prompt(user, suffix=":pass")
        assert [b.text for b in message.buttons] == [
            t("btn.cannot_beat", LANG), t("btn.my_cards", LANG), t("btn.autoplay", LANG),
            t("btn.last_trick", LANG)]
        assert message.content.splitlines()[-1] == t(
            "hand.cannot_beat", LANG, cards=views.play_text(played.trick.play, LANG),
            name="Ann", seconds=30)
        await served(fake_api, app, user, players.state.version)
        await app.bot_data.outlet.caught_up()
        table = app.bot_data.tables.table_of(user.id)
        assert table is not None and table.state is not None
        assert table.state.to_act == (seat,)  # waits for the press: no bot move is armed
        assert not app.job_queue.get_jobs_by_name(job_name(timers.BOT_MOVE, table.key))
        assert app.job_queue.get_jobs_by_name(job_name(timers.TURN, table.key))
        notices = [c.params["text"] for c in calls_to(fake_api, user, since)
                   if c.method == "sendMessage"]
        assert notices == [t("notice.your_turn_in", LANG, group="Manual pass")]
        answer = await players.click(user, message, t("btn.cannot_beat", LANG))
        assert answer.params.get("text") is None
        players.state = apply(players.state, Action("pass", seat))
    await players.prompt(ann, label=t("btn.play", LANG))
    for name in ("Bob", "Cat"):
        await shows_pass(fake_api, group, name)


async def test_a_restart_while_the_pass_is_pending_still_passes(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = await running_bot.restart(bot_move_delay=30.0)  # the pass waits past the restart
    players = await start_seeded_deal(fake_api, app, "Auto pass restart", seed=SEED)
    ann, bob, cat = players.users
    await led_straight(players, app)
    played = players.state
    assert played is not None and played.trick.play is not None
    await served(fake_api, app, ann, played.version)
    table = app.bot_data.tables.table_of(ann.id)
    assert table is not None
    assert app.job_queue.get_jobs_by_name(job_name(timers.BOT_MOVE, table.key))
    since = len(fake_api.calls)

    app = await running_bot.restart(bot_move_delay=0.01)
    settled = await players.bot_passes(app)
    assert [(a.kind, a.seat) for a in settled.history[-2:]] == [("pass", 1), ("pass", 2)]
    await players.prompt(ann, label=t("btn.play", LANG))
    await app.bot_data.outlet.caught_up()
    # Bob's hand, drawn again at the restart while his pass was pending, said so (then it
    # followed the passes); nobody but Ann, who leads again, is sent a notice
    pending = t("hand.auto_pass", LANG, cards=views.play_text(played.trick.play, LANG),
                name="Ann")
    assert any(call_text(c).splitlines()[-1] == pending for c in calls_to(fake_api, bob, since))
    for user in (bob, cat):
        assert [c for c in calls_to(fake_api, user, since) if c.method == "sendMessage"] == []
    for name in ("Bob", "Cat"):
        await shows_pass(fake_api, players.group, name)


@pytest.mark.parametrize("lang", ["en", "zh-Hans"])
async def test_a_farmer_whose_bombs_are_over_his_allowance_is_passed(
    fake_api: FakeBotApi, running_bot: BotRunner, lang: str
):
    app = running_bot.app
    app.bot_data.game.deal_seed = FOUR_SEED
    app.bot_data.game.first_bidder = 0
    table = await FourTable.open(fake_api, app, "Four, no bombs", ("Ann", "Bob", "Cat", "Dan"),
                                 lang)
    ann, *others = table.users
    dan = table.users[3]
    await table.command(ann, "/newgame")
    for user in others:
        await table.click(user, table.lobby(), "btn.join")
    await table.click(ann, table.lobby(), "btn.start")
    table.deal(FOUR_SEED, 0)
    for seat in range(4):
        await table.act(Action("pass", seat))
    for seat in range(3):  # Ann leads, Bob and Cat follow
        if seat == 2:
            await app.bot_data.outlet.caught_up()
            since = len(fake_api.calls)
        state = table.state
        assert state is not None and state.to_act == (seat,)
        await table.act(choose_action(state.view(seat)))
    state = table.state
    assert state is not None and state.to_act == (3,)
    view = state.view(3)
    # a bomb would beat the full house, but Dan (before the landlord) may play none
    assert max(rank_counts(view.hand_ranks)) >= 4 and view.bombs_left() == 0
    assert cannot_follow(state, 3)
    settled = after_bot_passes(state)
    assert [(a.kind, a.seat) for a in settled.history[-1:]] == [("pass", 3)]
    await served(fake_api, app, dan, settled.version)
    await app.bot_data.outlet.caught_up()
    never_prompted(fake_api, dan, since, lang)
    assert t("btn.cannot_beat", lang) not in [b.text for b in table.hand(dan).buttons]
    await shows_pass(fake_api, table.group, "Dan", lang)



def _following(seed: int) -> DealState:
    """A three-seat deal where seat 1 is to follow Ann's straight and cannot beat it."""
    state = apply(new_deal(SCORE, seed=seed, first_bidder=0), Action("bid", 0, value=3))
    state = apply(state, choose_action(state.view(0), level="normal"))
    assert cannot_follow(state, 1)
    return state


@pytest.mark.parametrize("auto_pass", [True, False])
def test_the_hand_of_a_seat_that_cannot_follow(auto_pass: bool):
    """On: no prompt (no status or counter line, no 要不起 button; the hand says the bot passes);
    off: the 要不起 prompt."""
    state = _following(SEED)
    table = Table(-1, None, "en", options=TableOptions(auto_pass=auto_pass))
    table.seats = [Seat(1, "Ann"), Seat(2, "Bob"), Seat(3, "Cat")]
    table.reset_turn_memory()
    table.state = state
    view = state.view(1)
    assert views.passes_itself(table, view) is auto_pass
    assert views.is_prompted(table, view) is not auto_pass
    assert not views.passes_itself(table, state.view(2))  # not to act
    text, markup = views.hand_view(table, view, 30)
    labels = [b.text for row in (markup.inline_keyboard if markup else ()) for b in row]
    assert state.trick.play is not None
    cards = views.play_text(state.trick.play, "en")
    if auto_pass:
        assert text.splitlines()[-1] == t("hand.auto_pass", "en", cards=cards, name="Ann")
        assert labels == [t("btn.counter", "en"), t("btn.autoplay", "en"),
                          t("btn.last_trick", "en")]
        assert not any(line.startswith("Card counter: ") for line in text.splitlines())
    else:
        assert text.splitlines()[-1] == t("hand.cannot_beat", "en", cards=cards, name="Ann",
                                          seconds=30)
        assert labels == [t("btn.cannot_beat", "en"), t("btn.my_cards", "en"),
                          t("btn.autoplay", "en"), t("btn.last_trick", "en")]
