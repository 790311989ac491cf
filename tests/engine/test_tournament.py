"""Group tournaments, the pure part (RULES.md §10.1, engine/tournament/): the presets, the
stages a field plays, the draw from the seed, advancement with its ties, the final, the places
and the referee's ``tournament_draw`` op."""

from __future__ import annotations

import doctest
import hashlib
import importlib
import json
import subprocess
import sys
from dataclasses import replace

import pytest

from engine.challenge import seed_hash
from engine.judge import handle
from engine.prizes import split_pool
from engine.tournament import (
    CLASSIC,
    QUALIFIER,
    QUICK,
    Advance,
    Advancement,
    Chips,
    Draw,
    ExtraDeals,
    FinalRanking,
    FixedDeals,
    Seat,
    Stage,
    Start,
    TableResult,
    TieBreak,
    TournamentError,
    TournamentPreset,
    advance,
    advancing,
    draw,
    final_ranking,
    plan,
    start_scores,
    tournament_places,
    tournament_preset,
)

SEED = "00112233445566778899aabbccddeeff"


def shape(preset: TournamentPreset, field: int) -> list[tuple[int, int, int, int | None]]:
    return [(s.field, s.tables, s.byes, s.advancing) for s in plan(preset, field)]


# --- presets (RULES.md §10.1) -------------------------------------------------------------

def test_quick_is_three_deals_top_one_per_table_and_a_six_deal_final():
    (stage,) = QUICK.rounds
    assert stage.format == FixedDeals(3)
    assert stage.advance == Advance("per_table", 1, "score")
    assert stage.start == Start()
    assert QUICK.final == Stage(FixedDeals(6))
    assert (QUICK.table_size, QUICK.extra_deals, QUICK.prize_table) == (3, 1, (50, 30, 20))


def test_classic_is_ten_deals_top_nine_then_three_and_three_extra_deals_for_first():
    first, second = CLASSIC.rounds
    assert first == Stage(FixedDeals(10), Start("base", base=30), Advance("overall", 9))
    assert second == Stage(FixedDeals(10), Start("base", base=30), Advance("overall", 3))
    assert CLASSIC.final == Stage(FixedDeals(10), Start("base", base=30))
    assert CLASSIC.extra_deals == 3


def test_qualifier_is_chips_top_one_per_table_to_a_fixed_final_with_capped_carry_over():
    (stage,) = QUALIFIER.rounds
    assert stage.format == Chips(chips=20, chip_base=2, threshold=1, rise_every=5)
    assert stage.advance == Advance("per_table", 1)
    assert QUALIFIER.final.format == FixedDeals(9)
    assert QUALIFIER.final.start == Start("carry_over", share=50, cap=100)


def test_a_preset_by_name_and_for_tables_of_four():
    assert tournament_preset("quick") is QUICK
    four = tournament_preset("classic", table_size=4)
    assert [s.advance.count for s in four.rounds if s.advance] == [12, 4]
    assert four.table_size == 4
    with pytest.raises(TournamentError, match="unknown tournament preset 'swiss'"):
        tournament_preset("swiss")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"rounds": ()}, "at least one stage"),
    ({"rounds": (Stage(FixedDeals(3)),)}, "advancement rule"),
    ({"rounds": (Stage(FixedDeals(3), advance=Advance("per_table", 3)),)}, "would be everyone"),
    ({"rounds": (Stage(FixedDeals(3), advance=Advance("overall", 8)),)}, "whole tables"),
    ({"rounds": (Stage(FixedDeals(3), advance=Advance("overall", 6)),)}, "leave one table"),
    ({"final": Stage(FixedDeals(3), advance=Advance())}, "final has no advancement"),
    ({"prize_table": (50, 40)}, "add up to 90"),
    ({"table_size": 5}, "table_size"),
])
def test_a_preset_that_cannot_be_played_is_refused(kwargs, message):
    options = {"name": "mine", "rounds": QUICK.rounds, "final": QUICK.final, **kwargs}
    with pytest.raises(TournamentError, match=message):
        TournamentPreset(**options)


def test_a_chips_stage_starts_from_its_chips_and_options_are_checked():
    with pytest.raises(TournamentError, match="start must be zero"):
        Stage(Chips(), Start.carry())
    with pytest.raises(TournamentError, match="deals: a whole number from 1 to 30"):
        FixedDeals(0)
    with pytest.raises(TournamentError, match="threshold"):
        Chips(chips=5, threshold=6)
    with pytest.raises(TournamentError, match="share"):
        Start.carry(150)


