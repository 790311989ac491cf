"""End to end: the ``classic`` and ``qualifier`` group tournaments (锦标赛, RULES.md §10.1)
through the fake Bot API, played to the payout.

- ``classic`` (seed 000 初赛/复赛/决赛), ten members: stage 1 is three tables and a bye with
  the top 9 overall through (the bye takes a place), stage 2 three tables with the top 3
  overall through, the final; every stage starts from the base of 30 points. The preset's
  10 deals per table would make 30 deals in a row (minutes here), so the test puts a
  ``classic`` of 2 deals per table in the preset table (``PRESETS["classic"]``, the same
  code path: the command names it, the driver reads it back by name); base, cuts and the 3
  extra deals of a tie are the preset's.
- ``qualifier`` (seed 003), nine members, the preset as it is: three chips tables (打立出局:
  20 chips, 2 chips a point, out below 1; a table ends when a player is out), the chips
  leader of each table through, a final of 9 deals starting from 50 % of the chips (带分,
  cap 100).

Checked from the stored tables and the messages, not from the driver's own answers alone:
who goes through and who is out against the scores (and against
:func:`engine.tournament.advance` for the recorded results), the next stage's starting scores,
the draws against the referee for the revealed seed, the places and the prizes (fees in =
prizes out, the ledger summing to zero, beans conserved).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bot.core.i18n import t
from bot.features.tournament.standings import TableStandings
from bot.features.tournament.views import stage_line, tournament_callback
from engine.prizes import split_pool
from engine.tournament import (
    CLASSIC,
    QUALIFIER,
    Advancement,
    Draw,
    FinalRanking,
    FixedDeals,
    advance,
    final_ranking,
    plan,
    tournament_places,
)
from engine.tournament import presets as preset_table
from tests.bot.flow_helpers import LANG, assert_no_hand_in_group
from tests.bot.test_e2e_tournament import autoplay_until, press, referee, signup_message
from tests.conftest import BotRunner
from tests.fakebot import Chat, FakeBotApi, User

FEE = 100
START_BEANS = 1000
NAMES = ("Ann", "Bob", "Cy", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo")
#: ``classic`` as the preset defines it, with 2 deals per table instead of 10.
SHORT_CLASSIC = replace(
    CLASSIC,
    rounds=tuple(replace(stage, format=FixedDeals(2)) for stage in CLASSIC.rounds),
    final=replace(CLASSIC.final, format=FixedDeals(2)))


async def play_tournament(api: FakeBotApi, runner: BotRunner, preset: str, count: int,
                          humans: int = 3) -> tuple[int, list[User], Chat]:
    """``count`` members sign up for ``preset`` with the entry fee :data:`FEE`, the opener
    starts it; all but the first ``humans`` have blocked the bot by then (their seats are
    auto-played at once, RULES.md §9), the others press their own auto-play button. Returns
    the tournament's id, the members in sign-up order and the group, once it has finished."""
    app = runner.app
    store = app.bot_data.store
    app.bot_data.game.tournaments.board_interval = 0.0
    users = [api.new_user(name) for name in NAMES[:count]]
    ann = users[0]
    group = api.new_group("Cards")
    api.make_admin(group, ann)
    for user in users:
        api.open_private_chat(user)
    await store.update_group_settings(group.id, pictures=False)
    api.send_text(ann, group, f"/tournament {preset} {FEE}")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.live_tournaments()
    tid = record.tournament_id
    assert record.preset == preset
    for user in users:
        assert await press(api, user, signup_message(api, group),
                           tournament_callback(tid, "join")) == t("tour.pop_signed", LANG, id=tid)
    for user in users[humans:]:
        api.block_user(user)
    assert await press(api, ann, signup_message(api, group), tournament_callback(tid, "start")) \
        == t("tour.pop_starting", LANG)
    assert [await store.balance(u.id) for u in users] == [START_BEANS - FEE] * count

    async def finished() -> bool:
        return (await store.get_tournament(tid)).status == "finished"

    await autoplay_until(api, runner, {u.id: u for u in users}, finished, timeout=400)
    await app.bot_data.game.tournaments.idle()
    await app.bot_data.outlet.caught_up()
    return tid, users, group


