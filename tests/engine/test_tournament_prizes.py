"""Prize tables and the pool's split (RULES.md §10, §10.1; engine/prizes.py), shared by
tournaments, matches and challenges."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.prizes import (
    DEFAULT_PRIZE_TABLE,
    MAX_PLACES,
    PrizeTableError,
    check_prize_table,
    largest_remainder,
    parse_prize_table,
    split_pool,
)


@pytest.mark.parametrize(("text", "table"), [
    ("50,30,20", (50, 30, 20)),
    ("60, 40", (60, 40)),
    ("100", (100,)),
    ("40/25/15/10/5/5", (40, 25, 15, 10, 5, 5)),
    (" 50% 30% 20% ", (50, 30, 20)),
    ("50，30，20", (50, 30, 20)),
    ("10,10,10,10,10,10,10,10,10,10", (10,) * 10),
])
def test_a_prize_table_is_read_from_what_an_admin_types(text, table):
    assert parse_prize_table(text) == table


@pytest.mark.parametrize(("text", "reason"), [
    ("", "at least one place"),
    ("60,30", "add up to 90 %, not 100 %"),
    ("50,30,30", "add up to 110 %"),
    ("30,50,20", "place 2 (50 %) would get more than place 1 (30 %)"),
    ("60,40,0", "place 3: a whole percentage from 1 to 100"),
    ("50.5,49.5", "'50.5' is not a whole percentage"),
    ("fifty,fifty", "'fifty' is not a whole percentage"),
    ("-50,150", "'-50' is not a whole percentage"),
    (",".join(["9"] * 11), "at most 10 places, not 11"),
])
def test_a_prize_table_that_cannot_be_used_says_why(text, reason):
    with pytest.raises(PrizeTableError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        parse_prize_table(text)
    assert issubclass(PrizeTableError, ValueError)


def test_check_prize_table_takes_a_list_and_refuses_odd_values():
    assert check_prize_table([70, 30]) == (70, 30)
    assert DEFAULT_PRIZE_TABLE == (50, 30, 20) and MAX_PLACES == 10
    with pytest.raises(PrizeTableError, match="list of whole percentages"):
        check_prize_table("50,50")  # type: ignore[arg-type]
    with pytest.raises(PrizeTableError, match="place 1"):
        check_prize_table([True])  # type: ignore[list-item]


def test_the_default_split_and_the_rules_for_few_finishers_and_shared_places():
    assert split_pool(300, [1, 2, 3]) == [150, 90, 60]
    assert split_pool(300, [3, 1, 2]) == [60, 150, 90]
    # fewer finishers: the unused shares go to first (RULES.md §10)
    assert split_pool(300, [1, 2, None]) == [210, 90, 0]
    assert split_pool(300, [None, 1, None]) == [0, 300, 0]
    # shared places share their shares (RULES.md §10.1)
    assert split_pool(300, [1, 2, 2]) == [150, 75, 75]
    assert split_pool(300, [1, 1, 3]) == [120, 120, 60]
    assert split_pool(300, [1, 1, 1]) == [100, 100, 100]
    # nobody placed: nothing paid here (the caller refunds)
    assert split_pool(300, [None, None]) == [0, 0]
    assert split_pool(0, [1, 2, 3]) == [0, 0, 0]


def test_odd_beans_go_to_the_better_place_then_to_the_earlier_sign_up():
    # 1001 × 50/30/20 = 500.5, 300.3, 200.2: the odd bean to the largest fraction (first)
    assert split_pool(1001, [1, 2, 3]) == [501, 300, 200]
    # 7 × 50/30/20 = 3.5, 2.1, 1.4: floors 3, 2, 1, the bean to first's .5
    assert split_pool(7, [1, 2, 3]) == [4, 2, 1]
    # equal fractions (10 × 40/30/30 = 4, 3, 3 exactly; 11 -> 4.4, 3.3, 3.3): the better place
    assert split_pool(11, [1, 2, 3], (40, 30, 30)) == [5, 3, 3]
    assert split_pool(2, [1, 2, 3], (34, 33, 33)) == [1, 1, 0]
    # a shared place's odd bean goes to whoever is listed first
    assert split_pool(101, [2, 1, 2], (60, 40)) == [20, 61, 20]
    assert split_pool(31, [1, 2, 2], (50, 30, 20)) == [16, 8, 7]


def test_a_longer_table_pays_more_places():
    table = (40, 25, 15, 10, 5, 5)
    assert split_pool(1000, [1, 2, 3, 4, 5, 6, 7, 8], table) == \
        [400, 250, 150, 100, 50, 50, 0, 0]
    assert split_pool(1000, [1, 2, 3, 4], table) == [500, 250, 150, 100]


@pytest.mark.parametrize(("pool", "places", "message"), [
    (-1, [1], "must be a whole number"),
    (10, [2, 3], "ranks starting at 1"),
    (10, [1, 3], "ranks starting at 1"),
    (10, [1, 1, 2], "ranks starting at 1"),
])
def test_a_split_that_makes_no_sense_is_refused(pool, places, message):
    with pytest.raises(ValueError, match=message):
        split_pool(pool, places)


@st.composite
def tables(draw: st.DrawFn) -> tuple[int, ...]:
    """A valid prize table: 100 cut into 1–10 whole parts, largest first."""
    cuts = sorted(draw(st.sets(st.integers(1, 99), max_size=MAX_PLACES - 1)))
    parts = [b - a for a, b in zip([0, *cuts], [*cuts, 100], strict=True)]
    return tuple(sorted(parts, reverse=True))


@st.composite
def ranks(draw: st.DrawFn) -> list[int | None]:
    """Competition ranks (1, 2, 2, 4, …) in a shuffled order, with some players unplaced."""
    scores = draw(st.lists(st.integers(0, 5), min_size=0, max_size=14))
    places: list[int | None] = [1 + sum(o > s for o in scores) for s in scores]
    places += [None] * draw(st.integers(0, 3))
    return draw(st.permutations(places))


@settings(max_examples=300, deadline=None)
@given(pool=st.integers(0, 10**7), places=ranks(),
       table=st.one_of(st.just(DEFAULT_PRIZE_TABLE), st.just((100,)), tables()))
def test_prizes_sum_to_the_pool_and_never_rise_down_the_places(pool, places, table):
    paid = split_pool(pool, places, table)
    assert len(paid) == len(places)
    placed = [(p, a) for p, a in zip(places, paid, strict=True) if p is not None]
    assert sum(paid) == (pool if placed else 0)
    assert all(a == 0 for p, a in zip(places, paid, strict=True) if p is None)
    for place, amount in placed:
        for other, other_amount in placed:
            if place < other:
                assert amount >= other_amount
            if place == other:
                assert abs(amount - other_amount) <= 1


def test_largest_remainder_is_the_engine_one_everywhere():
    assert largest_remainder(10, [1, 2, 3]) == [2, 3, 5]
    assert largest_remainder(7, [0, 5, 5]) == [0, 4, 3]


@pytest.mark.parametrize("text,rule,fields", [
    ("60,30", "sum", {"total": 90}),
    ("40,60", "order", {"place": 2, "share": 60, "above": 40}),
    (",".join(["10"] * 11), "places", {"places": 11}),
    ("0,100", "share", {"place": 1, "share": 0}),
    ("2/1", "sum", {"total": 3}),
    ("fifty", "text", {"word": "fifty"}),
    ("", "empty", {}),
])
def test_a_refused_table_names_the_rule_it_broke(text: str, rule: str, fields: dict) -> None:
    """A caller words the refusal in the admin's language from the rule and its values."""
    with pytest.raises(PrizeTableError) as caught:
        parse_prize_table(text)
    assert (caught.value.rule, caught.value.fields) == (rule, fields)