def test_starting_scores_zero_base_and_carry_over_capped_both_ways():
    assert Start().score(77) == 0
    assert Start.with_base(30).score(None) == 30
    carry = Start.carry(50, 100)
    assert [carry.score(s) for s in (None, 0, 37, 200, 201, 999, -37, -999)] == \
        [0, 0, 18, 100, 100, 100, -18, -100]
    assert start_scores(QUALIFIER.final, [1, 2, 3], {1: 64, 2: 7}) == {1: 32, 2: 3, 3: 0}
    assert start_scores(CLASSIC.final, [1, 2, 3], {1: 64}) == {1: 30, 2: 30, 3: 30}


# --- the stages a field plays --------------------------------------------------------------

def test_rules_example_ten_players_quick():
    # RULES.md §10.1: 3 tables + 1 bye -> 3 winners + the bye + 2 runners-up = 6 -> 2 tables
    # -> 2 winners + 1 runner-up -> the final
    assert shape(QUICK, 10) == [(10, 3, 1, 6), (6, 2, 0, 3), (3, 1, 0, None)]
    assert [s.number for s in plan(QUICK, 10)] == [1, 2, 3]
    assert [s.stage for s in plan(QUICK, 10)] == [*QUICK.rounds * 2, QUICK.final]


@pytest.mark.parametrize(("preset", "field", "expected"), [
    (QUICK, 3, [(3, 1, 0, None)]),
    (QUICK, 4, [(4, 1, 1, 3), (3, 1, 0, None)]),
    (QUICK, 5, [(5, 1, 2, 3), (3, 1, 0, None)]),
    (QUICK, 28, [(28, 9, 1, 12), (12, 4, 0, 6), (6, 2, 0, 3), (3, 1, 0, None)]),
    # seed 000: the top 9 (a bye takes one of the places), then the top 3
    (CLASSIC, 40, [(40, 13, 1, 9), (9, 3, 0, 3), (3, 1, 0, None)]),
    # a small field skips the top-9 stage, which would keep everyone
    (CLASSIC, 9, [(9, 3, 0, 3), (3, 1, 0, None)]),
    (CLASSIC, 8, [(8, 2, 2, 3), (3, 1, 0, None)]),
    (QUALIFIER, 27, [(27, 9, 0, 9), (9, 3, 0, 3), (3, 1, 0, None)]),
    (tournament_preset("quick", table_size=4), 10, [(10, 2, 2, 4), (4, 1, 0, None)]),
    (tournament_preset("classic", table_size=4), 17, [(17, 4, 1, 12), (12, 3, 0, 4),
                                                      (4, 1, 0, None)]),
])
def test_the_stages_of_a_field(preset, field, expected):
    assert shape(preset, field) == expected


def test_top_two_per_table_rounds_down_when_rounding_up_would_keep_everyone():
    # seed 001: 一或兩名 — the top 2 of two tables would be 4, rounded up 6 = the field
    assert advancing(Advance("per_table", 2), 6, 3) == 3
    assert advancing(Advance("per_table", 2), 9, 3) == 6
    two = TournamentPreset("two", (Stage(FixedDeals(3), advance=Advance("per_table", 2)),),
                           Stage(FixedDeals(6)))
    assert shape(two, 9) == [(9, 3, 0, 6), (6, 2, 0, 3), (3, 1, 0, None)]


def test_a_field_smaller_than_a_table_is_refused():
    with pytest.raises(TournamentError, match="field: a whole number from 3 to 999"):
        plan(QUICK, 2)
    with pytest.raises(TournamentError, match="from 4"):
        plan(tournament_preset("quick", table_size=4), 3)


# --- the draw -------------------------------------------------------------------------------

def by_hand(seed: str, stage: int, players: list[int]) -> list[int]:
    """The players in lot order, as someone with ``sha256sum`` would compute it."""
    return sorted(players,
                  key=lambda p: hashlib.sha256(f"{seed}:{stage}:{p}".encode()).hexdigest())


def test_the_draw_of_ten_players_is_the_lot_order_with_the_smallest_lot_on_a_bye():
    players = list(range(1, 11))
    result = draw(SEED, 1, players)
    assert result == Draw(1, ((2, 4, 10), (7, 6, 3), (8, 1, 5)), (9,))
    order = by_hand(SEED, 1, players)
    assert list(result.byes) == order[:1]
    assert [p for t in result.tables for p in t] == order[1:]
    assert result.table_of(6) == 1 and result.table_of(9) is None


