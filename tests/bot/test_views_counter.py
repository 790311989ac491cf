"""The card counter line (记牌器, issue 17) on the private hand message: the right numbers for
three and four players (two decks), in the player's language, only while the group's setting is
on, and never in a group view."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from bot.core.i18n import t
from bot.core.table import Seat, Table, TableOptions
from bot.presentation import views
from engine import FOUR, SCORE, Action, DealState, apply, new_deal
from engine.ai import choose_action
from engine.cards import RANK_LABELS, cards_to_ranks

JOKERS = {"en": ("BJ×", "SJ×"), "zh-Hans": ("大王", "小王"), "zh-Hant": ("大王", "小王")}
PREFIX = {"en": "Card counter: ", "zh-Hans": "记牌器：", "zh-Hant": "記牌器："}


def _table(state: DealState, lang: str) -> Table:
    seats = [Seat(1, "Ann"), Seat(2, "Bob"), Seat(None, "bot", True), Seat(4, "Dan")]
    table = Table(-1, None, lang, options=TableOptions(seat_count=state.rules.seats))
    table.seats = seats[: state.rules.seats]
    table.reset_turn_memory()
    table.state = state
    return table


def _truth(state: DealState, seat: int) -> Counter[int]:
    """What the counter must say, from the whole deal (which the counter never sees): the other
    seats' hands, and the kitty while nobody has taken it."""
    out: Counter[int] = Counter()
    for other, hand in enumerate(state.hands):
        if other != seat:
            out.update(cards_to_ranks(hand))
    if state.landlord is None:
        out.update(cards_to_ranks(state.kitty))
    return out


def _expected_line(out: Counter[int], lang: str) -> str:
    big, small = JOKERS[lang]
    parts = [f"{big}{out[14]}", f"{small}{out[13]}"]
    parts += [f"{RANK_LABELS[r]}×{out[r]}" for r in range(12, -1, -1)]
    return PREFIX[lang] + " ".join(parts)


def _counter_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(tuple(PREFIX.values()))]


def _shown(table: Table, state: DealState, seat: int, seconds: float = 30) -> list[str]:
    """The counter lines the seat's player sees: under the hand on their prompt; on a waiting
    seat's hand only behind its 记牌器 button, in the pop-up."""
    view = state.view(seat)
    text, markup = views.hand_view(table, view, seconds)
    if seat in view.to_act or not table.options.card_counter or view.phase != "playing":
        return _counter_lines(text)
    assert _counter_lines(text) == []
    labels = [button.text for row in (markup.inline_keyboard if markup else ()) for button in row]
    assert t("btn.counter", table.seat_lang(seat)) in labels
    return _counter_lines(views.counter_popup(table, view, table.seat_lang(seat)))


def _play_some(state: DealState, plays: int) -> DealState:
    """Bid (the AI decides) and play ``plays`` actions after the landlord's first lead."""
    made = 0
    while state.phase != "finished" and made < plays:
        seat = state.to_act[0]
        state = apply(state, choose_action(state.view(seat), level="normal"))
        if state.phase == "playing" and state.history[-1].kind in ("play", "pass"):
            made += 1
    return state


@pytest.mark.parametrize("lang", ["en", "zh-Hans", "zh-Hant"])
def test_three_players_count_one_deck_after_plays(lang: str):
    state = new_deal(SCORE, seed=11, first_bidder=0)
    table = _table(state, lang)
    assert _shown(table, state, 0, 15) == [_expected_line(_truth(state, 0), lang)]  # bids
    assert sum(_truth(state, 0).values()) == 37  # 54 − 17 own cards while bidding
    assert _shown(table, state, 1, 15) == []  # waiting while bidding: no counter yet

    state = apply(state, Action("bid", 0, value=3))
    state = _play_some(state, 7)
    assert any(a.kind == "play" and a.seat != 0 for a in state.history)
    table.state = state
    for seat in range(3):
        assert _shown(table, state, seat) == [_expected_line(_truth(state, seat), lang)], seat
    played = sum(len(a.cards or ()) for a in state.history if a.kind == "play")
    assert sum(_truth(state, 0).values()) == 54 - played - len(state.hands[0]) > 0
    assert _shown(table, state, 0)[0].startswith(PREFIX[lang])


@pytest.mark.parametrize("lang", ["en", "zh-Hans"])
def test_four_players_count_two_decks(lang: str):
    state = new_deal(FOUR, seed=5, first_bidder=0)
    table = _table(state, lang)
    truth = _truth(state, 0)
    assert sum(truth.values()) == 108 - 25
    assert _shown(table, state, 0, 20) == [_expected_line(truth, lang)]
    assert max(truth.values()) > 4  # more than one deck's copies of some rank

    state = apply(state, Action("bid", 0, value=3))
    state = _play_some(state, 9)
    table.state = state
    for seat in range(4):
        assert _shown(table, state, seat, 20) == [_expected_line(_truth(state, seat), lang)], seat


def test_the_setting_off_hides_the_line_and_a_group_view_never_has_it():
    state = apply(new_deal(SCORE, seed=3, first_bidder=0), Action("bid", 0, value=3))
    state = _play_some(state, 4)
    table = _table(state, "zh-Hans")
    # seat 1 cannot follow: prompted (要不起), its counter on the hand
    table.options.auto_pass = False
    assert len(_shown(table, state, 1)) == 1
    group_text, _ = views.table_view(table, state.view(0), 30)
    assert "记牌器" not in group_text and not re.search(r"\d×\d", group_text)
    table.options.card_counter = False
    text, _ = views.hand_view(table, state.view(1), 30)
    assert _counter_lines(text) == [] and not re.search(r"\d×\d", text)
    assert text.splitlines()[1] == views.cards_text(state.hands[1], "zh-Hans")


def test_the_line_is_in_the_seats_own_language_and_gone_when_the_deal_is_over():
    state = new_deal(SCORE, seed=8, first_bidder=0)
    table = _table(state, "zh-Hans")
    table.seats[0].lang = "en"
    assert _shown(table, state, 0, 15)[0].startswith("Card counter: BJ×")
    played = _play_some(apply(state, Action("bid", 0, value=3)), 3)
    table.state = played
    waiting = next(seat for seat in (1, 2) if seat not in played.to_act)
    assert _shown(table, played, waiting)[0].startswith("记牌器：")  # in its 记牌器 pop-up
    state = _play_some(played, 10_000)
    assert state.phase == "finished"
    table.state = state
    assert _counter_lines(views.hand_view(table, state.view(0), 0)[0]) == []
    assert t("hand.counter", "zh-Hant", counts="x") == "記牌器：x"

