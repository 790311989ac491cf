"""End to end through the fake Bot API: the group settings ``redeal_rule`` (RULES.md §2.3, all
pass again and again) and ``winner_bids_first`` (RULES.md §1.4 option).

* ``forced_bid``: after two all-pass deals in a row the third deal's first bidder has no pass
  button, a forged pass is refused, and the group's table says who must bid.
* ``penalty``: the third all-pass deal in a row at a bean table is settled: the first bidder
  pays 4 points × stake, the others get 2 × stake each, as ledger rows of that deal summing to
  zero, and the result says why.
* ``redeal`` (the default): a table that redeals :data:`bot.game.deal.dealing.MAX_REDEALS`
  times in a row closes, nobody paying, and tells the group in a message of its own.
* A match plays ``forced_bid`` unless the group chose another rule, or the match its own
  (``/match redeal=penalty``, the lobby's redeal button; none at four players).
* ``winner_bids_first``: after Play again the last deal's winner bids first, not the next seat.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.core.i18n import t
from bot.core.rooms import room_stake
from bot.game.deal import dealing
from engine import SCORE, Action, new_deal
from tests.bot.economy_helpers import reply
from tests.bot.flow_helpers import (
    LANG,
    Players,
    button_data,
    hand_message,
    play_again,
    result_message,
)
from tests.bot.test_e2e_matches import match_deal_points, open_match
from tests.bot.test_e2e_matches import start as start_match
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

SEED = 11


async def _table(api: FakeBotApi, app, title: str, setting: str | None, *,
                 pictures: bool = False) -> Players:
    """Three players at a new group's table whose first deal has just started, seat 0 (Ann, an
    admin) bidding first, after Ann sent ``/settings <setting>`` (if any); text messages unless
    ``pictures``."""
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = api.new_group(title)
    users = [api.new_user(name) for name in ("Ann", "Bob", "Cat")]
    players = Players(api, group, users)
    api.make_admin(group, users[0])
    await app.bot_data.store.update_group_settings(group.id, pictures=pictures)
    if setting is not None:
        key = setting.split()[0]
        saved = await reply(api, users[0], group, f"/settings {setting}")
        assert t(f"set.name.{key}", LANG) in saved, saved
    lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], lobby, t("btn.start", LANG))
    return players


async def _all_pass(players: Players, app, rules, deal_number: int) -> None:
    """Everybody passes the deal ``deal_number`` (0-based) of a run of all-pass deals."""
    players.state = new_deal(rules, seed=SEED + deal_number, first_bidder=0,
                             all_passed=deal_number)
    for seat in (0, 1, 2):
        await players.act(Action("pass", seat))


async def test_forced_bid_the_third_deal_first_bidder_cannot_pass(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await _table(fake_api, app, "Forced", "redeal_rule forced_bid")
    ann = players.users[0]
    rules = SCORE.with_options(redeal_rule="forced_bid")
    table = app.bot_data.tables.table_of(ann.id)
    assert table.state.rules.redeal_rule == "forced_bid"
    for number in (0, 1):
        await _all_pass(players, app, rules, number)

    # the third deal: Ann bids first, with 2 and 3 only
    message = await players.prompt(ann, suffix=":bid2")
    table = app.bot_data.tables.table_of(ann.id)
    assert table.state.all_passed == 2 and table.state.bidding.must_bid == 0
    datas = [b.callback_data for b in message.buttons if b.callback_data]
    bid2 = button_data(message, suffix=":bid2")
    assert any(d.endswith(":bid3") for d in datas)
    assert not any(d.endswith((":pass", ":bid1")) for d in datas), datas
    must = t("hand.must_bid_bid", LANG, seconds=0).split(" · ")[0]
    assert must in message.content.splitlines()[-1]
    labels = [b.text for b in message.buttons]
    assert t("btn.no_bid", LANG) not in labels
    # the group's table says who must bid
    group_table = players.table_message()
    assert t("table.must_bid_score", LANG, name="Ann") in group_table.content
    # a forged pass is refused politely and changes nothing
    version = table.state.version
    forged = bid2[: -len("bid2")] + "pass"
    answer = await players.press(ann, message, forged)
    assert answer.params["text"] == t("illegal.must_bid", LANG) and answer.params["show_alert"]
    assert table.state.version == version and table.state.phase == "bidding"
    # Ann bids 2; the others pass: Ann is the landlord at base 2, nobody is dealt again
    players.state = new_deal(rules, seed=SEED + 2, first_bidder=0, all_passed=2)
    await players.act(Action("bid", 0, value=2))
    await players.act(Action("pass", 1))
    await players.act(Action("pass", 2))
    await fake_api.wait_for(lambda: table.state.phase == "playing" or None)
    assert (table.state.landlord, table.state.base, table.progress.redeals) == (0, 2, 0)


async def test_penalty_the_third_all_pass_deal_costs_the_first_bidder_4_points(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    players = await _table(fake_api, app, "Penalty", "redeal_rule penalty", pictures=True)
    ann, bob, cat = players.users
    rules = SCORE.with_options(redeal_rule="penalty")
    stake = room_stake({"stake_tier": "beginner"}).stake
    before = {u.id: (await store.get_player(u.id)).balance for u in players.users}
    since = len(fake_api.calls)
    for number in (0, 1, 2):
        await _all_pass(players, app, rules, number)

    result = await result_message(fake_api, players.group, since=since)
    assert t("result.all_pass_penalty", LANG, name="Ann", lost=4, won=2) in result.content
    assert result.photo is None  # no winner, no cards played: the result is text
    assert [b.text for b in result.buttons] == [t("btn.play_again", LANG), t("btn.leave", LANG)]
    table = app.bot_data.tables.get(f"{players.group.id}:0")
    deal_id = table.progress.deal_id
    assert table.state.result.points == (-4, 2, 2)
    rows = {u.id: [r for r in await store.ledger(u.id) if r.reason == "deal"]
            for u in players.users}
    amounts = {user_id: [(r.amount, r.deal_id) for r in found] for user_id, found in rows.items()}
    assert amounts == {ann.id: [(-4 * stake, deal_id)], bob.id: [(2 * stake, deal_id)],
                       cat.id: [(2 * stake, deal_id)]}
    assert sum(r.amount for found in rows.values() for r in found) == 0
    for user in players.users:
        (row,) = rows[user.id]
        balance = (await store.get_player(user.id)).balance
        assert row.balance_after == balance == before[user.id] + row.amount
    record = await store.get_deal(deal_id)
    assert record.result is not None and list(record.result["points"]) == [-4, 2, 2]
    # Play again: the next seat bids first in a fresh deal, and the count starts again
    answers = await play_again(players, result)
    assert answers[-1].params["text"] == t("lobby.starting", LANG)
    table = app.bot_data.tables.table_of(ann.id)
    assert table.state.first_bidder == 1 and table.state.all_passed == 0


async def test_winner_bids_first_the_next_deal_starts_with_the_last_winner(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await _table(fake_api, app, "Winner", "winner_bids_first on")
    api = players.api
    ann = players.users[0]
    table = app.bot_data.tables.table_of(ann.id)
    assert table.state.rules.winner_bids_first
    # Ann bids 3 and everybody goes on auto-play: the seeds' rule lets the landlord play out
    # alone (as in test_e2e_again)
    players.state = table.state
    start = len(api.calls)
    await players.act(Action("bid", 0, value=3))
    for user in players.users:
        await players.click(user, hand_message(api, user), t("btn.autoplay", LANG))
    result = await result_message(api, players.group, 15, since=start)
    table = app.bot_data.tables.get(f"{players.group.id}:0")
    winner = table.state.counts.index(0)
    # without the option the first bidder would rotate from Ann (0) to Bob (1)
    assert winner != 1, "pick a deal whose winner is not the next seat"
    answers = await play_again(players, result)
    assert answers[-1].params["text"] == t("lobby.starting", LANG)
    table = app.bot_data.tables.table_of(ann.id)
    assert table.progress.first_bidder == winner and table.state.to_act == (winner,)


async def test_redeal_the_safety_valve_closes_the_table_and_says_so_in_the_group(
    fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(dealing, "MAX_REDEALS", 2)  # the valve (10) sooner
    app = running_bot.app
    players = await _table(fake_api, app, "Valve", None)
    ann = players.users[0]
    table = app.bot_data.tables.table_of(ann.id)
    assert table.state.rules.redeal_rule == "redeal"
    deal_id = table.progress.deal_id
    since = len(fake_api.calls)
    await _all_pass(players, app, SCORE, 0)
    await fake_api.wait_for(lambda: table.progress.deal_id != deal_id or None)
    await _all_pass(players, app, SCORE, 1)
    told = t("table.no_bids_score", LANG, n=2)
    said = await fake_api.wait_for("sendMessage", since=since, chat_id=players.group.id,
                                   text=told)
    assert said.ok
    await fake_api.wait_for(lambda: app.bot_data.tables.table_of(ann.id) is None or None)
    for user in players.users:
        assert [r for r in await app.bot_data.store.ledger(user.id) if r.reason == "deal"] == []


async def test_a_match_plays_forced_bid_unless_the_group_chose_a_redeal_rule(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """RULES.md §2.3: ``forced_bid`` is the default at matches; the group's own choice, made
    before the match lobby opens, is the lobby's rule (and its text says so)."""
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Match rules", "/match")
    assert "All pass again: 3rd deal: must bid" in players.lobby.text
    await start_match(players)
    (match,) = await store.running_matches()
    table = app.bot_data.tables.get(f"{players.group.id}:0")
    assert table.state.rules.redeal_rule == "forced_bid"
    assert (await store.get_deal(table.progress.deal_id)).rules["redeal_rule"] == "forced_bid"

    chosen = await open_match(fake_api, app, "Chosen rules", "/match",
                              names=("Dan", "Eve", "Fay"), settings={"redeal_rule": "redeal"})
    assert "All pass again: Redeal" in chosen.lobby.text
    await start_match(chosen)
    table = app.bot_data.tables.get(f"{chosen.group.id}:0")
    assert table.state.rules.redeal_rule == "redeal"


