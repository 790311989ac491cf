"""bot.game.presses: one rule decides a deal button's press, before the table's lock and under
it (RULES.md §2–§4 through the engine)."""

from __future__ import annotations

from bot.core import callbacks as cb
from bot.core.i18n import t
from bot.core.table import Seat, Table, TableOptions
from bot.game.presses import judge_action, judge_select
from engine import SCORE, Action, DealState, apply, new_deal

LANG = "en"


def _table(state: DealState) -> Table:
    table = Table(-1, None, LANG, options=TableOptions(seat_count=3))
    table.seats = [Seat(1, "Ann"), Seat(2, "Bob"), Seat(3, "Cat")]
    table.reset_turn_memory()
    table.state = state
    return table


def _press(table: Table, kind: str, payload: str, version: int | None = None) -> cb.Callback:
    assert table.state is not None
    v = table.state.version if version is None else version
    return cb.parse_callback(cb.make_callback(kind, table.token, v, payload))


def _playing() -> Table:
    state = new_deal(SCORE, seed=4, first_bidder=0)
    state = apply(state, Action("bid", 0, value=3))
    while state.phase == "doubling":
        state = apply(state, Action("nodouble", state.to_act[0]))
    assert state.phase == "playing" and state.to_act == (0,)
    return _table(state)


def test_a_bid_in_turn_is_accepted_with_its_action() -> None:
    table = _table(new_deal(SCORE, seed=4, first_bidder=0))
    verdict = judge_action(table, 1, _press(table, cb.ACTION, "bid3"), LANG)
    assert verdict.accepted and verdict.seat == 0
    assert verdict.action == Action("bid", 0, value=3) and verdict.popup is None


def test_refusals_say_why_and_mark_what_only_the_lock_decides() -> None:
    table = _table(new_deal(SCORE, seed=4, first_bidder=0))
    stranger = judge_action(table, 99, _press(table, cb.ACTION, "bid3"), LANG)
    assert (stranger.popup, stranger.alert, stranger.check) == (t("pop.not_seated", LANG), True,
                                                                "seat")
    old = judge_action(table, 1, _press(table, cb.ACTION, "bid3", version=table.state.version + 1),
                       LANG)
    assert (old.popup, old.check, old.accepted) == (t("pop.stale", LANG), "version", False)
    waiting = judge_action(table, 2, _press(table, cb.ACTION, "bid3"), LANG)
    assert (waiting.popup, waiting.check, waiting.accepted) == (t("pop.not_your_turn", LANG),
                                                                None, False)


def test_an_autoplay_switch_already_so_is_only_redrawn() -> None:
    table = _playing()
    off = judge_action(table, 1, _press(table, cb.ACTION, "auto0"), LANG)
    assert off.redraw and not off.accepted and off.popup == t("pop.autoplay_off", LANG)
    on = judge_action(table, 1, _press(table, cb.ACTION, "auto1"), LANG)
    assert on.accepted and on.action == Action("autoplay", 0, value=1)


def test_play_keyboard_presses() -> None:
    table = _playing()
    hand = table.state.view(0).hand_ranks
    low = min(hand)
    tap = judge_select(table, 1, _press(table, cb.SELECT, f"r{low}"), LANG)
    assert (tap.accepted, tap.op) == (True, "rank")
    missing = next(r for r in range(15) if r not in hand)
    wrong = judge_select(table, 1, _press(table, cb.SELECT, f"r{missing}"), LANG)
    assert (wrong.accepted, wrong.popup, wrong.alert) == (False, t("pop.invalid", LANG), True)
    empty = judge_select(table, 1, _press(table, cb.SELECT, "play"), LANG)
    assert (empty.popup, empty.uncertain) == (t("pop.select_first", LANG), True)
    table.progress.selections[0] = [low]
    play = judge_select(table, 1, _press(table, cb.SELECT, "play"), LANG)
    assert play.op == "play" and play.action == Action("play", 0, cards=(low,))
    other = judge_select(table, 2, _press(table, cb.SELECT, "hint"), LANG)
    assert (other.accepted, other.popup) == (False, t("pop.not_your_turn", LANG))
