"""The judge's ``replay`` operation (shared/cases/README.md; RULES.md §1–§4, §7)."""

from __future__ import annotations

import pytest

from engine.replay import run_replay

HANDS = ["XD2222AAAAKKKKQQQ", "3333444455556666Q", "777788889999TTTTJ"]


def request(actions, preset="score", **extra):
    return {"op": "replay", "preset": preset, "hands": HANDS, "kitty": "JJJ",
            "first_bidder": 0, "actions": actions, **extra}


def test_finished_replay_reports_the_result_rules_7():
    out = run_replay(request(["bid 3", "play JJJQQQ", "pass", "pass", "play KKKK", "pass", "pass",
                              "play AAAA", "pass", "pass", "play 2222", "pass", "pass",
                              "play XD"]))
    assert out == {"ok": True, "finished": True, "landlord": 0, "base": 3, "winner": "landlord",
                   "bombs": 4, "rockets": 1, "spring": True, "anti_spring": False,
                   "multiplier": [32, 32], "points": [192, -96, -96], "escaped": [],
                   "autoplay_penalized": []}


def test_unfinished_replay_reports_the_state_so_far():
    out = run_replay(request(["bid 2", "pass", "pass", "play KKKK"]))
    assert out == {"ok": True, "finished": False, "phase": "playing", "to_act": [1],
                   "landlord": 0, "base": 2, "bombs": 1, "multiplier": [2, 2],
                   "counts": [16, 17, 17]}


def test_rob_replay_doubling_decisions_in_seat_order_from_the_landlord_rules_3():
    out = run_replay(request(["decline", "call", "norob", "nodouble", "double", "nodouble"],
                             preset="rob"))
    # landlord 1 decides first, then seat 2 (doubles), then seat 0
    assert (out["landlord"], out["multiplier"], out["to_act"]) == (1, [1, 2], [1])


def test_illegal_action_stops_the_replay_with_its_index():
    out = run_replay(request(["bid 2", "bid 1"]))
    assert (out["ok"], out["at"], out["code"]) == (False, 1, "bid_too_low")
    assert run_replay(request(["bid 3", "fly 3"]))["at"] == 1
    assert run_replay(request(["bid 3", "play 3"]))["code"] == "not_in_hand"


def test_actions_after_the_end_are_illegal():
    out = run_replay(request(["pass", "pass", "pass", "bid 1"]))
    assert (out["ok"], out["at"], out["code"]) == (False, 3, "wrong_phase")


def test_options_third_min_two_rules_2_1():
    assert run_replay(request(["pass", "pass", "bid 1"]))["landlord"] == 2
    out = run_replay(request(["pass", "pass", "bid 1"], options={"third_min_two": True}))
    assert (out["ok"], out["at"], out["code"]) == (False, 2, "bid_not_allowed")


@pytest.mark.parametrize("bad", [
    {"op": "replay", "preset": "score", "kitty": "JJJ", "actions": []},
    request([], hands=["XD2222AAAAKKKKQQQ", "3333444455556666Q", "777788889999TTTTZ"]),
    request([], hands=["XD2222AAAAKKKKQQQ", "3333444455556666Q", "777788889999TTTTT"]),
    request([], hands="XD2222"),
    request([], preset="chess"),
    request([], options={"no_such_option": True}),
    request("bid 3"),
    request([], first_bidder=5),
])
def test_malformed_requests_get_an_error_and_no_exception(bad):
    out = run_replay(bad)
    assert set(out) == {"error"} and out["error"]


# RULES.md §9 through the referee: ``leave`` and ``autoplay 0|1`` are made by the seat to act.
PLAIN_LINE = ["play J", "play Q", "pass", "play K", "pass", "pass", "play JJQQQ", "pass", "pass",
              "play AAKKK", "pass", "pass", "play AA", "pass", "pass", "play 222", "pass", "pass",
              "play 2", "pass", "pass", "play X", "pass", "pass", "play D"]


def test_a_leave_after_two_robs_costs_3_x_base_x_4_rules_9():
    """The caller, about to rob back after two robs (×4), leaves: 3 × 1 × 4 = 12, not 6."""
    out = run_replay(request(["call", "rob", "rob", "leave"], preset="rob"))
    assert out == {"ok": True, "finished": True, "landlord": None, "base": 1, "winner": None,
                   "bombs": 0, "rockets": 0, "spring": False, "anti_spring": False,
                   "multiplier": [], "points": [-12, 6, 6], "escaped": [0],
                   "autoplay_penalized": []}
    assert run_replay(request(["leave"], preset="rob"))["points"] == [-6, 3, 3]
    assert run_replay(request(["bid 2", "leave"]))["points"] == [3, -6, 3]


def test_a_farmer_who_took_back_control_still_bears_the_autoplay_penalty_rules_9():
    """Seat 1's Q is played on auto-play; it switches auto-play off on its next turn and passes
    to the end, yet bears both farmers' losses."""
    actions = ["bid 3", PLAIN_LINE[0], "autoplay 1", *PLAIN_LINE[1:4], "autoplay 0",
               *PLAIN_LINE[4:]]
    out = run_replay(request(actions))
    assert (out["winner"], out["points"], out["autoplay_penalized"]) == (
        "landlord", [6, -6, 0], [1])
    switched_only = ["bid 3", PLAIN_LINE[0], "autoplay 1", "autoplay 0", *PLAIN_LINE[1:]]
    out = run_replay(request(switched_only))  # never played by auto-play: no penalty
    assert (out["points"], out["autoplay_penalized"]) == ([6, -3, -3], [])