async def check_draws_and_payout(api: FakeBotApi, runner: BotRunner, tid: int,
                                 users: list[User], group: Chat, stages: int) -> dict[int, int]:
    """The draws equal the referee's for the revealed seed (whose SHA-256 the sign-up showed);
    the pool is the fees and is paid out once by the preset's prize table for the recorded
    places; the ledger sums to zero and no bean is made or lost. Returns the places."""
    store = runner.app.bot_data.store
    record = await store.get_tournament(tid)
    tables = await store.tournament_tables(tid)
    final = next(m for m in reversed(api.messages_in(group))
                 if m.content.startswith(t("tour.final_title", LANG, id=tid)))
    assert record.seed in final.content
    commands = [line for line in final.content.splitlines() if line.startswith("echo '")]
    assert len(commands) == stages
    for number, command in enumerate(commands, start=1):
        answer = referee(command)
        assert answer["sha256"] == record.seed_hash
        seated = [list(x.players) for x in tables if x.stage == number]
        assert answer["tables"] == seated
        field = record.state["stages"][number - 1]["players"]
        assert sorted(answer["byes"]) == sorted(set(field) - {p for x in seated for p in x})

    signup = [u.id for u in users]
    assert [e.user_id for e in await store.tournament_entries(tid)] == signup
    places = {int(p): place for p, place in record.result["places"].items()}
    assert record.pool == len(users) * FEE
    rows = await store.tournament_ledger(tid)
    fees = [r for r in rows if r.amount < 0]
    prizes = [r for r in rows if r.amount > 0]
    assert sorted(r.user_id for r in fees) == sorted(signup)
    assert all(r.amount == -FEE for r in fees)
    prize_table = preset_table.PRESETS[record.preset].prize_table
    expected = split_pool(record.pool, [places[p] for p in signup], prize_table)
    assert {r.user_id: r.amount for r in prizes} == \
        {p: a for p, a in zip(signup, expected, strict=True) if a}
    assert sum(r.amount for r in prizes) == record.pool and sum(r.amount for r in rows) == 0
    balances = {u.id: await store.balance(u.id) for u in users}
    assert sum(balances.values()) == len(users) * START_BEANS
    for player in signup:
        won = sum(r.amount for r in prizes if r.user_id == player)
        assert balances[player] == START_BEANS - FEE + won
    assert_no_hand_in_group(api, group, users)
    assert not [x for x in runner.app.bot_data.tables if x.competition.tournament is not None]
    return places


def standings_of(rows: list[Any], stage: int) -> list[TableStandings]:
    """The stored standings of stage ``stage``'s tables, in table order."""
    return [TableStandings.from_dict(r.state) for r in rows if r.stage == stage]


def scores_of(standings: list[TableStandings]) -> dict[int, int]:
    """Every table player's stage score."""
    return {p: s for table in standings for p, s in zip(table.players, table.scores(),
                                                         strict=True)}


def assert_cut(through: list[int], out: list[int], scores: dict[int, int]) -> None:
    """Nobody out scored more than anybody through from a table (ties at the line are
    played off or ordered, RULES.md §10.1)."""
    table_through = [scores[p] for p in through if p in scores]
    assert table_through and out
    assert max(scores[p] for p in out) <= min(table_through)


