"""End to end: competitions at a group table (issue 11, RULES.md §10) through the fake Bot API.

Each test checks the standings the bot posts against its own computation from the engine's
results of the stored deals (points per deal summed, or chips moved as units × chip base with
losers paying at most what they hold, units being the points, or the points ÷ the bid when the
chip base is per deal), and that every bean moved by fees and prizes is a ledger row of the
match, summing to zero.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.core.i18n import t
from bot.core.table import DEAL
from bot.game.deal import result as deal_result
from bot.presentation.scenes import picture_labels
from bot.presentation.views import place_text
from bot.store import open_store
from engine import DealState, apply
from engine.ai import choose_action
from engine.match import prizes
from images.standings import StandingsRow, StandingsScene, render_standings
from tests.bot.flow_helpers import (
    LANG,
    Players,
    button_data,
    call_text,
    cannot_follow,
    hand_message,
    join_answers,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

#: A shuffle whose three deals (first bidders 0, 1, 2, every seat played by engine.ai's
#: normal level) end 2/-1/-1, 1/-2/1, -1/-1/2: seats 0 and 2 tie for first on 2 points; the
#: extra deal (first bidder 0 again) ends 2/-1/-1 and breaks the tie.
TIE_SEED = 115


async def open_match(api: FakeBotApi, app, title: str, command: str, names=("Ann", "Bob", "Cat"),
                     bots: int = 0, seed: int = TIE_SEED,
                     settings: dict | None = None) -> Players:
    """A new group (its ``settings`` stored first) where ``names[0]`` sent ``command`` and the
    others joined the lobby (and ``bots`` bot seats were added)."""
    app.bot_data.game.deal_seed = seed
    app.bot_data.game.first_bidder = 0
    users = [api.new_user(name) for name in names]
    players = Players(api, api.new_group(title), users)
    if settings:
        await app.bot_data.store.update_group_settings(players.group.id, **settings)
    for user in users:
        api.open_private_chat(user)
    await players.command(users[0], command)
    players.lobby = players.table_message()
    for user in users[1:]:
        answer = await players.click(user, players.lobby, t("btn.join", LANG))
        assert answer.params.get("text") in join_answers(), answer
    for _ in range(bots):
        await players.click(users[0], players.lobby, t("btn.add_bot", LANG))
    return players


async def set_option(players: Players, name: str, sign: str, times: int = 1) -> None:
    for _ in range(times):
        data = button_data(players.lobby, suffix=f":{name}{sign}")
        answer = await players.press(players.users[0], players.lobby, data)
        assert answer.params.get("text") in (t("match.pop_set", LANG), t("match.pop_limit", LANG))


async def old_numbers(players: Players) -> None:
    """A knock-out lobby back to the numbers before the defaults changed: the chip base per
    point, no rising base."""
    await set_option(players, "per", "+")
    await set_option(players, "rise", "-", 2)  # 5 → 3 → off
    assert t("match.opt_rise_off", LANG) in players.lobby.text


async def start(players: Players) -> None:
    await players.click(players.users[0], players.lobby, t("btn.start", LANG))


def key_of(players: Players) -> str:
    return f"{players.group.id}:0"


async def play_deals(players: Players, deals: int, *, before_last=None) -> None:
    """Play until ``deals`` more deals of the table have finished, every human seat deciding
    with ``engine.ai.choose_action`` through its buttons (bot seats play by themselves);
    ``before_last()`` is called before each human play that ends a deal."""
    tables = players.app.bot_data.tables
    store = players.app.bot_data.store
    key = key_of(players)
    done = 0
    current = None
    while done < deals:
        table = tables.get(key)
        if table is None:
            break
        if table.progress.deal_id != current:
            if current is not None:
                done += 1
                if done >= deals:
                    break
            current = table.progress.deal_id
        state = table.state
        if table.phase != DEAL or state is None or state.phase not in (
                "bidding", "doubling", "playing"):
            await asyncio.sleep(0.02)
            record = await store.get_deal(current) if current is not None else None
            if record is not None and record.status != "running" and tables.get(key) is None:
                done += 1
                break
            continue
        # the bot passes for a seat that cannot follow
        humans = [s for s in state.to_act if not table.seats[s].is_bot and not state.autoplay[s]
                  and not (table.options.auto_pass and cannot_follow(state, s))]
        if not humans:
            await asyncio.sleep(0.02)
            continue
        seat = humans[0]
        user = players.users[seat]
        drawn = f":{table.token}:{state.version}:"

        def ready(user=user, drawn=drawn):
            message = hand_message(players.api, user)
            return any(drawn in (b.callback_data or "") for b in message.buttons)

        await players.api.wait_for(ready, 10)
        players.state = state
        action = choose_action(state.view(seat))
        if before_last is not None and apply(state, action).phase == "finished":
            before_last()
        await players.act(action)
    await players.app.bot_data.outlet.caught_up()


async def match_deal_points(store, match_id: int, *,
                            bids: bool = False) -> list[tuple[int, ...]]:
    """The engine's points of every settled deal of the match, from the stored final states
    (with ``bids``: each deal's points followed by its base score)."""
    db = store._backend._db  # the test reads the deals table directly: an independent source
    rows = await db.execute_fetchall(
        "SELECT id FROM deals WHERE match_id = ? AND status = 'settled' ORDER BY id", (match_id,))
    points = []
    for (deal_id,) in rows:
        record = await store.get_deal(deal_id)
        result = DealState.from_json(record.state_json).result
        points.append(tuple(result.points) + ((result.base,) if bids else ()))
    return points


def chips_after(points: list[tuple[int, ...]], chips: int, base: int, *,
                per_deal: bool = False, left: int | None = None) -> list[int]:
    """Knock-out chips computed here: a loser pays min(owed, held); the winners share what was
    paid in proportion to what they were owed (no bot rule: everybody holds chips). With
    ``per_deal`` each deal is its points and its bid (:func:`match_deal_points` with ``bids``)
    and counts points ÷ bid. A seat that is out (no chips, or seat ``left`` after the first
    deal) pays and gets nothing in the deals after."""
    held = [chips] * 3
    out = [False] * 3
    for n, deal in enumerate(points):
        if per_deal:
            *deal, bid = deal
            if bid > 1 and all(p % bid == 0 for p in deal):
                deal = [p // bid for p in deal]
        owed = [-p * base if not o else 0 for p, o in zip(deal, out, strict=True)]
        paid = [min(o, h) if o > 0 else 0 for o, h in zip(owed, held, strict=True)]
        total = sum(paid)
        gains = [p * base if p > 0 and not o else 0 for p, o in zip(deal, out, strict=True)]
        total = min(total, sum(gains))
        paid, shares = _shares(total, paid), _shares(total, gains)
        held = [h - p + s for h, p, s in zip(held, paid, shares, strict=True)]
        out = [o or h <= 0 or (n == 0 and i == left)
               for i, (o, h) in enumerate(zip(out, held, strict=True))]
    return held


def _shares(total: int, weights: list[int]) -> list[int]:
    """``total`` split in proportion to ``weights``, the remainder by largest fractions."""
    if not sum(weights):
        return [0] * len(weights)
    shares = [total * w // sum(weights) for w in weights]
    order = sorted(range(len(weights)), key=lambda i: (-(total * weights[i] % sum(weights)), i))
    for i in order[:total - sum(shares)]:
        shares[i] += 1
    return shares


async def assert_pool_sums_to_zero(store, match_id: int, fee: int, humans: int) -> list:
    rows = await store.match_ledger(match_id)
    assert all(r.reason == "match" and r.match_id == match_id for r in rows)
    assert sum(r.amount for r in rows) == 0
    assert sorted(r.amount for r in rows if r.amount < 0) == [-fee] * humans
    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants and totals.pools == 0
    return rows


def final_post(api: FakeBotApi, players: Players) -> str:
    texts = [m.content for m in api.messages_in(players.group)]
    finals = [x for x in texts if x.startswith(t("match.over", LANG, format="").rstrip(" ·"))]
    assert finals, texts
    return finals[-1]


async def test_fixed_match_of_three_deals_with_a_tie_broken_by_an_extra_deal(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Card club", "/match 50")
    players.app = app
    lobby = players.lobby
    assert t("match.title", LANG, format=t("match.format_fixed", LANG)) in lobby.text
    assert t("match.opt_deals", LANG, n=9) in lobby.text
    await set_option(players, "deals", "-", 6)  # 9 → 3
    assert t("match.opt_deals", LANG, n=3) in lobby.text
    assert t("match.fee", LANG, fee=50, pool=150) in lobby.text
    # a stranger may not change the options
    stranger = fake_api.new_user("Zed")
    answer = await players.press(stranger, lobby, button_data(lobby, suffix=":deals+"))
    assert answer.params.get("text") == t("pop.only_opener", LANG)
    await start(players)
    (match,) = await store.running_matches()
    assert [await store.balance(u.id) for u in players.users] == [950, 950, 950]

    await play_deals(players, 4)
    points = await match_deal_points(store, match.match_id)
    assert points == [(4, -2, -2), (2, -4, 2), (-2, -2, 4), (4, -2, -2)]
    totals = [sum(p[i] for p in points) for i in range(3)]
    assert totals == [8, -10, 2]
    texts = [m.content for m in fake_api.messages_in(players.group)]
    assert any(t("match.extra_deal", LANG) in x for x in texts)
    # the standings under each deal's result, computed here from the engine's points
    heading = t("match.standings", LANG, format=t("match.format_fixed", LANG))
    shown = [x[x.index(heading):] for x in texts if heading in x]
    assert len(shown) == 4
    names = [u.first_name for u in players.users]
    for k, text in enumerate(shown, start=1):
        sums = [sum(p[i] for p in points[:k]) for i in range(3)]
        order = sorted(range(3), key=lambda i: (-sums[i], i))
        expected = [t("match.line", LANG, place=place_text(1 + sum(o > sums[i] for o in sums),
                                                           LANG),
                      name=names[i], score=t("match.points", LANG, n=f"{sums[i]:+d}"),
                      progress=t("match.deals_of", LANG, n=k, total=3) if k <= 3
                      else t("match.deals_extra", LANG, n=k - 3, total=3))
                    for i in order]
        assert text.splitlines()[1:4] == expected, (k, text)
    # a match deals on by itself: its results offer no Play again (issue 10 item 7)
    results = [m for m in fake_api.messages_in(players.group) if heading in m.content]
    assert len(results) == 4 and all(m.buttons == [] for m in results)
    assert t("btn.play_again", LANG) not in {b.text for m in fake_api.messages_in(
        players.group) for b in m.buttons}
    assert t("match.extra_deal", LANG) in shown[2] and t("match.extra_deal", LANG) not in shown[3]
    final = final_post(fake_api, players)
    assert t("match.champion", LANG, names="Ann") in final
    assert f"{place_text(1, LANG)} Ann · {t('match.points', LANG, n='+8')}" in final
    assert f"{place_text(2, LANG)} Cat · {t('match.points', LANG, n='+2')}" in final
    assert f"{place_text(3, LANG)} Bob · {t('match.points', LANG, n='-10')}" in final
    # 150 beans: 75 / 45 / 30
    assert [await store.balance(u.id) for u in players.users] == [1025, 980, 995]
    # the final standings are a picture too: the champion crowned, the prizes drawn
    words = picture_labels(LANG)
    extra = "3/3 +1"  # the picture's column is headed "Deals": the numbers only
    expected = StandingsScene(
        words.match_over.format(format=t("match.format_fixed", LANG)),
        (StandingsRow(1, "Ann", t("match.points", LANG, n="+8"), extra, prize=75),
         StandingsRow(2, "Cat", t("match.points", LANG, n="+2"), extra, prize=45),
         StandingsRow(3, "Bob", t("match.points", LANG, n="-10"), extra, prize=30)),
        final=True, labels=words)
    (final_message,) = [m for m in fake_api.messages_in(players.group) if m.content == final]
    assert final_message.photo and fake_api.file(final_message.photo) == render_standings(expected)
    # below the last deal's result, which (like every match result) offers no Play again
    assert final_message.message_id > max(m.message_id for m in results)
    assert not any(t("result.again_note", LANG, time="5 min") in m.content for m in results)
    # and each deal's result picture (646 px high for three seats) has the standings (366 px,
    # 52 more for the extra deal's note) drawn under it
    assert [m.photo_size[:2] for m in results] == [(1280, 1012)] * 2 + [(1280, 1064), (1280, 1012)]
    await assert_pool_sums_to_zero(store, match.match_id, 50, 3)
    assert (await store.get_match(match.match_id)).status == "finished"
    assert (await store.match_stats(players.users[0].id)).won == 1
    assert await store.running_deals() == []
    ann = players.users[0]
    await players.command(ann, "/me")
    assert t("me.matches", LANG, played=1, won=1) in fake_api.messages_in(players.group)[-1].text
    await players.command(players.users[1], "/top matches")
    board = fake_api.messages_in(players.group)[-1].text
    line = t("top.matches_line", LANG, rank=1, name="Ann", wins=1, games=1)
    assert board.count(line) == 2  # this week and all time
    assert "Bob" not in board


async def test_knockout_ends_when_a_player_is_out(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Chip room", "/knockout")
    players.app = app
    await set_option(players, "chips", "-", 2)  # 20 → 15 → 10
    await set_option(players, "base", "+", 4)  # 2 → 10
    assert t("match.opt_chips_deal", LANG, chips=10, base=10) in players.lobby.text
    await start(players)
    (match,) = await store.running_matches()
    await play_deals(players, 1)
    points = await match_deal_points(store, match.match_id, bids=True)
    assert len(points) == 1  # any result costs a farmer ≥ 10 chips: someone is out
    chips = chips_after(points, 10, 10, per_deal=True)
    assert min(chips) <= 0 and chips.count(max(chips)) == 1  # one leads: no extra deal
    record = await store.get_match(match.match_id)
    assert record.status == "finished"
    assert record.result["scores"] == chips
    final = final_post(fake_api, players)
    assert t("match.out", LANG) in final
    best = max(chips)
    champions = [u.first_name for u, c in zip(players.users, chips, strict=True) if c == best]
    assert t("match.champion", LANG, names=", ".join(champions)) in final
    await assert_pool_sums_to_zero(store, match.match_id, 0, 0)


#: A shuffle whose first deal (first bidder 0, the seats played by engine.ai's normal level)
#: the landlord, seat 0, loses: -2/1/1.
LANDLORD_LOSES_SEED = 103


async def test_a_knockout_tie_for_first_is_played_off(fake_api: FakeBotApi,
                                                      running_bot: BotRunner):
    """RULES.md §10.1 (seed 002: 每桌只能一名胜出; testers saw a bot crowned co-champion): the
    landlord loses every chip in the first deal and pays both farmers alike; they play extra
    deals until one leads, Ann's seat (out) played by the AI with its chips left alone."""
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Play-off", "/knockout", seed=LANDLORD_LOSES_SEED)
    players.app = app
    await set_option(players, "chips", "-", 2)  # 10
    await set_option(players, "base", "+", 4)  # 10 a deal: the landlord owes 20
    await set_option(players, "rise", "-", 2)  # off
    await start(players)
    (match,) = await store.running_matches()
    await play_deals(players, 1)
    points = await match_deal_points(store, match.match_id, bids=True)
    assert [p[:3] for p in points] == [(-2, 1, 1)]
    assert chips_after(points, 10, 10, per_deal=True) == [0, 15, 15]
    assert (await store.get_match(match.match_id)).status == "running"
    texts = [m.content for m in fake_api.messages_in(players.group)]
    assert any(t("match.extra_deal", LANG) in x for x in texts)
    table = app.bot_data.tables.get(key_of(players))
    assert table.seats[0].is_bot and not table.seats[1].is_bot  # out: the AI plays Ann's seat
    # the same cards every deal would make Ann's seat the losing landlord again and again (it
    # moves no chips: the tie stays); other cards from the deal after next
    app.bot_data.game.deal_seed = TIE_SEED
    await play_deals(players, 12)
    record = await store.get_match(match.match_id)
    points = await match_deal_points(store, match.match_id, bids=True)
    assert record.status == "finished", points
    chips = chips_after(points, 10, 10, per_deal=True)
    assert len(points) >= 2 and record.result["scores"] == chips
    assert chips[0] == 0 and chips[1] != chips[2] and sum(chips) == 30
    champion = "Bob" if chips[1] > chips[2] else "Cat"
    final = final_post(fake_api, players)
    assert t("match.champion", LANG, names=champion) in final
    assert record.result["places"][0] == 3


async def test_knockout_ends_on_its_time_limit(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    store = app.bot_data.store
    matches = app.bot_data.game.matches
    players = await open_match(fake_api, app, "Timed", "/knockout 100", seed=42)
    players.app = app
    await set_option(players, "time", "+", 3)  # 45 minutes
    await start(players)
    (match,) = await store.running_matches()
    started = matches.clock()
    matches.clock = lambda: started + 45 * 60 + 1  # the deal in progress is the last
    await play_deals(players, 1)
    points = await match_deal_points(store, match.match_id, bids=True)
    assert points == [(6, -3, -3, 3)]  # a bid of 3 costs what a bid of 1 does: 2 chips a pair
    chips = chips_after(points, 20, 2, per_deal=True)
    assert chips == [24, 18, 18]
    record = await store.get_match(match.match_id)
    assert record.status == "finished" and record.result["scores"] == chips
    final = final_post(fake_api, players)
    assert t("match.champion", LANG, names="Ann") in final
    # 300 beans: 150 to Ann, Bob and Cat share second: (90 + 60) / 2 each
    assert [await store.balance(u.id) for u in players.users] == [1050, 975, 975]
    await assert_pool_sums_to_zero(store, match.match_id, 100, 3)


async def test_a_match_with_bot_seats_shares_the_pool_among_humans_only(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Two and a bot", "/knockout 100",
                               names=("Ann", "Bob"), bots=1)
    players.app = app
    await old_numbers(players)
    await set_option(players, "chips", "-", 2)
    await set_option(players, "base", "+", 4)  # the fee 100: the pool is 200 (no bot pays)
    assert t("match.fee", LANG, fee=100, pool=200) in players.lobby.text
    await start(players)
    (match,) = await store.running_matches()
    assert match.pool == 200 and [s.is_bot for s in match.seats] == [False, False, True]
    await play_deals(players, 12)  # until it is over (a tie for first is played off)
    points = await match_deal_points(store, match.match_id)
    chips = chips_after(points, 10, 10)
    record = await store.get_match(match.match_id)
    assert record.status == "finished" and record.result["scores"] == chips
    ann, bob = chips[0], chips[1]
    expected = [140, 60] if ann > bob else [60, 140] if bob > ann else [100, 100]
    assert [await store.balance(u.id) for u in players.users] == \
        [900 + expected[0], 900 + expected[1]]
    await assert_pool_sums_to_zero(store, match.match_id, 100, 2)


async def test_a_restart_mid_match_resumes_the_deal_and_the_standings(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await open_match(fake_api, app, "Restart club", "/match")
    players.app = app
    await set_option(players, "deals", "-", 6)
    await start(players)
    await play_deals(players, 1)
    store = app.bot_data.store
    (match,) = await store.running_matches()
    table = app.bot_data.tables.get(key_of(players))
    state = table.state
    players.state = state
    await players.act(choose_action(state.view(state.to_act[0])))  # deal 2 has begun
    version = table.state.version

    app = await running_bot.restart()
    app.bot_data.game.deal_seed = TIE_SEED  # the test hook is the new process's
    players.app = app
    table = app.bot_data.tables.get(key_of(players))
    assert table.competition.match_id == match.match_id and table.state.version == version
    (turn,) = app.job_queue.get_jobs_by_name(f"turn:{table.key}")  # the timer is re-armed
    assert turn.next_t.timestamp() == pytest.approx(table.progress.deadline, abs=1e-5)
    await play_deals(players, 3)
    store = app.bot_data.store
    points = await match_deal_points(store, match.match_id)
    assert points == [(4, -2, -2), (2, -4, 2), (-2, -2, 4), (4, -2, -2)]
    record = await store.get_match(match.match_id)
    assert record.status == "finished" and record.result["scores"] == [8, -10, 2]


async def test_leaving_mid_match_forfeits_it(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Runaway", "/match 100")
    players.app = app
    await set_option(players, "deals", "-", 6)
    await start(players)
    (match,) = await store.running_matches()
    bob = players.users[1]
    await players.command(bob, "/leave")
    prompt = players.table_message()
    await players.press(bob, prompt, button_data(prompt, suffix=":yes1"))
    await play_deals(players, 3)
    record = await store.get_match(match.match_id)
    assert record.status == "finished"
    points = await match_deal_points(store, match.match_id)
    assert len(points) == 3
    totals = [sum(p[i] for p in points) for i in range(3)]
    assert record.result["scores"] == totals and record.result["forfeited"] == [False, True, False]
    assert record.result["places"][1] == 3  # the leaver is last
    final = final_post(fake_api, players)
    assert t("match.forfeited", LANG) in final
    rows = await assert_pool_sums_to_zero(store, match.match_id, 100, 3)
    assert all(r.amount < 0 for r in rows if r.user_id == bob.id)  # no prize for Bob
    assert app.bot_data.tables.table_of(bob.id) is None  # free to sit elsewhere


async def test_an_admin_cancels_a_match_and_every_fee_is_refunded_once(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Cancelled", "/match 100")
    players.app = app
    await start(players)
    (match,) = await store.running_matches()
    assert [await store.balance(u.id) for u in players.users] == [900, 900, 900]
    admin = players.users[2]
    fake_api.make_admin(players.group, admin)
    await players.command(admin, "/stop")
    await players.command(admin, "/stop")
    assert [await store.balance(u.id) for u in players.users] == [1000, 1000, 1000]
    record = await store.get_match(match.match_id)
    assert record.status == "cancelled"
    rows = await assert_pool_sums_to_zero(store, match.match_id, 100, 3)
    assert len(rows) == 6
    assert await store.running_deals() == []
    texts = [m.content for m in fake_api.messages_in(players.group)]
    assert any(t("match.cancelled_refund", LANG, name="Cat", pool=300) in x for x in texts)


async def test_a_player_who_cannot_pay_the_fee_cannot_start(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Short of beans", "/match 1000")
    players.app = app
    ann, bob, cat = players.users
    await store.update_group_settings(players.group.id, give_enabled=True)
    await store.give(bob.id, cat.id, 1, players.group.id)
    answer = await players.click(ann, players.lobby, t("btn.start", LANG))
    # a new user's report: the press said "The deal starts!" and the group then the refusal
    assert answer.params["text"] == t("match.need_fee", LANG, names="Bob", fee="1,000")
    assert answer.params["text"] != t("lobby.starting", LANG)
    await fake_api.wait_for(lambda: any(
        t("match.need_fee", LANG, names="Bob", fee="1,000") in m.content
        for m in fake_api.messages_in(players.group)), 5)
    assert await store.running_matches() == []
    assert [await store.balance(u.id) for u in players.users] == [1000, 999, 1001]
    table = app.bot_data.tables.get(key_of(players))
    assert table.phase == "lobby" and table.competition.match_id is None
    await set_option(players, "fee", "-")  # 500: everyone can pay now
    await start(players)
    (match,) = await store.running_matches()
    assert [await store.balance(u.id) for u in players.users] == [500, 499, 501]
    assert match.pool == 1500


async def test_leaving_a_knockout_puts_the_leaver_out_at_once(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Knock-out runaway", "/knockout 20")
    players.app = app
    await set_option(players, "chips", "+", 3)  # 100 chips: nobody is out by points alone
    await start(players)
    (match,) = await store.running_matches()
    cat = players.users[2]
    await players.command(cat, "/leave")
    prompt = players.table_message()
    assert t("match.leave_warning", LANG) in prompt.text
    await players.press(cat, prompt, button_data(prompt, suffix=":yes2"))
    await play_deals(players, 12)  # until it is over (Ann and Bob may tie: they play it off)
    record = await store.get_match(match.match_id)
    assert record.status == "finished"
    points = await match_deal_points(store, match.match_id, bids=True)
    chips = chips_after(points, 100, 2, per_deal=True, left=2)
    assert record.result["scores"] == chips and min(chips) > 0  # out by leaving, not by chips
    assert record.result["forfeited"] == [False, False, True]
    assert record.result["places"][2] == 3
    final = final_post(fake_api, players)
    assert t("match.forfeited", LANG) in final
    ann, bob = chips[0], chips[1]
    prizes = [42, 18] if ann > bob else [18, 42] if bob > ann else [30, 30]  # 60: 50+20 / 30
    assert [await store.balance(u.id) for u in players.users] == \
        [980 + prizes[0], 980 + prizes[1], 980]
    await assert_pool_sums_to_zero(store, match.match_id, 20, 3)


async def test_a_restart_right_after_a_match_deal_was_settled_deals_the_next_one(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """The table was last stored in its deal, whose settlement (with the match's state) was
    committed just before the bot went down: the match goes on with its next deal."""
    app = running_bot.app
    players = await open_match(fake_api, app, "Power cut", "/match")
    players.app = app
    await set_option(players, "deals", "-", 6)
    await start(players)
    store = app.bot_data.store
    key = key_of(players)
    stored_in_deal_1 = (await store.load_tables())[key]
    await play_deals(players, 1)
    (match,) = await store.running_matches()
    (running,) = await store.running_deals()  # deal 2 has begun
    await running_bot.stop()
    # as if the bot went down between settling deal 1 and storing its table again
    store = await open_store(running_bot.settings.database)
    await store.cancel_deal(running.deal_id)
    await store.save_table(key, stored_in_deal_1)
    await store.close()

    app = await running_bot.start()  # deals deal 2 again (a new shuffle: the hook is unset)
    players.app = app
    table = app.bot_data.tables.get(key)
    assert table is not None and table.competition.match_id == match.match_id
    assert table.phase == DEAL
    assert table.progress.deal_id not in (stored_in_deal_1["deal_id"], running.deal_id)
    await play_deals(players, 12)  # until the match is over (extra deals included)
    store = app.bot_data.store
    record = await store.get_match(match.match_id)
    assert record.status == "finished"
    points = await match_deal_points(store, match.match_id)
    assert len(points) >= 3 and points[0] == (4, -2, -2)  # deal 1 counted once
    assert record.result["scores"] == [sum(p[i] for p in points) for i in range(3)]
    assert (await store.get_deal(running.deal_id)).status == "cancelled"


async def test_the_entry_fee_can_be_typed_and_bad_numbers_are_refused(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    ann = fake_api.new_user("Ann")
    group = fake_api.new_group("Typed fee")
    players = Players(fake_api, group, [ann])
    fake_api.open_private_chat(ann)
    fee_range = t("match.typed_range", LANG, option=t("match.btn_fee", LANG), low=0,
                  high=1000000)
    usage = t("match.usage", LANG, command="/match", high=1000000,
              names="deals=, time=, redeal=, prizes=", example="/match 100 deals=6 time=15")
    for bad, answer in (("/match -5", fee_range), ("/match 1e3", fee_range),
                        ("/knockout 1000001", fee_range), ("/match 5 6", usage),
                        ("/match chips=15", usage), ("/match 5 fee=6", usage)):
        await players.command(ann, bad)
        assert fake_api.messages_in(group)[-1].text == answer, bad
    assert app.bot_data.tables.get(f"{group.id}:0") is None
    await players.command(ann, "/knockout 250")
    lobby = players.table_message()
    assert t("match.fee", LANG, fee=250, pool=250) in lobby.text


async def test_knockout_options_can_be_typed_and_bad_ones_are_refused_with_their_range(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """``/knockout 100 chips=15 out=5`` (seed 000 starts at 15, seed 003 out below a value);
    a value out of its range is answered with the range and opens nothing."""
    app = running_bot.app
    ann = fake_api.new_user("Ann")
    group = fake_api.new_group("Typed options")
    players = Players(fake_api, group, [ann])
    fake_api.open_private_chat(ann)

    def refusal(option: str, low: int, high: int) -> str:
        return t("match.typed_range", LANG, option=t(f"match.btn_{option}", LANG), low=low,
                 high=high)

    for bad, answer in (
            ("/knockout chips=300", refusal("chips", 5, 200)),
            ("/knockout chips=4", refusal("chips", 5, 200)),
            ("/knockout 10 chips=15 out=16", refusal("out", 1, 15)),
            ("/knockout out=0", refusal("out", 1, 200)),
            ("/knockout per=hand", t("match.typed_words", LANG, option=t("match.btn_per", LANG),
                                     words="point, deal")),
            ("/knockout colour=red", t("match.usage", LANG, command="/knockout",
                                       high=1000000, names="chips=, base=, per=, out=, time=, "
                                       "rise=, redeal=, prizes=",
                                       example="/knockout 100 chips=15 out=5"))):
        await players.command(ann, bad)
        assert fake_api.messages_in(group)[-1].text == answer, bad
    assert app.bot_data.tables.get(f"{group.id}:0") is None
    await players.command(ann, "/knockout 100 chips=15 out=5 rise=0")
    lobby = players.table_message().text
    assert t("match.opt_chips_deal", LANG, chips=15, base=2) in lobby
    assert t("match.opt_out", LANG, n=5) in lobby and t("match.opt_rise_off", LANG) in lobby
    assert t("match.fee", LANG, fee=100, pool=100) in lobby
    table = app.bot_data.tables.get(f"{group.id}:0")
    match_options = table.competition.match_options
    assert match_options["chips"] == 15 and match_options["threshold"] == 5


async def test_a_settings_change_during_a_match_counts_from_the_next_match(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """QA round 5: an admin switches the group to four players and rob bidding while a
    three-seat match runs. Every deal of the match keeps the seats and rules it started with
    (before, the next deal dealt four hands to three seats and the match stopped on an
    IndexError with the pool held), across a restart between deals too."""
    app = running_bot.app
    players = await open_match(fake_api, app, "Steady rules", "/match")
    players.app = app
    ann = players.users[0]
    fake_api.make_admin(players.group, ann)
    await set_option(players, "deals", "-", 6)
    await start(players)
    store = app.bot_data.store
    (match,) = await store.running_matches()
    await players.command(ann, "/settings players 4")
    await players.command(ann, "/settings bidding rob")
    await play_deals(players, 1)
    app = await running_bot.restart()
    app.bot_data.game.deal_seed = TIE_SEED
    players.app = app
    await play_deals(players, 3)
    store = app.bot_data.store
    record = await store.get_match(match.match_id)
    assert record.status == "finished"
    points = await match_deal_points(store, match.match_id)
    assert points == [(4, -2, -2), (2, -4, 2), (-2, -2, 4), (4, -2, -2)]
    rows = await store._backend._db.execute_fetchall(
        "SELECT id FROM deals WHERE match_id = ?", (match.match_id,))
    for (deal_id,) in rows:
        rules = (await store.get_deal(deal_id)).rules
        assert rules["seats"] == 3 and rules["bidding"] == "score", rules


async def test_the_fee_is_not_raised_under_players_who_joined(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Attack: the opener pressed fee+ three times and Start at once, and players who had
    joined at 100 beans paid 1,000 each. Alone the opener sets any fee; once a player joined
    it can be lowered, not raised, and the Start takes the fee they joined at."""
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Raised", "/match 100", names=("Ann",))
    players.app = app
    await set_option(players, "fee", "+")  # 200: nobody else sits yet
    await set_option(players, "fee", "-")  # 100
    bob, cat = fake_api.new_user("Bob"), fake_api.new_user("Cat")
    players.users += [bob, cat]
    for user in (bob, cat):
        fake_api.open_private_chat(user)
        answer = await players.click(user, players.lobby, t("btn.join", LANG))
        assert answer.params.get("text") in join_answers()
    for _ in range(3):
        data = button_data(players.lobby, suffix=":fee+")
        answer = await players.press(players.users[0], players.lobby, data)
        assert answer.params.get("text") == t("match.pop_fee_fixed", LANG)
        assert answer.params.get("show_alert") is True
    table = app.bot_data.tables.get(key_of(players))
    assert table.competition.match_options["entry_fee"] == 100
    await app.bot_data.outlet.caught_up()
    assert t("match.fee", LANG, fee=100, pool=300) in players.lobby.text
    await start(players)
    (match,) = await store.running_matches()
    assert match.pool == 300 and match.entry_fee == 100
    assert [await store.balance(u.id) for u in players.users] == [900, 900, 900]


async def test_a_match_between_two_deals_keeps_its_table_when_its_worker_died(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Attack: the worker died between two deals of a match (its table in the result phase,
    the result due, no Play again offered: it looked free), and anyone's /newgame replaced
    it; the pool stayed frozen until a restart refunded it. The table stays the match's: the
    /newgame is refused, and the worker that takes the table over deals on."""
    app = running_bot.app
    store = app.bot_data.store
    matches = app.bot_data.game.matches
    players = await open_match(fake_api, app, "Orphan", "/match 100")
    players.app = app
    await set_option(players, "deals", "-", 6)
    died = asyncio.Event()
    outlet = app.bot_data.game.ctx.outlet
    post = outlet.post

    def dead(key, *args, **kwargs) -> None:  # the worker dies right after the settlement
        if key.endswith("#result"):
            died.set()
        else:
            post(key, *args, **kwargs)

    outlet.post = dead
    await start(players)
    (match,) = await store.running_matches()
    playing = asyncio.create_task(play_deals(players, 1))
    await asyncio.wait_for(died.wait(), 30)
    playing.cancel()
    await app.bot_data.outlet.caught_up()
    table = app.bot_data.tables.get(key_of(players))
    assert table.phase == "result" and table.competition.match_id == match.match_id
    assert table.progress.result_due and not table.again_offered()
    stranger = fake_api.new_user("Zed")
    fake_api.open_private_chat(stranger)
    await players.command(stranger, "/newgame")
    assert fake_api.messages_in(players.group)[-1].text == t("reply.match_running", LANG)
    assert app.bot_data.tables.get(key_of(players)) is table
    assert app.bot_data.tables.table_of(stranger.id) is None
    assert (await store.get_match(match.match_id)).status == "running"
    assert [await store.balance(u.id) for u in players.users] == [900, 900, 900]
    outlet.post = post  # the watchdog's worker takes the table over
    async with app.bot_data.tables.lock(table.key):
        await matches.resume(table)
    await fake_api.wait_for(lambda: table.phase == DEAL, 10)  # once the result was sent
    assert table.competition.match_id == match.match_id
    assert len(await match_deal_points(store, match.match_id)) == 1


async def test_a_match_deals_on_only_once_a_deals_result_that_failed_to_send_was_posted(
    fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch
):
    """The first deal's result fails to send: it is posted again, and the match's next deal is
    dealt only after it (before, the match waited 30 s, dealt on and the result was lost)."""
    monkeypatch.setattr(deal_result, "RESULT_RETRY_SECONDS", 0.5)
    app = running_bot.app
    players = await open_match(fake_api, app, "Lost post", "/match")
    players.app = app
    await set_option(players, "deals", "-", 6)  # 9 → 3
    await start(players)
    heading = t("match.standings", LANG, format=t("match.format_fixed", LANG))

    def results() -> list:
        return [c for c in fake_api.calls if c.ok and c.method in ("sendMessage", "sendPhoto")
                and c.params.get("chat_id") == players.group.id and heading in call_text(c)]

    def fail_the_result() -> None:
        if not results():
            pictured = app.bot_data.tables.get(key_of(players)).options.pictures
            fake_api.fail_next("sendPhoto" if pictured else "sendMessage", 500,
                               chat=players.group)

    await play_deals(players, 1, before_last=fail_the_result)
    await fake_api.wait_for(lambda: results() or None, 10)
    failed = [c for c in fake_api.calls if not c.ok and c.params.get("chat_id") == players.group.id
              and heading in call_text(c)]
    assert len(failed) == 1
    (posted,) = results()
    table = app.bot_data.tables.get(key_of(players))
    await fake_api.wait_for(
        lambda: table.phase == DEAL and table.messages.message_id is not None, 10)
    # the next deal, below the result
    assert table.messages.message_id > posted.result["message_id"]
    assert t("match.deals_of", LANG, n=1, total=3) in call_text(posted)


# --- Fixed deals up to 18 with a time limit; the first-to-N match; prize tables -----------------


async def assert_paid_once(store, match_id: int, fee: int, prizes: list[int]) -> None:
    """Every fee in is a prize out: the match's ledger rows are the fees and exactly these
    prizes (one row each, none twice), summing to zero."""
    rows = await assert_pool_sums_to_zero(store, match_id, fee, len(prizes))
    assert sorted(r.amount for r in rows if r.amount > 0) == sorted(p for p in prizes if p)
    assert sum(prizes) == fee * len(prizes)


async def test_a_fixed_match_of_18_deals_ends_on_its_time_limit(fake_api: FakeBotApi,
                                                                running_bot: BotRunner):
    """Seed 000's final plays 18 deals, seed 001 has 15 minutes: the deal in progress when the
    time is up is the last, and its points decide."""
    app = running_bot.app
    store = app.bot_data.store
    matches = app.bot_data.game.matches
    players = await open_match(fake_api, app, "Timed final", "/match 100 deals=18", seed=42)
    players.app = app
    assert t("match.opt_deals", LANG, n=18) in players.lobby.text
    assert t("match.opt_time_off", LANG) in players.lobby.text
    await set_option(players, "time", "+")  # off → 15 minutes
    assert t("match.opt_time", LANG, minutes=15) in players.lobby.text
    await start(players)
    (match,) = await store.running_matches()
    assert match.options["deals"] == 18 and match.options["time_limit"] == 15
    started = matches.clock()
    matches.clock = lambda: started + 15 * 60  # the deal in progress is the last
    await play_deals(players, 1)
    points = await match_deal_points(store, match.match_id)
    assert points == [(6, -3, -3)]
    record = await store.get_match(match.match_id)
    assert record.status == "finished" and record.result["scores"] == [6, -3, -3]
    final = final_post(fake_api, players)
    assert t("match.champion", LANG, names="Ann") in final
    assert t("match.deals_of", LANG, n=1, total=18) in final
    # 300 beans: 150 to Ann; Bob and Cat share second, (90 + 60) / 2 each
    assert [await store.balance(u.id) for u in players.users] == [1050, 975, 975]
    await assert_paid_once(store, match.match_id, 100, [150, 75, 75])
    assert app.bot_data.tables.get(key_of(players)) is None


def first_to_over(points: list[tuple[int, ...]], target: int) -> list[bool]:
    """This test's own rule of the first-to match, per deal played: over once a seat's total
    reached the target after some deal and one seat leads alone."""
    totals, reached, over = [0, 0, 0], False, []
    for deal in points:
        totals = [a + b for a, b in zip(totals, deal, strict=True)]
        reached = reached or max(totals) >= target
        over.append(reached and totals.count(max(totals)) == 1)
    return over


async def test_a_first_to_match_ends_when_a_seat_reaches_the_target_across_a_restart(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Seed 000: 先得30分者胜出. /firstto opens its lobby (target 30, buttons down to 10); a
    restart after the first deal resumes it with its stored target; it ends after the deal in
    which a seat reached 10 and leads alone, and the pool is paid once."""
    app = running_bot.app
    store = app.bot_data.store
    players = await open_match(fake_api, app, "Race", "/firstto 60")
    players.app = app
    lobby = players.lobby
    assert t("match.title", LANG, format=t("match.format_first_to", LANG)) in lobby.text
    assert t("match.opt_target", LANG, n=30) in lobby.text
    assert t("match.opt_deals", LANG, n=9) not in lobby.text
    labels = {b.text for b in lobby.buttons}
    assert f"{t('match.btn_target', LANG)} +" in labels and f"{t('match.btn_deals', LANG)} +" \
        not in labels
    await set_option(players, "target", "-", 3)  # 30 → 20 → 15 → 10
    assert t("match.opt_target", LANG, n=10) in players.lobby.text
    await start(players)
    (match,) = await store.running_matches()
    assert match.format == "fixed" and match.options["target"] == 10
    await play_deals(players, 1)
    assert await match_deal_points(store, match.match_id) == [(4, -2, -2)]  # not yet at 10
    app = await running_bot.restart()
    app.bot_data.game.deal_seed = TIE_SEED
    players.app = app
    store = app.bot_data.store
    table = app.bot_data.tables.get(key_of(players))
    assert table.competition.match_id == match.match_id
    assert table.competition.match_options["target"] == 10
    await play_deals(players, 30)
    record = await store.get_match(match.match_id)
    points = await match_deal_points(store, match.match_id)
    over = first_to_over(points, 10)
    assert record.status == "finished" and len(points) >= 2, points
    assert over[-1] and not any(over[:-1]), points  # ended with the first deal that decided
    totals = [sum(p[i] for p in points) for i in range(3)]
    assert record.result["scores"] == totals
    names = [u.first_name for u in players.users]
    champion = names[totals.index(max(totals))]
    final = final_post(fake_api, players)
    assert t("match.over", LANG, format=t("match.format_first_to", LANG)) in final
    assert t("match.champion", LANG, names=champion) in final
    places = [1 + sum(o > s for o in totals) for s in totals]
    paid = prizes(180, places)
    assert [await store.balance(u.id) for u in players.users] == [940 + p for p in paid]
    await assert_paid_once(store, match.match_id, 60, paid)


async def test_a_prize_table_is_typed_shown_and_paid_and_a_bad_one_is_refused(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    ann = fake_api.new_user("Ann")
    group = fake_api.new_group("Prize table")
    refusals = Players(fake_api, group, [ann])
    fake_api.open_private_chat(ann)
    for bad, key, fields in (
            ("/match 100 prizes=60,30", "prizes.bad_sum", {"total": 90}),
            ("/knockout prizes=30,70", "prizes.bad_order", {"place": 2, "share": 70,
                                                            "above": 30}),
            ("/firstto prizes=" + ",".join(["10"] * 11), "prizes.bad_places", {"places": 11}),
            ("/match prizes=50,50,0", "prizes.bad_share", {"place": 3, "share": 0}),
            ("/match prizes=half", "prizes.bad_text", {"word": "half"})):
        await refusals.command(ann, bad)
        assert fake_api.messages_in(group)[-1].text == t(key, LANG, **fields), bad
    assert app.bot_data.tables.get(f"{group.id}:0") is None and await store.running_matches() == []

    players = await open_match(fake_api, app, "Two prizes", "/match 100 deals=3 prizes=60,40")
    players.app = app
    split = t("match.split", LANG, split=f"{place_text(1, LANG)} 60% · {place_text(2, LANG)} 40%")
    assert split in players.lobby.text
    await start(players)
    (match,) = await store.running_matches()
    assert match.options["prizes"] == [60, 40]
    await play_deals(players, 4)  # three deals and the extra deal of the tie for first
    record = await store.get_match(match.match_id)
    assert record.status == "finished" and record.result["scores"] == [8, -10, 2]
    final = final_post(fake_api, players)
    assert t("match.prize", LANG, beans=180) in final and t("match.prize", LANG, beans=120) in final
    # 300 beans: 60 % to Ann (first), 40 % to Cat (second), nothing to Bob (third)
    assert [await store.balance(u.id) for u in players.users] == [1080, 900, 1020]
    await assert_paid_once(store, match.match_id, 100, [180, 0, 120])
