"""The four-player game's texts and keyboards (RULES.md §11, issue 13 part 4): bomb allowances on
the hand and the table, the forced landlord, the 头撂 bonus, and a keyboard for 15 ranks held up to
eight times."""

from __future__ import annotations

import pytest

from bot.core import callbacks as cb
from bot.core import selection
from bot.core.i18n import t
from bot.core.table import Seat, Table, TableOptions
from bot.presentation import views
from engine import FOUR, Action, apply, new_deal
from engine.ai import choose_action
from engine.cards import RANK_COUNT

SEED = 7


def _table(lang: str = "en") -> Table:
    table = Table(-1, None, lang, options=TableOptions(seat_count=4, preset="four"))
    table.seats = [Seat(1, "Ann"), Seat(2, "Bob"), Seat(None, "bot", True), Seat(4, "Dan")]
    table.reset_turn_memory()
    return table


def _after_bids(*bids: int | None, first: int = 0):
    state = new_deal(FOUR, seed=SEED, first_bidder=first)
    for i, bid in enumerate(bids):
        seat = (first + i) % 4
        action = Action("pass", seat) if bid is None else Action("bid", seat, value=bid)
        state = apply(state, action)
    return state


@pytest.mark.parametrize("lang", ["en", "zh-Hans", "zh-Hant"])
def test_a_forced_deal_shows_each_farmers_allowance(lang: str):
    state = _after_bids(None, None, None, None)
    table = _table(lang)
    assert state.landlord == 0 and state.bomb_limits == (None, 1, 1, 0)
    hands = [views.hand_view(table, state.view(seat), 20)[0] for seat in range(4)]
    assert t("hand.bombs_left_one", lang) in hands[1] and t("hand.bombs_left_one", lang) in hands[2]
    assert t("hand.no_bombs_left", lang) in hands[3]
    for key in ("hand.bombs_left_one", "hand.no_bombs_left", "hand.bombs_any"):
        assert t(key, lang) not in hands[0]  # the landlord has no allowance
    text, _ = views.table_view(table, state.view(0), 20)
    lines = text.splitlines()
    assert t("table.forced", lang) in lines
    seat_lines = [line for line in lines if t("table.count", lang, n=25) in line]
    assert [t("table.bombs_left_one", lang) in line for line in seat_lines] == [True, True, False]
    assert t("table.no_bombs_left", lang) in seat_lines[2]


def test_allowances_after_bids_and_after_a_bomb():
    # Ann bids 1, Bob 2, the others pass: Bob is landlord; Ann (bid 1) and the passers get 1.
    state = _after_bids(1, 2, None, None)
    assert state.landlord == 1 and state.bomb_limits == (1, None, 1, 1)
    # 头撂: the first bid is 3, every farmer may bomb freely, and says so.
    state = _after_bids(3)
    text = views.hand_view(_table(), state.view(2), 20)[0]
    assert t("hand.bombs_any", "en") in text
    assert "bomb" not in views.table_view(_table(), state.view(0), 20)[0].split("\n\n")[1]


def test_the_allowance_counts_down_when_a_farmer_bombs():
    state = _after_bids(2, None, None, None)  # Ann landlord at 2; the farmers have 1 bomb each
    assert state.bomb_limits == (None, 1, 1, 1)
    for _ in range(400):
        if state.phase != "playing" or any(state.seat_bombs[1:]):
            break
        state = apply(state, choose_action(state.view(state.to_act[0])))
    bomber = next((s for s in (1, 2, 3) if state.seat_bombs[s]), None)
    if bomber is None:
        pytest.skip("no farmer bombed in this deal")
    text = views.hand_view(_table(), state.view(bomber), 20)[0]
    assert t("hand.no_bombs_left", "en") in text


def test_the_result_shows_the_head_bid_bonus_and_the_forced_landlord():
    state = _after_bids(3)
    while state.phase == "playing":
        state = apply(state, choose_action(state.view(state.to_act[0])))
    result = state.result
    text, _ = views.result_view(_table(), state.view(0), result.points, [0] * 4)
    if result.winner == "landlord":
        assert result.bonus == 1 and t("result.head_bid", "en", n=1) in text
    else:
        assert result.bonus == 0 and t("result.head_bid", "en", n=1) not in text
    assert t("table.forced", "en") not in text
    forced = _after_bids(None, None, None, None)
    while forced.phase == "playing":
        forced = apply(forced, choose_action(forced.view(forced.to_act[0])))
    text, _ = views.result_view(_table(), forced.view(0), forced.result.points, [0] * 4)
    assert t("table.forced", "en") in text


def test_a_keyboard_for_fifteen_ranks_and_eight_copies():
    hand = tuple(sorted([r for r in range(13) for _ in range(2)] + [13, 14] + [5] * 6))
    assert len(set(hand)) == RANK_COUNT and hand.count(5) == 8
    token = cb.new_token()
    selected = [5] * 7
    rows = views.selection_keyboard_rows(hand, selected, token, cb.MAX_VERSION, "zh-Hans")
    assert [len(row) for row in rows] == [5, 5, 5]
    buttons = [b for row in rows for b in row]
    assert buttons[5].text == "✅8 7/8"
    for button in buttons:
        assert len(button.callback_data.encode()) <= cb.MAX_BYTES
        cb.parse_callback(button.callback_data)
    # A rank held eight times: eight taps select all of it, the ninth clears it.
    picked: list[int] = []
    for n in range(1, 10):
        picked = selection.tap(hand, picked, 5)
        assert picked.count(5) == n % 9


def test_the_lobby_has_four_seats():
    table = _table()
    table.seats = table.seats[:2]
    text, _ = views.lobby_view(table, None, 300)
    lines = text.splitlines()
    assert ["1. Ann", "2. Bob", t("lobby.seat_empty", "en", n=3),
            t("lobby.seat_empty", "en", n=4)] == [line for line in lines if line[:2] in
                                                   ("1.", "2.", "3.", "4.")]
    assert t("lobby.help_four", "en") in lines
    assert t("lobby.preset", "en", preset=t("preset.four", "en")) in lines
