"""Combinations (RULES.md §5) and what beats what (RULES.md §6)."""

from __future__ import annotations

import doctest

import pytest

import engine.combos
from engine.cards import parse_ranks
from engine.combos import (
    ComboType,
    Play,
    beat_reason,
    beats,
    body_size,
    classify,
    play_groups,
)
from engine.presets import SCORE, preset


def readings(text: str, **options: bool) -> list[tuple[str, str, int]]:
    rules = preset("score", **options) if options else SCORE
    return [(p.type.value, p.main_char, p.n) for p in classify(parse_ranks(text), rules)]


def play(text: str, **options: bool) -> Play:
    rules = preset("score", **options) if options else SCORE
    (reading,) = classify(parse_ranks(text), rules)
    return reading


# ---------------------------------------------------------------- RULES.md §5 table


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7", ("single", "7", 1)),
        ("X", ("single", "X", 1)),
        ("99", ("pair", "9", 1)),
        ("22", ("pair", "2", 1)),
        ("JJJ", ("trio", "J", 1)),
        ("222", ("trio", "2", 1)),
        ("JJJ5", ("trio_single", "J", 1)),
        ("5JJJ", ("trio_single", "J", 1)),
        ("AAAX", ("trio_single", "A", 1)),
        ("JJJ55", ("trio_pair", "J", 1)),
        ("22233", ("trio_pair", "2", 1)),
        ("3456789", ("straight", "9", 7)),
        ("334455", ("pair_chain", "5", 3)),
        ("333444", ("plane", "4", 2)),
        ("33344479", ("plane_single", "4", 2)),
        ("3334447799", ("plane_pair", "4", 2)),
        ("555538", ("four_two_singles", "5", 1)),
        ("55553388", ("four_two_pairs", "5", 1)),
        ("8888", ("bomb", "8", 1)),
        ("XD", ("rocket", "D", 1)),
    ],
)
def test_rules_5_examples_of_each_type(text: str, expected: tuple[str, str, int]) -> None:
    assert readings(text) == [expected]


def test_play_keeps_sorted_cards_and_prints_canonically() -> None:
    p = play("56333444")
    assert p == Play(ComboType.PLANE_SINGLE, 1, 2, (0, 0, 0, 1, 1, 1, 2, 3))
    assert str(p) == "33344456"
    assert p.main_char == "4"


@pytest.mark.parametrize("text", ["9T", "3344", "33445", "JJJ56", "99923", "2X", "22X", "XA5"])
def test_rules_5_shapes_that_are_nothing(text: str) -> None:
    assert readings(text) == []


def test_classify_of_nothing_is_nothing() -> None:
    assert classify(()) == []


# ---------------------------------------------------------------- chain ranks and lengths


def test_rules_5_chains_use_3_to_a_only() -> None:
    """A 2 or a joker may never be part of a straight, pair chain or plane body."""
    assert readings("TJQKA") == [("straight", "A", 5)]
    assert readings("JQKA2") == []
    assert readings("23456") == []
    assert readings("345A2") == []
    assert readings("QQKKAA") == [("pair_chain", "A", 3)]
    assert readings("KKAA22") == []
    assert readings("KKKAAA") == [("plane", "A", 2)]
    assert readings("AAA222") == []


def test_rules_5_straight_length_5_to_12() -> None:
    assert readings("3456") == []
    assert readings("34567") == [("straight", "7", 5)]
    assert readings("3456789TJQKA") == [("straight", "A", 12)]
    assert readings("3456789TJQKA2") == []


def test_rules_5_pair_chain_length_3_to_10() -> None:
    assert readings("3344") == []
    assert readings("33445566778899TTJJ") == [("pair_chain", "J", 9)]
    assert readings("33445566778899TTJJQQ") == [("pair_chain", "Q", 10)]


def test_rules_5_plane_length_2_to_6() -> None:
    assert readings("333444555666777888") == [("plane", "8", 6)]
    assert readings("333444555666777") == [("plane", "7", 5)]


def test_rules_5_plane_single_length_2_to_5() -> None:
    assert readings("33344455566677789TJQ") == [("plane_single", "7", 5)]
    assert readings("QQQKKKAAA") == [("plane", "A", 3)]


def test_rules_5_plane_pair_length_2_to_4() -> None:
    assert readings("33344455566677788899TT") == []  # 22 cards: too long for anything
    assert readings("333444555666778899TT") == [("plane_pair", "6", 4)]
    assert readings("3334445566") == [("plane_pair", "4", 2)]


def test_rules_5_chains_must_be_consecutive() -> None:
    assert readings("34568") == []
    assert readings("334466") == []
    assert readings("333555") == []
    assert readings("33355579") == []


# ---------------------------------------------------------------- kicker rules


