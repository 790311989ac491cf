"""The private status line and the result line (issue 10 item 2) in every language."""

from __future__ import annotations

import pytest

from bot.core.i18n import t
from bot.core.table import Seat, Table
from bot.presentation import views
from engine import SCORE, Action, DealState, apply, new_deal


def _table(lang: str) -> Table:
    table = Table(chat_id=-1, thread_id=None, lang=lang)
    table.seats = [Seat(1, "Ann"), Seat(2, "Bob"), Seat(3, "Cat")]
    return table


def _alarm_deal() -> DealState:
    """Ann (seat 0) bids 3 and is the landlord; she leads singles while Bob and Cat pass, until
    she has two cards left (the alarm) and Bob is to follow."""
    state = apply(new_deal(SCORE, seed=3, first_bidder=0), Action("bid", 0, value=3))
    while len(state.hands[0]) > 2:
        seat = state.to_act[0]
        if seat == 0:
            single = min((p for p in state.view(0).legal_plays() if len(p.cards) == 1),
                         key=lambda p: p.cards)
            state = apply(state, Action("play", 0, cards=single.cards, type=single.type))
        else:
            state = apply(state, Action("pass", seat))
    return state


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", "Cat (Farmer) 17 cards · Ann (Landlord) ⚠️2 cards · Multiplier ×1 · Kitty: "),
    ("zh-Hans", "Cat（农民）17张 · Ann（地主）⚠️2张 · 倍数 ×1 · 底牌："),
    ("zh-Hant", "Cat（農民）17張 · Ann（地主）⚠️2張 · 倍數 ×1 · 底牌："),
])
def test_the_status_line_names_the_next_seat_first_and_warns_at_the_alarm(lang, expected):
    state = _alarm_deal()
    line = views.status_line(_table(lang), state.view(1), lang)
    assert line.startswith(expected)
    assert line.endswith(views.cards_text(state.kitty, lang))


def test_before_the_landlord_the_line_has_counts_only():
    state = new_deal(SCORE, seed=3, first_bidder=0)
    assert views.status_line(_table("zh-Hans"), state.view(0), "zh-Hans") == "Bob 17张 · Cat 17张"


def test_the_status_line_is_on_the_prompt_and_behind_the_counter_button_when_waiting():
    state = _alarm_deal()
    table = _table("zh-Hans")
    line = views.status_line(table, state.view(1), "zh-Hans")
    assert line in views.hand_view(table, state.view(1), 20)[0].splitlines()  # Bob to act
    waiting, markup = views.hand_view(table, state.view(2), 20)
    assert views.status_line(table, state.view(2), "zh-Hans") not in waiting.splitlines()
    assert "记牌器" not in waiting  # lines that change with every play: not on a waiting hand
    labels = [button.text for row in markup.inline_keyboard for button in row]
    assert labels == ["记牌器", "托管", "上一轮"]
    popup = views.counter_popup(table, state.view(2), "zh-Hans").splitlines()
    assert popup == [views.counter_line(state.view(2), "zh-Hans"),
                     views.status_line(table, state.view(2), "zh-Hans")]
    table.options.card_counter = False
    waiting, markup = views.hand_view(table, state.view(2), 20)
    assert [button.text for row in markup.inline_keyboard for button in row] == ["托管", "上一轮"]


@pytest.mark.parametrize(("args", "lang", "expected"), [
    ((8, 80, 1080), "zh-Hans", "🎉 你赢了 +8 分 · +80 欢乐豆（余额 1,080）"),
    ((-4, -40, 960), "zh-Hant", "😞 你輸了 -4 分 · -40 歡樂豆（餘額 960）"),
    ((-1, -10, 12345), "en", "😞 You lost -1 point · -10 beans (balance 12,345)"),
    ((2, None, None), "zh-Hans", "🎉 你赢了 +2 分"),
    ((0, 0, 1000), "zh-Hans", "本局已结束。"),
])
def test_the_result_line(args, lang, expected):
    assert views.outcome_line(*args, lang) == expected


def test_zero_points_still_say_won_or_lost_and_the_penalty():
    """QA round 4, defect 3 (RULES.md §9): a farmer on auto-play the penalty left with 0."""
    assert views.outcome_line(0, 0, 1000, "zh-Hans", won=True, penalized=True) == \
        "你方获胜，你得 0 分 · 0 欢乐豆（余额 1,000）（托管惩罚：托管的农民不得分）"
    # a new user's report: a 🎉 for winning nothing
    assert "🎉" not in views.outcome_line(0, 0, 1000, "en", won=True, penalized=True)
    assert views.outcome_line(0, None, None, "en", won=True) == "Your side won; you get 0 points"
    assert views.outcome_line(0, None, None, "zh-Hant", won=False) == "😞 你輸了 0 分"
    assert views.outcome_line(0, 0, 1000, "en", won=None) == t("hand.finished", "en")