def test_the_draw_is_reproducible_and_differs_by_stage_and_seed():
    players = list(range(100, 115))
    assert draw(SEED, 1, players) == draw(SEED, 1, list(reversed(players)))
    assert draw(SEED, 1, players).tables != draw(SEED, 2, players).tables
    assert draw(SEED, 1, players).tables != draw("ff" * 16, 1, players).tables


def test_later_byes_go_to_the_best_previous_score_by_lot_among_equals():
    players = [1, 2, 3, 4, 5, 6, 7, 8]
    scores = {1: 10, 2: 30, 3: 30, 4: 30, 5: -2, 6: 0, 7: 9}  # 8: a bye last stage
    result = draw(SEED, 2, players, scores=scores)
    tied = [p for p in by_hand(SEED, 2, players) if p in (2, 3, 4)]
    assert set(result.byes) == set(tied[:2])
    assert len(result.tables) == 2
    # with one 30 only, that player and the lot among the 10s
    result = draw(SEED, 2, players, scores={1: 10, 2: 30, 3: 10, 4: 10})
    tens = [p for p in by_hand(SEED, 2, players) if p in (1, 3, 4)]
    assert set(result.byes) == {2, tens[0]}


def test_tables_of_four_leave_up_to_three_byes():
    result = draw(SEED, 1, list(range(11)), table_size=4)
    assert [len(t) for t in result.tables] == [4, 4] and len(result.byes) == 3


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    (("xyz", 1, [1, 2, 3]), {}, "16 to 128 lowercase hex"),
    ((SEED, 0, [1, 2, 3]), {}, "stage: a number from 1 to 99"),
    ((SEED, 1, [1, 2]), {}, "one whole table at least"),
    ((SEED, 1, [1, 2, 3]), {"table_size": 4}, "one whole table at least"),
    ((SEED, 1, [1, "1", 2]), {}, "drawn once"),
    ((SEED, 1, [1, 2, 3]), {"table_size": 5}, "table_size"),
])
def test_a_draw_that_cannot_be_made_is_refused(args, kwargs, message):
    with pytest.raises(TournamentError, match=message):
        draw(*args, **kwargs)


# --- advancement ---------------------------------------------------------------------------

def seats(*rows: tuple) -> TableResult:
    return TableResult(tuple(Seat(*row) for row in rows))


def test_rules_example_quick_ten_players_winners_the_bye_and_the_best_runners_up():
    stage = plan(QUICK, 10)[0]
    d = Draw(1, (("a", "b", "c"), ("d", "e", "f"), ("g", "h", "i")), ("j",))
    results = [seats(("a", 8), ("b", 2), ("c", -10)),
               seats(("d", 6), ("e", 3), ("f", -9)),
               seats(("g", 4), ("h", -2), ("i", -2))]
    outcome = advance(stage, d, results, "abcdefghij")
    assert outcome == Advancement(("j", "a", "d", "g", "e", "b"),
                                  (("h", "i"), ("f",), ("c",)), (),
                                  {"a": 8, "b": 2, "c": -10, "d": 6, "e": 3, "f": -9,
                                   "g": 4, "h": -2, "i": -2})


def test_a_tie_for_the_place_at_one_table_asks_for_an_extra_deal_there():
    stage = plan(QUICK, 9)[0]
    d = Draw(1, (("a", "b", "c"), ("d", "e", "f"), ("g", "h", "i")), ())
    results = [seats(("a", 4), ("b", 4), ("c", -8)),
               seats(("d", 6), ("e", 3), ("f", -9)),
               seats(("g", 2), ("h", 2), ("i", -4))]
    assert advance(stage, d, results, "abcdefghi") == ExtraDeals(
        (TieBreak(0, ("a", "b"), 1), TieBreak(2, ("g", "h"), 1)))
    # one extra deal at each table: b wins the first; g and h are still level
    results[0] = TableResult((Seat("a", 4, extra=-2), Seat("b", 4, extra=4),
                              Seat("c", -8, extra=-2)), extra_deals=1)
    results[2] = TableResult((Seat("g", 2, extra=-2), Seat("h", 2, extra=-2),
                              Seat("i", -4, extra=4)), extra_deals=1)
    assert advance(stage, d, results, "abcdefghi") == ExtraDeals((TieBreak(2, ("g", "h"), 1),))
    results[2] = TableResult((Seat("g", 2, extra=-4), Seat("h", 2, extra=0),
                              Seat("i", -4, extra=4)), extra_deals=2)
    outcome = advance(stage, d, results, "abcdefghi")
    assert isinstance(outcome, Advancement)
    assert outcome.through == ("d", "b", "h")