def test_rules_5_kicker_never_shares_a_rank_with_the_body() -> None:
    assert readings("33334") == []  # 3333 + 4 is not a trio with a single
    assert readings("34445555") == []
    assert readings("3333444555") == []
    assert readings("3334445555") == []


def test_rules_5_kickers_never_hold_four_of_a_rank() -> None:
    assert readings("33334444") == []
    assert readings("33335555") == []
    assert readings("3334445555") == []
    assert readings("3334445556667777") == []


def test_rules_5_jokers_are_never_kickers_together() -> None:
    assert readings("3333XD") == []
    assert readings("2222XD") == []
    assert readings("333444XD") == []
    assert readings("33344455XD") == []
    assert readings("3333X") == []
    assert readings("222XD") == []


def test_rules_5_one_joker_may_be_a_kicker() -> None:
    assert readings("333444X5") == [("plane_single", "4", 2)]
    assert readings("AAAA2X") == [("four_two_singles", "A", 1)]
    assert readings("333444555666999X") == [("plane_single", "6", 4)]


def test_rules_5_single_kickers_may_share_a_rank() -> None:
    """Kickers of plane_single and four_two_singles are cards: two may be a pair."""
    assert readings("333344") == [("four_two_singles", "3", 1)]
    assert readings("AAAA22") == [("four_two_singles", "A", 1)]
    assert readings("33344455") == [("plane_single", "4", 2)]
    assert readings("KKKAAA22") == [("plane_single", "A", 2)]


def test_rules_5_plane_single_wings_may_be_a_trio_not_adjacent_to_the_body() -> None:
    assert readings("333444555777") == [("plane_single", "5", 3)]
    assert readings("333555666777") == [("plane_single", "7", 3)]
    assert readings("333444555666") == [("plane", "6", 4)]  # never a 3-trio plane_single
    assert readings("3334445556667778") == []  # 333 or 777 would extend the body
    assert readings("555666777888") == [("plane", "8", 4)]


def test_rules_5_a_trio_of_2s_is_never_adjacent() -> None:
    assert readings("QQQKKKAAA222") == [("plane_single", "A", 3)]


def test_rules_5_pair_kickers_are_pairs_of_distinct_ranks() -> None:
    assert readings("33334455") == [("four_two_pairs", "3", 1)]
    assert readings("3334445567") == []
    assert readings("3334445555") == []  # 5555 is not two pairs
    assert readings("33345555") == []


def test_rules_5_plane_pair_wings_may_be_adjacent_pairs() -> None:
    assert readings("3334445566") == [("plane_pair", "4", 2)]


def test_rules_5_trio_pair_kicker_is_a_pair() -> None:
    assert readings("44646") == [("trio_pair", "4", 1)]
    assert readings("JJJ56") == []


def test_rules_5_every_set_has_at_most_one_reading_by_default() -> None:
    """RULES.md §5: with the default kicker rules every legal set has exactly one reading."""
    for text in ["333444555666", "333444555777", "33334444", "3333444455556666"]:
        assert len(readings(text)) <= 1


# ---------------------------------------------------------------- house options


def test_rules_5_house_option_rocket_kickers() -> None:
    assert readings("3333XD", rocket_kickers=True) == [("four_two_singles", "3", 1)]
    assert readings("333444XD", rocket_kickers=True) == [("plane_single", "4", 2)]
    assert readings("XD", rocket_kickers=True) == [("rocket", "D", 1)]


def test_rules_5_house_option_four_two_is_bomb() -> None:
    """With ``four_two_is_bomb`` a four with two kickers is a bomb ranked by its four."""
    assert readings("333345", four_two_is_bomb=True) == [("bomb", "3", 1)]
    assert readings("33334455", four_two_is_bomb=True) == [("bomb", "3", 1)]
    assert readings("3333", four_two_is_bomb=True) == [("bomb", "3", 1)]
    four_two = play("444456", four_two_is_bomb=True)
    assert beats(four_two, play("3333"))
    assert beats(four_two, play("AAA22"))
    assert not beats(play("3333"), four_two)
    assert beats(play("5555"), four_two)
    # RULES.md §5/§6: like a bomb of its four's rank, whatever its kickers are
    four_two_pairs = play("55553388", four_two_is_bomb=True)
    assert beats(four_two_pairs, four_two) and not beats(four_two, four_two_pairs)
    assert beats(four_two_pairs, play("444456", four_two_is_bomb=True))
    assert beats(play("XD"), four_two_pairs) and not beats(four_two_pairs, play("XD"))


def test_rules_5_four_two_is_not_a_bomb_by_default() -> None:
    assert readings("333345") == [("four_two_singles", "3", 1)]
    assert not beats(play("AAAA34"), play("KK"))


# ---------------------------------------------------------------- reading order


def test_body_size_counts_cards_without_kickers() -> None:
    assert body_size(play("333444555777")) == 9
    assert body_size(play("333444555666")) == 12
    assert body_size(play("JJJ55")) == 3
    assert body_size(play("555538")) == 4
    assert body_size(play("3456789")) == 7
    assert body_size(play("XD")) == 2


