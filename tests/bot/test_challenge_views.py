"""What members read about a duplicate challenge (bot/features/challenge/views.py), the buttons'
data that nothing forged gets past, and the AI seats' seeded decisions (issue 12)."""

from __future__ import annotations

import json

import pytest

from bot.features.challenge.views import (
    ChallengeDataError,
    DealLine,
    challenge_callback,
    comparison,
    judge_command,
    line_text,
    parse_challenge_callback,
)
from engine import SCORE, Action, apply
from engine.ai import choose_action
from engine.challenge import ai_seed, challenge_deal, deal_state

SEED = "00112233445566778899aabbccddeeff"


def test_buttons_round_trip_and_forged_data_is_refused():
    for data in (challenge_callback(7, "enter"), challenge_callback(7, "play", 12),
                 challenge_callback(123456789012, "view", 1)):
        press = parse_challenge_callback(data)
        assert challenge_callback(press.challenge_id, press.op, press.deal) == data
    for forged in ("D:7:play:0", "D:7:play:13", "D:7:enter:1", "D:0:play:1", "D:7:peek:1",
                   "D:07:play:1", "D:7:play:1:x", "D:7:play:01", "S:7:play:1", None, 7,
                   "D:1234567890123:play:1"):
        with pytest.raises(ChallengeDataError):
            parse_challenge_callback(forged)


def test_the_comparison_lists_the_others_best_first_and_stars_the_best():
    mine = DealLine("Ann", 2, "farmer", 1)
    others = [DealLine("Bob", -4, "farmer", 0), DealLine("Cy", 6, "landlord", 2, "3 points")]
    text = comparison(3, 1, 2, mine, others, "en")
    lines = text.splitlines()
    assert lines[0] == "Duplicate challenge #3 · deal 1/2"
    assert lines[1] == "You: +2 points (farmer) · 1 matchpoint so far"
    assert lines[3] == "⭐ Cy: +6 points (landlord) · 2 matchpoints"
    assert lines[4] == "Bob: -4 points (farmer) · 0 matchpoints"
    assert comparison(3, 1, 2, DealLine("Ann", 1, "landlord", 1), others, "zh-Hans"
                      ).splitlines()[1] == "你：+1 分（地主）· 目前 1 比赛分"
    assert lines[5] == "Best line (Cy): 3 points"
    alone = comparison(3, 1, 2, mine, [], "zh-Hans")
    assert "还没有其他人打过这副牌" in alone


def test_the_judge_command_carries_the_revealed_seed():
    command = judge_command(SEED, 2)
    request = command.split("'")[1]
    assert json.loads(request) == {"op": "challenge", "seed": SEED, "deals": 2}
    assert command.endswith("| python -m engine.judge")


def test_the_ai_seats_answer_the_same_way_to_the_same_deal_and_history():
    state = deal_state(challenge_deal(SEED, 2), SCORE)  # seat 1 bids first
    for _ in range(12):
        if state.phase == "finished" or state.to_act == (0,):
            break
        seat = state.to_act[0]
        seed = ai_seed(SEED, 2, len(state.history))
        first = choose_action(state.view(seat), "hard", seed=seed)
        assert choose_action(state.view(seat), "hard", seed=seed) == first
        state = apply(state, first)
    assert ai_seed(SEED, 2, 5) == f"{SEED}:2:5" != ai_seed(SEED, 3, 5)


def test_a_line_of_play_shows_bids_and_plays_not_passes():
    history = [Action("bid", 1, value=1), Action("bid", 0, value=3), Action("play", 0,
               cards=(7, 8, 9, 10, 11)), Action("pass", 0), Action("play", 0, cards=(13, 14)),
               Action("play", 0, cards=(0, 0))]
    assert line_text(history, 0, SCORE, "en") == \
        "3 points · 10 J Q K A · Small joker Big joker · 33"
    assert line_text(history, 0, SCORE, "zh-Hans").startswith("3分 · 10 J Q K A · ")


def test_one_deal_is_singular_in_english():
    from bot.core.i18n import t

    assert t("challenge.about", "en", n=1).startswith("1 deal, ")
    assert t("challenge.about", "en", n=3).startswith("3 deals, ")
    assert t("challenge.menu_about", "en", n=1, time="20:00", tz="UTC") == (
        "1 deal against two AI seats · open until 20:00 (UTC).")
    assert t("challenge.about", "zh-Hans", n=1).startswith("共 1 副牌")


def test_a_challenge_deals_turn_notice_names_the_challenge_not_the_group():
    from bot.core.table import Competition, Seat, Table
    from bot.game.deal.notices import _notice_text

    table = Table(42, None, "zh-Hans", title="斗地主群", private=True,
                  competition=Competition(challenge_id=3, challenge_deal=2))
    table.seats = [Seat(42, "Ann"), Seat(None, "机器人2", True), Seat(None, "机器人3", True)]
    assert _notice_text(table, 0) == "🔔 轮到你了！（复式挑战 #3 · 第 2 副）"
    table.competition.challenge_id = table.competition.challenge_deal = None
    assert _notice_text(table, 0) == "🔔 轮到你了！（斗地主群）"