async def test_a_match_opened_with_redeal_penalty_scores_its_third_all_pass_deal(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """RULES.md §2.3 as a match option: ``/match redeal=penalty`` in a group that left the
    rule at its default (``forced_bid`` in matches): the lobby says so, the deals are played
    under ``penalty`` (the deal's rules, as stored), and three all-pass deals in a row score the
    third (−4 for the first bidder, +2 each for the others) in the match's standings."""
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Penalty match", "/match redeal=penalty")
    assert "All pass again: 3rd deal: -4 / +2" in players.lobby.text
    await start_match(players)
    (match,) = await store.running_matches()
    assert match.options["redeal_rule"] == "penalty"
    key = f"{players.group.id}:0"
    table = app.bot_data.tables.get(key)
    assert table.state.rules.redeal_rule == "penalty"
    assert (await store.get_deal(table.progress.deal_id)).rules["redeal_rule"] == "penalty"
    players.app = app
    for deal_number in range(3):
        await fake_api.wait_for(lambda n=deal_number: (
            (now := app.bot_data.tables.get(key)) is not None and now.state is not None
            and now.state.phase == "bidding" and now.state.all_passed == n) or None)
        table = app.bot_data.tables.get(key)
        assert table.state.rules.redeal_rule == "penalty"
        first = table.state.first_bidder
        players.state = table.state
        for offset in range(3):
            await players.act(Action("pass", (first + offset) % 3))
    expected = tuple(-4 if seat == first else 2 for seat in range(3))
    for _ in range(200):
        points = await match_deal_points(store, match.match_id)
        if points:
            break
        await asyncio.sleep(0.02)
    assert points == [expected], points


async def test_the_redeal_button_cycles_after_players_joined_and_four_players_have_none(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """The lobby's redeal button (RULES.md §2.3) cycles the three rules, also after players
    joined (it moves no beans), and the lobby text shows each; a four-player group's match has
    no button, and ``redeal=`` typed there is refused politely, nothing opened."""
    app = running_bot.app
    players = await open_match(fake_api, app, "Cycle", "/match")
    texts = []
    for _ in range(3):
        data = button_data(players.lobby, suffix=":redeal+")
        answer = await players.press(players.users[1], players.lobby, data)  # not the opener
        assert answer.params.get("text") == t("pop.only_opener", LANG)
        answer = await players.press(players.users[0], players.lobby, data)
        assert answer.params.get("text") == t("match.pop_set", LANG)
        players.lobby = players.table_message()
        texts.append(next(line for line in players.lobby.text.split("\n")
                          if line.startswith("All pass again")))
    assert texts == ["All pass again: 3rd deal: -4 / +2", "All pass again: Redeal",
                     "All pass again: 3rd deal: must bid"]

    four = await open_match(fake_api, app, "Four", "/match", names=("Dan", "Eve", "Fay", "Gus"),
                            settings={"players": 4})
    assert "All pass again" not in four.lobby.text
    assert not any((b.callback_data or "").endswith(":redeal+") for b in four.lobby.buttons)
    gus = fake_api.new_user("Hal")
    group = fake_api.new_group("Four typed")
    await app.bot_data.store.update_group_settings(group.id, players=4)
    said = await reply(fake_api, gus, group, "/match redeal=penalty")
    assert said == t("match.redeal_four", LANG)
    assert app.bot_data.tables.get(f"{group.id}:0") is None
