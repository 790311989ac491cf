"""Group tournaments' pure parts in the bot (RULES.md §10.1): the buttons' data (forged data
refused), ``/tournament``'s words (a number out of range refused with its range), the start
time in the group's time zone, a table's standings through its deals, extra deals and a
forfeit, and the referee's commands that reproduce a draw; the field's minimum and maximum
and the stage time limit as words (their ranges), a table whose stage time ran out, and the
four-player bar after three lost landlord deals (RULES.md §11)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from bot.core.i18n import t
from bot.features.tournament.standings import MAX_EXTRA_DEALS, TableStandings
from bot.features.tournament.views import (
    TournamentDataError,
    parse_tournament_callback,
    referee_commands,
    stage_line,
    standings_lines,
    tournament_callback,
)
from bot.telegram.handlers.tournament import (
    ArgumentError,
    TournamentArguments,
    parse_arguments,
    start_time,
)
from engine.tournament import CLASSIC, QUALIFIER, QUICK, draw, plan, tournament_preset

SEED = "00112233445566778899aabbccddeeff"


def test_button_data_round_trips_and_forgeries_are_refused():
    for op in ("join", "quit", "start", "cancel"):
        assert parse_tournament_callback(tournament_callback(12, op)).op == op
    press = parse_tournament_callback(tournament_callback(12, "watch", 3))
    assert (press.tournament_id, press.op, press.table) == (12, "watch", 3)
    for forged in ("T:0:join", "T:12:join2", "T:12:watch0", "T:12:watch", "T:x:join",
                   "T:12:JOIN", "T:12:join ", "D:12:join", None, 12, "T:" + "9" * 13 + ":join"):
        with pytest.raises(TournamentDataError):
            parse_tournament_callback(forged)


def test_the_command_words_and_their_ranges():
    assert parse_arguments([]) == TournamentArguments("quick", 0, None)
    assert parse_arguments(["20:30", "CLASSIC", "150"]) == \
        TournamentArguments("classic", 150, (20, 30))
    assert parse_arguments(["qualifier", "０"]) == TournamentArguments("qualifier", 0, None)
    for words, key in ((["25:00"], "tour.bad_time"), (["12:60"], "tour.bad_time"),
                       (["2000000"], "tour.bad_fee"), (["-5"], "tour.bad_fee"),
                       (["fast"], "tour.usage"), (["quick", "quick"], "tour.usage"),
                       (["1", "2"], "tour.usage"), (["12:3x"], "tour.bad_time")):
        with pytest.raises(ArgumentError) as error:
            parse_arguments(words)
        assert error.value.key == key, words


def test_the_start_time_is_the_next_one_in_the_groups_zone():
    now = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)  # 20:00 in Shanghai
    assert start_time((20, 30), now, "Asia/Shanghai") == \
        datetime(2024, 5, 1, 12, 30, tzinfo=UTC).timestamp()
    assert start_time((19, 0), now, "Asia/Shanghai") == \
        datetime(2024, 5, 2, 11, 0, tzinfo=UTC).timestamp()  # passed today: tomorrow


def test_a_fixed_deal_table_its_extra_deals_and_a_forfeit():
    stage = plan(QUICK, 10)[0]
    table = TableStandings.new(stage, [7, 8, 9], [0, 0, 0], 0.0)
    for deal, points in enumerate(([4, -2, -2], [-2, 4, -2], [2, -4, 2]), start=1):
        assert not table.done
        table = table.record(deal, points)
    assert table.done and table.played == 3
    assert table.scores() == [4, -2, -2] and table.wins == (2, 1, 1)
    table = table.with_extra(1)
    assert not table.done and table.in_extra
    table = table.record(4, [-2, 1, 1], left=[2])
    assert table.done and table.scores() == [4, -2, -2]  # an extra deal only breaks ties
    assert table.wins == (2, 1, 1)  # nor is it a deal won in the stage (cross-table order)
    result = table.result()
    assert [(s.player, s.score, s.extra, s.forfeited) for s in result.seats] == \
        [(7, 4, -2, False), (8, -2, 1, False), (9, -2, 1, True)]
    assert result.extra_deals == 1
    assert TableStandings.from_dict(json.loads(json.dumps(table.to_dict()))) == table


def test_a_tie_that_extra_deals_never_break_goes_to_the_earlier_sign_up():
    table = TableStandings.new(plan(QUICK, 3)[0], [7, 8, 9], [0, 0, 0], 0.0)
    for deal in range(1, 7):
        table = table.record(deal, [4, -2, -2])  # the farmers always tie
    table = table.with_extra(MAX_EXTRA_DEALS)
    for deal in range(7, 7 + MAX_EXTRA_DEALS - 1):
        table = table.record(deal, [4, -2, -2])
        assert [s.extra for s in table.result([9, 8, 7]).seats][1:] == [-2 * (deal - 6)] * 2
    table = table.record(99, [4, -2, -2])
    extra = [s.extra for s in table.result([9, 8, 7]).seats]
    assert extra[2] > extra[1]  # 9 signed up before 8


def test_a_base_start_and_a_chips_table():
    classic = TableStandings.new(plan(CLASSIC, 30)[0], [1, 2, 3], [30, 30, 30], 0.0)
    assert classic.record(1, [6, -3, -3]).scores() == [36, 27, 27]
    chips = TableStandings.new(plan(QUALIFIER, 9)[0], [1, 2, 3], [0, 0, 0], 0.0)
    assert chips.chips and chips.scores() == [20, 20, 20]
    chips = chips.record(1, [-8, 4, 4])
    assert chips.scores() == [4, 28, 28] and not chips.done
    chips = chips.record(2, [-4, 2, 2])
    assert chips.done and chips.scores()[0] == 0  # out: the table's match is over
    # chips = points × chip base (RULES.md §10: 2 chips a point), the bid included
    bid_two = TableStandings.new(plan(QUALIFIER, 9)[0], [1, 2, 3], [0, 0, 0], 0.0)
    assert bid_two.record(1, [4, -2, -2], bid=2).scores() == [28, 16, 16]


def test_the_referee_commands_reproduce_the_draws():
    players = list(range(101, 111))
    first = draw(SEED, 1, players)
    scores = {p: i for i, p in enumerate(players)}
    field = list(first.byes) + [t[0] for t in first.tables] + [first.tables[0][1],
                                                                first.tables[1][1]]
    second = draw(SEED, 2, field, scores=scores)
    stages = [{"number": 1, "players": players, "scores": None},
              {"number": 2, "players": field, "scores": [scores.get(p) for p in field]}]
    for command, expected in zip(referee_commands(SEED, stages), (first, second), strict=True):
        request = command.removeprefix("echo '").removesuffix("' | python -m engine.judge")
        out = subprocess.run([sys.executable, "-m", "engine.judge"], input=request,
                             capture_output=True, text=True, check=True).stdout
        answer = json.loads(out)
        assert answer["tables"] == [list(t) for t in expected.tables]
        assert answer["byes"] == list(expected.byes)


def test_the_field_and_time_limit_words_and_their_ranges():
    asked = parse_arguments(["classic", "100", "20:30", "min", "6", "max", "12", "time", "15"])
    assert (asked.preset, asked.fee, asked.at, asked.minimum, asked.maximum,
            asked.time_limit) == ("classic", 100, (20, 30), 6, 12, 15)
    assert parse_arguments(["最少", "４", "最多", "9", "限時", "20"]) == \
        TournamentArguments("quick", 0, None, 4, 9, 20)
    assert parse_arguments(["MIN=5", "限时=off"]) == \
        TournamentArguments("quick", 0, None, 5, None, 0)
    assert parse_arguments(["min", "30", "max", "30"]).minimum == 30
    assert parse_arguments(["max", "4"], table_size=4).maximum == 4
    assert parse_arguments(["time", "0"]).time_limit == 0
    for words, size, key, params in (
            (["min", "2"], 3, "tour.bad_min", {"low": 3, "high": 30}),
            (["min", "3"], 4, "tour.bad_min", {"low": 4, "high": 30}),
            (["min", "31"], 3, "tour.bad_min", {"low": 3, "high": 30}),
            (["min", "six"], 3, "tour.bad_min", {"low": 3, "high": 30}),
            (["max", "31"], 3, "tour.bad_max", {"low": 3, "high": 30}),
            (["max", "2"], 3, "tour.bad_max", {"low": 3, "high": 30}),
            (["max=-5"], 3, "tour.bad_max", {"low": 3, "high": 30}),
            (["min", "6", "max", "5"], 3, "tour.bad_field", {"min": 6, "max": 5}),
            (["max", "5"], 6, "tour.bad_max", {"low": 6, "high": 30}),
            (["time", "181"], 3, "tour.bad_limit", {"high": 180}),
            (["time", "-1"], 3, "tour.bad_limit", {"high": 180}),
            (["min"], 3, "tour.usage", {}),
            (["min", "4", "min", "5"], 3, "tour.usage", {}),
            (["time=", "5"], 3, "tour.usage", {})):
        with pytest.raises(ArgumentError) as error:
            parse_arguments(words, table_size=size)
        assert (error.value.key, error.value.params) == (key, params), words


def test_every_range_error_names_its_range_in_every_language():
    for lang in ("en", "zh-Hans", "zh-Hant"):
        for key, params in (("tour.bad_min", {"low": 4, "high": 30}),
                            ("tour.bad_max", {"low": 4, "high": 30}),
                            ("tour.bad_field", {"min": 6, "max": 5}),
                            ("tour.bad_limit", {"high": 180})):
            text = t(key, lang, **params)
            assert text != key and all(str(v) in text for v in params.values())
        usage = t("tour.usage", lang, fee="1,000,000", max=30, min=3, limit=180)
        assert all(word in usage for word in ("min", "max", "time", "30", "180"))


def test_a_stage_whose_time_ran_out_ends_after_the_deal_played():
    table = TableStandings.new(plan(QUICK, 10)[0], [7, 8, 9], [0, 0, 0], 0.0)
    table = table.record(1, [4, -2, -2], landlord=0).with_time_up()
    assert table.done and table.played == 1 and table.scores() == [4, -2, -2]
    assert table.record(2, [-4, 2, 2], landlord=0) == table  # no deal after the last
    # a tie asked to be broken afterwards is still played off at the table (加赛)
    again = table.with_extra(1)
    assert not again.done and again.in_extra
    again = again.record(3, [-2, 1, 1], landlord=0)
    assert again.done and again.extra == (-2, 1, 1)
    assert TableStandings.from_dict(json.loads(json.dumps(again.to_dict()))) == again


def test_three_lost_landlord_deals_of_a_four_player_stage_bar_the_bidding():
    stage = plan(tournament_preset("quick", table_size=4), 8)[0]
    table = TableStandings.new(stage, [1, 2, 3, 4], [0] * 4, 0.0)
    assert table.deals == 3
    table = table.record(1, [-3, 1, 1, 1], landlord=0)
    table = table.record(2, [3, -1, -1, -1], landlord=0)  # won: not counted
    table = table.record(3, [-3, 1, 1, 1], landlord=0)
    assert table.landlord_losses() == [2, 0, 0, 0] and table.barred() == (False,) * 4
    names = {1: "Ann", 2: "Bob", 3: "Cy", 4: "Dan"}
    assert not any(t("tour.barred_mark", "en") in line
                   for line in standings_lines(table, names, "en"))
    table = table.with_extra(1).record(4, [-3, 1, 1, 1], landlord=0)  # an extra deal counts
    assert table.landlord_losses() == [3, 0, 0, 0]
    assert table.barred() == (True, False, False, False)
    lines = standings_lines(table, names, "en")
    assert [line.endswith(t("tour.barred_mark", "en")) for line in lines].count(True) == 1
    assert next(line for line in lines if "Ann" in line).endswith(t("tour.barred_mark", "en"))
    back = TableStandings.from_dict(json.loads(json.dumps(table.to_dict())))
    assert back == table and back.barred() == table.barred()
    # standings stored before these fields existed read with none
    old = table.to_dict()
    del old["time_up"], old["extra_losses"]
    assert TableStandings.from_dict(old).landlord_losses() == [2, 0, 0, 0]


def test_the_sign_up_shows_the_time_limit():
    timed = replace(QUICK, rounds=tuple(replace(s, time_limit=15) for s in QUICK.rounds))
    for lang in ("en", "zh-Hans", "zh-Hant"):
        assert t("tour.time_part", lang, n=15) in stage_line(plan(timed, 10)[0], lang)
        assert "15" in t("tour.time_part", lang, n=15)
        assert t("tour.time_part", lang, n=15) not in stage_line(plan(QUICK, 10)[0], lang)