def test_classic_plays_three_extra_deals_the_first_time_then_one():
    stage = plan(CLASSIC, 6)[0]  # 2 tables, the top 3 overall
    d = Draw(1, (("a", "b", "c"), ("d", "e", "f")), ())
    results = [seats(("a", 40), ("b", 35), ("c", 35)), seats(("d", 50), ("e", 25), ("f", 15))]
    assert advance(stage, d, results, "abcdef") == ExtraDeals((TieBreak(0, ("b", "c"), 3),))
    results[0] = TableResult((Seat("a", 40, extra=2), Seat("b", 35, extra=-1),
                              Seat("c", 35, extra=-1)), extra_deals=3)
    assert advance(stage, d, results, "abcdef") == ExtraDeals((TieBreak(0, ("b", "c"), 1),))


def test_a_tie_across_tables_goes_by_previous_score_then_deals_won_then_sign_up():
    stage = replace(plan(CLASSIC, 12)[0], number=2)  # 4 tables, the top 9 overall
    assert stage.advancing == 9
    d = Draw(2, (("a", "b", "c"), ("d", "e", "f"), ("g", "h", "i"), ("j", "k", "l")), ())
    # every table: 50, 40, 30 except that the four 30s tie for the last place (9th)
    results = [seats(("a", 50), ("b", 40), ("c", 30, 4)),
               seats(("d", 50), ("e", 40), ("f", 30, 3)),
               seats(("g", 50), ("h", 40), ("i", 30, 3)),
               seats(("j", 50), ("k", 40), ("l", 30, 3))]
    signup = "lkjihgfedcba"
    # the previous score comes first: f and i had 60, l 20, c 10 (though c won the most deals)
    previous = {"c": 10, "f": 60, "i": 60, "l": 20}
    outcome = advance(stage, d, results, signup, previous)
    assert isinstance(outcome, Advancement)
    # f and i tie on previous score and deals won (3): i signed up earlier
    assert outcome.through[-1] == "i"
    assert outcome.out == (("f", "l", "c"),)
    # without previous scores: deals won (c: 4), then sign-up (l before i before f)
    outcome = advance(stage, d, results, signup, None)
    assert isinstance(outcome, Advancement)
    assert outcome.through[-1] == "c" and outcome.out == (("l", "i", "f"),)
    # no previous score (a bye there) counts below any score, even a negative one
    outcome = advance(stage, d, results, signup, {"f": -50})
    assert isinstance(outcome, Advancement)
    assert outcome.through[-1] == "f"


def test_a_tie_at_the_line_mixing_tables_plays_off_only_within_a_table():
    stage = plan(CLASSIC, 6)[0]  # top 3 overall from 2 tables
    d = Draw(1, (("a", "b", "c"), ("d", "e", "f")), ())
    # a (50) is in; b, c, d tie at 30 for 2 places; order across tables: b (3 wins), c, d
    results = [seats(("a", 50), ("b", 30, 3), ("c", 30, 1)), seats(("d", 30, 2), ("e", 0),
                                                               ("f", -10))]
    # cross-table order: b, d, c -> table 0 gets 1 of its 2 tied places: b or c by extra deals
    assert advance(stage, d, results, "abcdef") == ExtraDeals((TieBreak(0, ("b", "c"), 3),))
    results[0] = TableResult((Seat("a", 50), Seat("b", 30, 3, extra=-3),
                              Seat("c", 30, 1, extra=6)), extra_deals=3)
    outcome = advance(stage, d, results, "abcdef")
    assert isinstance(outcome, Advancement)
    assert outcome.through == ("a", "c", "d") and outcome.out == (("b",), ("e",), ("f",))


def test_per_table_by_deals_won_seed_001():
    rule = Stage(FixedDeals(3), advance=Advance("per_table", 1, "wins"))
    preset = TournamentPreset("wins", (rule,), Stage(FixedDeals(3)))
    stage = plan(preset, 6)[0]
    d = Draw(1, (("a", "b", "c"), ("d", "e", "f")), ())
    results = [seats(("a", 10, 1), ("b", -2, 2), ("c", -8, 0)),
               seats(("d", 3, 2), ("e", 3, 1), ("f", -6, 0))]
    outcome = advance(stage, d, results, "abcdef")
    assert isinstance(outcome, Advancement)
    # b and d won their tables; the runner-up with the most wins fills: a and e have 1, both
    # first stage, a signed up first
    assert outcome.through == ("b", "d", "a")


