"""Three failed landlord deals (RULES.md §11, seed 004 rule 5: 當一位選手在一輪中做了三副大地主失敗
時，以後不得再爭叫地主。逼打除外): a seat the caller bars may only pass in the bidding, and the
forced landlord (逼打) still falls on a barred first bidder."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import FOUR, SCORE, Action, DealState, IllegalAction, apply, auto_action, new_deal
from engine.ai import LEVELS, choose_action
from engine.bidding import Bidding, bid_step, bidding_choices
from engine.judge import handle
from engine.replay import apply_texts, deal_from_strings
from tests.engine.test_four_deal import HANDS, KITTY

BAR_1 = (False, True, False, False)


def barred_deal(barred=BAR_1, first_bidder=0) -> DealState:
    return deal_from_strings(FOUR, HANDS, KITTY, first_bidder=first_bidder, barred=barred)


def test_rules_11_a_barred_seat_may_only_pass_the_others_bid_as_usual():
    state = barred_deal()
    assert [str(a) for a in state.legal_actions(0)] == ["bid 1", "bid 2", "bid 3", "pass"]
    state = apply_texts(state, ["bid 1"])
    assert [str(a) for a in state.legal_actions(1)] == ["pass"]
    assert state.view(1).bidding.is_barred(1) and not state.view(1).bidding.is_barred(2)
    state = apply_texts(state, ["pass"])
    assert [str(a) for a in state.legal_actions(2)] == ["bid 2", "bid 3", "pass"]


@pytest.mark.parametrize("bid", [1, 2, 3])
def test_rules_11_a_bid_of_a_barred_seat_is_refused_and_changes_nothing(bid):
    state = barred_deal(first_bidder=1)
    with pytest.raises(IllegalAction) as info:
        apply(state, Action("bid", 1, value=bid))
    assert info.value.code == "barred"
    assert state.to_act == (1,) and state.history == () and state.bidding.high_bid == 0


def test_rules_11_forced_landlord_excepted_a_barred_first_bidder_is_landlord_when_all_pass():
    state = apply_texts(barred_deal(first_bidder=1), ["pass"] * 4)
    assert (state.phase, state.landlord, state.base) == ("playing", 1, 1)
    assert state.bomb_limits == (0, None, 1, 1)  # 逼打's allowances, as without a bar
    assert state.counts[1] == 33


def test_rules_11_every_seat_barred_still_ends_in_a_forced_landlord():
    state = barred_deal(barred=(True,) * 4, first_bidder=2)
    for seat in (2, 3, 0, 1):
        assert state.to_act == (seat,) and state.legal_actions(seat) == [Action("pass", seat)]
        state = apply(state, Action("pass", seat))
    assert (state.landlord, state.base) == (2, 1)


def test_a_seat_that_must_bid_is_not_barred():
    """Forced excepted: should a seat both be barred and have to bid (RULES.md §2.3's
    ``must_bid``, which a four-player deal never sets), the obligation wins."""
    bidding = Bidding(0, (0, 1, 2, 3), must_bid=0, barred=(True, True, False, False))
    assert bidding_choices(bidding, FOUR) == [("bid", 2), ("bid", 3)]
    bidding = bid_step(bidding, FOUR, Action("bid", 0, value=2))
    assert bidding_choices(bidding, FOUR) == [("pass", None)]  # seat 1: barred, not forced


def test_rules_9_a_barred_seat_that_times_out_passes():
    state = barred_deal(first_bidder=1)
    assert auto_action(state, 1) == Action("pass", 1)
    state = apply(state, Action("timeout", 1))
    assert state.history[-1] == Action("pass", 1) and state.to_act == (2,)


@pytest.mark.parametrize("level", LEVELS)
def test_the_ai_of_a_barred_seat_passes_even_with_the_strongest_hand(level):
    # seat 3 holds 天尊 and eight 2s: every level bids 3 with it unbarred
    free = deal_from_strings(FOUR, HANDS, KITTY, first_bidder=3)
    assert choose_action(free.view(3), level, seed=1).kind == "bid"
    state = barred_deal(barred=(False, False, False, True), first_bidder=3)
    assert choose_action(state.view(3), level, seed=1) == Action("pass", 3)


def test_the_bar_is_stored_with_the_deal_and_an_old_state_reads_with_none():
    state = apply_texts(barred_deal(), ["bid 1"])
    back = DealState.from_json(state.to_json())
    assert back == state and back.bidding.barred == BAR_1
    data = json.loads(new_deal(FOUR, seed=5).to_json())
    assert "barred" in data["bidding"]
    del data["bidding"]["barred"]  # a state stored before the bar existed
    old = DealState.from_json(json.dumps(data))
    assert old.bidding.barred == () and not any(old.bidding.is_barred(s) for s in range(4))
    assert len(old.legal_actions(0)) == 4


def test_no_bar_is_stored_as_none():
    assert new_deal(FOUR, seed=1, barred=(False,) * 4).bidding.barred == ()
    assert new_deal(FOUR, seed=1).bidding == new_deal(FOUR, seed=1, barred=[False] * 4).bidding


def test_a_bar_needs_one_flag_per_seat_and_the_four_player_game():
    with pytest.raises(ValueError, match="one flag per seat"):
        new_deal(FOUR, seed=1, barred=(True, False))
    with pytest.raises(ValueError, match="four-player"):
        new_deal(SCORE, seed=1, barred=(True, False, False))
    assert new_deal(SCORE, seed=1, barred=(False,) * 3).bidding.barred == ()


@settings(max_examples=150, deadline=None)
@given(barred=st.tuples(*[st.booleans()] * 4), first=st.integers(0, 3),
       picks=st.lists(st.integers(0, 3), min_size=4, max_size=4))
def test_property_a_barred_seat_only_passes_and_is_landlord_only_when_forced(barred, first,
                                                                              picks):
    """Whatever the bar, first bidder and choices: a barred seat to speak is offered only pass
    and its bid is refused; the landlord is a seat that bid, or the first bidder at base 1 after
    four passes (逼打, the one way a barred seat becomes landlord)."""
    state = new_deal(FOUR, seed=first, first_bidder=first, barred=barred)
    for pick in picks:
        if state.phase != "bidding":
            break
        seat = state.to_act[0]
        legal = state.legal_actions(seat)
        if barred[seat]:
            assert legal == [Action("pass", seat)]
            with pytest.raises(IllegalAction) as info:
                apply(state, Action("bid", seat, value=3))
            assert info.value.code == "barred"
        else:
            assert Action("bid", seat, value=3) in legal and Action("pass", seat) in legal
        state = apply(state, legal[pick % len(legal)])
    assert state.phase == "playing"
    bidders = {a.seat for a in state.history if a.kind == "bid"}
    assert not bidders & {s for s in range(4) if barred[s]}
    if bidders:
        assert state.landlord in bidders and state.base == state.bidding.high_bid
    else:
        assert (state.landlord, state.base) == (first, 1)


# ---------------------------------------------------------------- the referee


def replay(actions, **extra):
    return handle({"op": "replay", "variant": "four", "hands": HANDS, "kitty": KITTY,
                   "first_bidder": 0, "actions": actions, **extra})


def test_referee_replay_takes_the_barred_seats():
    assert replay(["bid 1", "bid 2"], barred=[1]) == {
        "ok": False, "at": 1, "code": "barred",
        "error": "You lost three deals as landlord: you may only pass (RULES.md §11)."}
    out = replay(["bid 1", "pass", "bid 2"], barred=[1])
    assert out["ok"] and out["phase"] == "bidding" and out["to_act"] == [3]
    out = replay(["pass"] * 4, barred=[0, 1, 2, 3])
    assert out["ok"] and (out["landlord"], out["base"], out["phase"]) == (0, 1, "playing")
    assert replay(["bid 1", "bid 2"])["ok"]  # no bar: as before


@pytest.mark.parametrize("bad", [[4], [-1], ["1"], [True], 1, {"1": True}])
def test_referee_refuses_a_malformed_bar(bad):
    assert "barred" in replay([], barred=bad)["error"]


def test_referee_refuses_a_bar_in_the_three_player_game():
    out = handle({"op": "replay", "hands": ["3333444455556666X", "777788889999TTTTD",
                                             "JJJJQQQQKKKKAAAA2"], "kitty": "222",
                  "actions": [], "barred": [1]})
    assert "four-player" in out["error"]