# ---------------------------------------------------------------- RULES.md §6


def test_rules_6_rocket_beats_everything() -> None:
    rocket = play("XD")
    for text in ["3", "22", "2222", "34567", "333345", "AAAA2X"]:
        assert beats(rocket, play(text))
    assert beats(rocket, rocket)  # RULES.md §6 says "everything"; the shared cases agree


def test_rules_6_nothing_but_a_rocket_beats_a_rocket() -> None:
    rocket = play("XD")
    assert not beats(play("2222"), rocket)
    assert beat_reason(play("2222"), rocket) == "too_low"
    assert beat_reason(play("D"), rocket) == "too_low"


def test_rules_6_bomb_beats_every_non_bomb() -> None:
    bomb = play("3333")
    for text in ["2", "22", "AAA22", "3456789TJQKA", "444455", "4444556677", "QQQKKKAAA222"]:
        if classify(parse_ranks(text)):
            assert beats(bomb, play(text)), text


def test_rules_6_bombs_compare_by_rank() -> None:
    assert beats(play("4444"), play("3333"))
    assert not beats(play("3333"), play("4444"))
    assert beat_reason(play("3333"), play("4444")) == "too_low"
    assert beat_reason(play("3333"), play("3333")) == "too_low"


def test_rules_6_same_type_and_size_compared_by_main_rank() -> None:
    assert beats(play("4445"), play("3339"))
    assert beat_reason(play("3339"), play("4445")) == "too_low"
    assert beats(play("D"), play("X"))
    assert beats(play("X"), play("2"))
    assert beats(play("2"), play("A"))
    assert beat_reason(play("22"), play("22")) == "too_low"
    assert beats(play("TJQKA"), play("9TJQK"))
    assert beat_reason(play("3456789"), play("456789T")) == "too_low"
    assert beats(play("444555666777"), play("333444555666"))


def test_rules_6_kickers_never_matter() -> None:
    assert beats(play("44455566"), play("333444AK"))
    assert beats(play("555534"), play("4444AK"))
    assert beat_reason(play("333444AK"), play("33344456")) == "too_low"


def test_rules_6_type_mismatch() -> None:
    assert beat_reason(play("4445"), play("33355")) == "type_mismatch"
    assert beat_reason(play("44"), play("3")) == "type_mismatch"
    assert beat_reason(play("JJJ5"), play("TTT99")) == "type_mismatch"
    assert beat_reason(play("55556677"), play("444489")) == "type_mismatch"
    assert beat_reason(play("333444555777"), play("333444555666")) == "type_mismatch"
    assert beat_reason(play("AA"), play("3333")) == "type_mismatch"


def test_rules_6_length_mismatch() -> None:
    assert beat_reason(play("456789"), play("34567")) == "length_mismatch"
    assert beat_reason(play("44556677"), play("334455")) == "length_mismatch"
    assert beat_reason(play("444555666"), play("333444")) == "length_mismatch"


def test_beats_agrees_with_beat_reason() -> None:
    pairs = [("4445", "3339"), ("3339", "4445"), ("XD", "2222"), ("44", "3")]
    for a, b in pairs:
        assert beats(play(a), play(b)) == (beat_reason(play(a), play(b)) is None)


def test_doctests() -> None:
    assert doctest.testmod(engine.combos).failed == 0


@pytest.mark.parametrize(("text", "groups"), [
    ("5", ["5"]),
    ("TT", ["TT"]),
    ("3555", ["555", "3"]),
    ("3TTT", ["TTT", "3"]),
    ("33555", ["555", "33"]),
    ("34567", ["3", "4", "5", "6", "7"]),
    ("334455", ["33", "44", "55"]),
    ("333444", ["333", "444"]),
    ("33344456", ["333", "444", "5", "6"]),
    ("3334445566", ["333", "444", "55", "66"]),
    ("355558", ["5555", "3", "8"]),
    ("33555588", ["5555", "33", "88"]),
    ("7777", ["7777"]),
    ("XD", ["X", "D"]),
])
def test_rules_5_play_groups_put_the_body_first_then_each_kicker(text, groups) -> None:
    (play,) = classify(parse_ranks(text))
    assert play_groups(play) == tuple(parse_ranks(g) for g in groups)


def test_play_groups_of_a_four_with_two_read_as_a_bomb() -> None:
    rules = preset("score", four_two_is_bomb=True)
    (six,) = classify(parse_ranks("355558"), rules)
    (eight,) = classify(parse_ranks("33555588"), rules)
    assert six.type is eight.type is ComboType.BOMB
    assert play_groups(six) == ((2, 2, 2, 2), (0,), (5,))
    assert play_groups(eight) == ((2, 2, 2, 2), (0, 0), (5, 5))