def test_top_two_per_table_cut_down_to_one_table_drops_the_weakest_winner():
    two = TournamentPreset("two", (Stage(FixedDeals(3), advance=Advance("per_table", 2)),),
                           Stage(FixedDeals(6)))
    stage = plan(two, 6)[0]
    d = Draw(1, (("a", "b", "c"), ("d", "e", "f")), ())
    results = [seats(("a", 10), ("b", 5), ("c", -15)), seats(("d", 8), ("e", 1), ("f", -9))]
    outcome = advance(stage, d, results, "abcdef")
    assert isinstance(outcome, Advancement)
    assert outcome.through == ("a", "d", "b") and outcome.out == (("e",), ("f",), ("c",))


def test_a_forfeit_never_goes_through_and_a_runner_up_takes_the_place():
    stage = plan(QUICK, 6)[0]
    d = Draw(1, (("a", "b", "c"), ("d", "e", "f")), ())
    results = [seats(("a", 10, 2, 0, True), ("b", 5), ("c", -15)),
               seats(("d", 8), ("e", 1), ("f", -9))]
    outcome = advance(stage, d, results, "abcdef")
    assert isinstance(outcome, Advancement)
    assert outcome.through == ("d", "b", "e")
    assert outcome.forfeited == ("a",) and outcome.out == (("f",), ("c",))


def test_results_that_do_not_match_the_draw_are_refused():
    stage = plan(QUICK, 6)[0]
    d = Draw(1, (("a", "b", "c"), ("d", "e", "f")), ())
    good = seats(("d", 8), ("e", 1), ("f", -9))
    with pytest.raises(TournamentError, match="2 table results are expected, not 1"):
        advance(stage, d, [good], "abcdef")
    with pytest.raises(TournamentError, match="table 1: the results are not of its players"):
        advance(stage, d, [seats(("a", 1), ("b", 1), ("x", 1)), good], "abcdef")
    with pytest.raises(TournamentError, match="sign-up"):
        advance(stage, d, [seats(("a", 1), ("b", 1), ("c", 1)), good], "abde")
    with pytest.raises(TournamentError, match="the draw is of stage 2"):
        advance(stage, Draw(2, d.tables, ()), [good, good], "abcdef")
    with pytest.raises(TournamentError, match="use final_ranking"):
        advance(plan(QUICK, 3)[0], Draw(1, (("a", "b", "c"),), ()), [good], "abc")


# --- the final, places and prizes -----------------------------------------------------------

def test_the_final_plays_off_a_tie_for_first_and_ties_below_first_share():
    final = plan(CLASSIC, 3)[0]
    d = Draw(1, (("a", "b", "c"),), ())
    assert final_ranking(final, d, seats(("a", 40), ("b", 40), ("c", 10)), "abc") == \
        ExtraDeals((TieBreak(0, ("a", "b"), 3),))
    result = TableResult((Seat("a", 40, extra=-2), Seat("b", 40, extra=4),
                          Seat("c", 10, extra=-2)), extra_deals=3)
    assert final_ranking(final, d, result, "abc") == FinalRanking((("b",), ("a",), ("c",)), ())
    # all three level: one wins the play-off, the other two share second
    result = TableResult((Seat("a", 30, extra=-2), Seat("b", 30, extra=4),
                          Seat("c", 30, extra=-2)), extra_deals=3)
    assert final_ranking(final, d, result, "abc") == FinalRanking((("b",), ("a", "c")), ())
    assert final_ranking(final, d, seats(("a", 9), ("b", 30), ("c", 9)), "abc") == \
        FinalRanking((("b",), ("a", "c")), ())