async def test_a_ten_member_classic_tournament_cuts_overall_and_restarts_from_the_base(
        fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(preset_table.PRESETS, "classic", SHORT_CLASSIC)
    api = fake_api
    store = running_bot.app.bot_data.store
    planned = plan(SHORT_CLASSIC, 10)
    assert [(s.field, s.tables, s.byes, s.advancing) for s in planned] == \
        [(10, 3, 1, 9), (9, 3, 0, 3), (3, 1, 0, None)]
    tid, users, group = await play_tournament(api, running_bot, "classic", 10)
    record = await store.get_tournament(tid)
    state = record.state
    rows = await store.tournament_tables(tid)
    signup = [u.id for u in users]
    assert [sum(1 for r in rows if r.stage == n) for n in (1, 2, 3)] == [3, 3, 1]
    assert all(r.done for r in rows)

    # Every stage starts everyone from the base of 30 (复赛/决赛 积分清零), plays its 2 deals
    # (and any extra deals of a tie).
    for stage in (1, 2, 3):
        for table in standings_of(rows, stage):
            assert table.start == (30, 30, 30)
            assert table.match.played == 2
            # deals won (the cross-table tie-break) are the stage's, never an extra deal's
            assert list(table.wins) == [sum(1 for d in table.match.deals if d.points[i] > 0)
                                        for i in range(3)]
            assert sum(table.scores()) == 90 + sum(table.match.scores())

    # Stage 1: the bye and the best 8 of the 9 table players go through (the top 9 overall).
    stage1, stage2 = state["advancements"]
    one = standings_of(rows, 1)
    byes1 = sorted(set(state["stages"][0]["players"]) - {p for x in one for p in x.players})
    assert len(byes1) == 1
    scores1 = scores_of(one)
    assert len(stage1["through"]) == 9 and set(byes1) <= set(stage1["through"])
    out1 = [p for group_ in stage1["out"] for p in group_]
    assert len(out1) == 1 and set(stage1["through"]) | set(out1) == set(signup)
    assert_cut(stage1["through"], out1, scores1)
    # across tables, a tie at the line goes to more deals won, then the earlier sign-up
    table_of = {p: i for i, x in enumerate(one) for p in x.players}
    wins1 = {p: w for x in one for p, w in zip(x.players, x.wins, strict=True)}
    for loser in out1:
        for winner in stage1["through"]:
            if winner in scores1 and scores1[winner] == scores1[loser] \
                    and table_of[winner] != table_of[loser]:
                assert (wins1[winner], -signup.index(winner)) > \
                    (wins1[loser], -signup.index(loser))
    draw1 = Draw(1, tuple(x.players for x in one), tuple(byes1))
    again = advance(planned[0], draw1, [x.result(signup) for x in one], signup)
    assert isinstance(again, Advancement)
    assert list(again.through) == stage1["through"] and again.scores == scores1
    assert state["stages"][1]["players"] == stage1["through"]
    assert state["stages"][1]["scores"] == [scores1.get(p) for p in stage1["through"]]

    # Stage 2: nine players, three tables, no bye; the best 3 overall go through.
    two = standings_of(rows, 2)
    assert sorted(p for x in two for p in x.players) == sorted(stage1["through"])
    scores2 = scores_of(two)
    out2 = [p for group_ in stage2["out"] for p in group_]
    assert len(stage2["through"]) == 3 and len(out2) == 6
    assert_cut(stage2["through"], out2, scores2)
    draw2 = Draw(2, tuple(x.players for x in two), ())
    again = advance(planned[1], draw2, [x.result(signup) for x in two], signup,
                    {int(k): v for k, v in stage1["scores"].items()})
    assert isinstance(again, Advancement) and list(again.through) == stage2["through"]

    # The final: the three, ranked by score (a tie for first played off).
    (final,) = standings_of(rows, 3)
    assert sorted(final.players) == sorted(stage2["through"])
    ranking = final_ranking(planned[2], Draw(3, (final.players,), ()), final.result(signup),
                            signup)
    assert isinstance(ranking, FinalRanking)
    scores3 = scores_of([final])
    champion = ranking.places[0][0]
    assert scores3[champion] == max(scores3.values())
    assert {int(k): v for k, v in record.result["scores"].items()} == scores3

    places = await check_draws_and_payout(api, running_bot, tid, users, group, 3)
    advancements = [Advancement(tuple(a["through"]), tuple(tuple(g) for g in a["out"]),
                                tuple(a["forfeited"])) for a in (stage1, stage2)]
    assert places == tournament_places(ranking, advancements)
    assert places[champion] == 1
    assert all(places[p] in (2, 3) for p in final.players if p != champion)
    assert all(4 <= places[p] <= 9 for p in out2)
    assert places[out1[0]] == 10
    for better, worse in ((p, q) for p in out2 for q in out2):
        if scores2[better] > scores2[worse]:
            assert places[better] < places[worse]


async def test_a_nine_member_qualifier_knocks_out_on_chips_and_carries_half_over(
        fake_api: FakeBotApi, running_bot: BotRunner):
    api = fake_api
    store = running_bot.app.bot_data.store
    planned = plan(QUALIFIER, 9)
    assert [(s.field, s.tables, s.byes, s.advancing) for s in planned] == \
        [(9, 3, 0, 3), (3, 1, 0, None)]
    tid, users, group = await play_tournament(api, running_bot, "qualifier", 9)
    record = await store.get_tournament(tid)
    state = record.state
    rows = await store.tournament_tables(tid)
    signup = [u.id for u in users]
    (stage1,) = state["advancements"]

    # The chips tables: everyone started with 20 chips, 2 chips a point; a table's match ended
    # when a player fell below 1 chip; chips only move between the table's players.
    one = standings_of(rows, 1)
    assert len(one) == 3 and all(x.chips for x in one)
    for table in one:
        chips = table.scores()
        assert sum(chips) == 3 * 20
        assert min(chips) < 1 and table.match.played >= 1
        assert sorted(table.match.out()) == sorted(c < 1 for c in chips)
    scores1 = scores_of(one)
    assert {int(k): v for k, v in stage1["scores"].items()} == scores1

    # The chips leader of each table is through, the others are out.
    through = stage1["through"]
    assert len(through) == 3
    for table in one:
        (winner,) = [p for p in table.players if p in through]
        assert scores1[winner] == max(table.scores())
    out = [p for group_ in stage1["out"] for p in group_]
    assert sorted(out + through) == sorted(signup)
    again = advance(planned[0], Draw(1, tuple(x.players for x in one), ()),
                    [x.result(signup) for x in one], signup)
    assert isinstance(again, Advancement) and list(again.through) == through

    # The final starts each finalist from half the chips (rounded down), at most 100 (带分).
    (final,) = standings_of(rows, 2)
    assert sorted(final.players) == sorted(through) and not final.chips
    assert final.start == tuple(min(100, scores1[p] * 50 // 100) for p in final.players)
    assert final.match.played == 9
    scores2 = scores_of([final])
    assert [scores2[p] - s for p, s in zip(final.players, final.start, strict=True)] == \
        final.match.scores()
    ranking = final_ranking(planned[1], Draw(2, (final.players,), ()), final.result(signup),
                            signup)
    assert isinstance(ranking, FinalRanking)
    champion = ranking.places[0][0]
    assert scores2[champion] == max(scores2.values())

    places = await check_draws_and_payout(api, running_bot, tid, users, group, 2)
    assert places[champion] == 1
    assert sorted(places[p] for p in through)[0] == 1
    assert all(places[p] <= 3 for p in through)
    assert all(4 <= places[p] <= 9 for p in out)
    for better, worse in ((p, q) for p in out for q in out):
        if scores1[better] > scores1[worse]:
            assert places[better] < places[worse]


def test_a_chips_table_on_auto_play_ends():
    """Three seats on auto-play (the seeds' rule: lead the smallest single, pass when
    following) let every landlord play out: the chips go round the table (+8, −4, −4 with the
    landlord turning, as played by the fake Bot API above). The qualifier's rising base ends
    the table all the same; at a fixed base nobody would ever fall below 1 chip."""
    table = TableStandings.new(plan(QUALIFIER, 9)[0], [1, 2, 3], [0, 0, 0], 0.0)
    deal = 0
    while not table.done and deal < 50:
        deal += 1
        landlord = deal % 3
        points = [8 if seat == landlord else -4 for seat in range(3)]
        table = table.record(deal, points, bid=2, landlord=landlord)
    assert table.done and deal <= 15
    assert sum(table.scores()) == 60 and min(table.scores()) < 1


def test_the_sign_up_shows_the_qualifiers_rising_base():
    for lang in ("en", "zh-Hans", "zh-Hant"):
        line = stage_line(plan(QUALIFIER, 9)[0], lang)
        assert t("tour.format_rise", lang, n=5) in line
        assert "5" in t("tour.format_rise", lang, n=5)
    assert t("tour.format_rise", "en", n=5) not in stage_line(plan(SHORT_CLASSIC, 10)[0], "en")