def test_a_whole_quick_tournament_of_ten_places_and_prizes():
    stages = plan(QUICK, 10)
    first = advance(stages[0], Draw(1, (("a", "b", "c"), ("d", "e", "f"), ("g", "h", "i")),
                                    ("j",)),
                    [seats(("a", 8), ("b", 2), ("c", -10)), seats(("d", 6), ("e", 3), ("f", -9)),
                     seats(("g", 4), ("h", -2), ("i", -2))], "abcdefghij")
    assert isinstance(first, Advancement)
    second = advance(stages[1], Draw(2, (("j", "a", "d"), ("g", "e", "b")), ()),
                     [seats(("j", 5), ("a", 1), ("d", -6)), seats(("g", 3), ("e", 3), ("b", -6))],
                     "abcdefghij", first.scores)
    assert second == ExtraDeals((TieBreak(1, ("g", "e"), 1),))
    second = advance(stages[1], Draw(2, (("j", "a", "d"), ("g", "e", "b")), ()),
                     [seats(("j", 5), ("a", 1), ("d", -6)),
                      TableResult((Seat("g", 3, 0, -2), Seat("e", 3, 0, 4),
                                   Seat("b", -6, 0, -2)), 1)],
                     "abcdefghij", first.scores)
    assert isinstance(second, Advancement)
    # e won the play-off at table 2; g is the best runner-up (3 > a's 1)
    assert second.through == ("j", "g", "e") and second.out == (("a",), ("d", "b"))
    final = final_ranking(stages[2], Draw(3, (("e", "g", "j"),), ()),
                          seats(("e", 12), ("g", -6), ("j", -6)), "abcdefghij")
    assert final == FinalRanking((("e",), ("g", "j")), ())
    places = tournament_places(final, [first, second])
    assert places == {"e": 1, "g": 2, "j": 2, "a": 4, "d": 5, "b": 5, "h": 7, "i": 7,
                      "f": 9, "c": 10}
    signup = "abcdefghij"
    paid = split_pool(1000, [places[p] for p in signup], (40, 25, 15, 10, 5, 5))
    assert dict(zip(signup, paid, strict=True)) == {
        "a": 100, "b": 50, "c": 0, "d": 50, "e": 400, "f": 0, "g": 200, "h": 0, "i": 0, "j": 200}


# --- the referee ----------------------------------------------------------------------------

def test_the_referee_answers_a_draw_anyone_can_redo():
    answer = handle({"op": "tournament_draw", "seed": SEED, "players": list(range(1, 11)),
                     "stage": 1})
    assert answer == {"sha256": seed_hash(SEED), "stage": 1,
                      "tables": [[2, 4, 10], [7, 6, 3], [8, 1, 5]], "byes": [9]}
    four = handle({"op": "tournament_draw", "seed": SEED, "players": ["x", "y", "z", "w", "v"],
                   "stage": 3, "variant": "four"})
    assert [len(t) for t in four["tables"]] == [4] and len(four["byes"]) == 1
    scored = handle({"op": "tournament_draw", "seed": SEED, "players": [1, 2, 3, 4],
                     "stage": 2, "scores": [5, 9, None, 5]})
    assert scored["byes"] == [2]


@pytest.mark.parametrize(("request_", "message"), [
    ({"seed": SEED, "stage": 1}, "missing field 'players'"),
    ({"seed": SEED, "stage": 1, "players": [1, True, 3]}, "integer or string ids"),
    ({"seed": SEED, "stage": 1, "players": "abc"}, "integer or string ids"),
    ({"seed": SEED, "stage": 1, "players": [1, 2]}, "one whole table at least"),
    ({"seed": SEED, "stage": "1", "players": [1, 2, 3]}, "stage: a number"),
    ({"seed": "SEED", "stage": 1, "players": [1, 2, 3]}, "hex"),
    ({"seed": SEED, "stage": 1, "players": [1, 2, 3], "scores": [1]}, "one per player"),
    ({"seed": SEED, "stage": 1, "players": [1, 2, 3], "table_size": 6}, "table_size"),
    ({"seed": SEED, "stage": 1, "players": [1, 2, 3], "variant": "five"}, "variant"),
])
def test_the_referee_explains_a_draw_it_cannot_make(request_, message):
    answer = handle({"op": "tournament_draw", **request_})
    assert set(answer) == {"error"} and message in answer["error"]


def test_the_referee_command_line_answers_tournament_draw():
    line = json.dumps({"op": "tournament_draw", "seed": SEED, "players": [1, 2, 3, 4, 5, 6, 7],
                       "stage": 1})
    out = subprocess.run([sys.executable, "-m", "engine.judge"], input=line + "\n",
                         capture_output=True, text=True, check=True).stdout
    answer = json.loads(out)
    assert sorted([*answer["byes"], *(p for t in answer["tables"] for p in t)]) == \
        [1, 2, 3, 4, 5, 6, 7]
    assert answer["byes"] == by_hand(SEED, 1, [1, 2, 3, 4, 5, 6, 7])[:1]


def test_doctests() -> None:
    for name in ("engine.tournament.presets", "engine.tournament.draws",
                 "engine.tournament.advancement", "engine.prizes"):
        module = importlib.import_module(name)
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__
