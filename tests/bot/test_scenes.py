"""What the pictures show (issue 4): the table picture is built from public facts only (never a
hand that is not shown), the hand picture raises the selection, the result shows the cards left.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot import scenes
from bot.game.table import Seat, Table
from engine import ROB, SCORE, Action, apply, auto_action, new_deal, preset
from engine.cards import card_rank, cards_to_ranks
from images import TableScene, render_leaderboard, render_table

SEED = 31


def table_for(state) -> Table:
    table = Table(-100, None, "en", title="Group")
    table.seats = [Seat(1, "Ada Lovelace"), Seat(2, "张三"), Seat(None, "🤖 Bot 3", True)]
    table.reset_turn_memory()
    table.state = state
    return table


def scene_cards(scene: TableScene) -> list[int]:
    """Every card id the table picture would draw face up."""
    cards = list(scene.kitty or ())
    for seat in scene.seats:
        if isinstance(seat.last_play, tuple):
            cards += seat.last_play
        cards += seat.shown_cards or ()
    return cards


def test_the_table_picture_is_the_same_from_every_seat_and_for_other_hidden_hands():
    """Swapping unplayed cards between two hands changes nothing the group's picture shows,
    and no seat's view adds its own hand to it."""
    first = new_deal(SCORE, seed=SEED, first_bidder=0)
    hands = [list(h) for h in first.hands]
    one = next(c for c in hands[1] if card_rank(c) not in cards_to_ranks(hands[2]))
    two = next(c for c in hands[2] if card_rank(c) not in cards_to_ranks(hands[1]))
    hands[1][hands[1].index(one)], hands[2][hands[2].index(two)] = two, one
    second = new_deal(SCORE, hands=hands, kitty=first.kitty, first_bidder=0)
    assert second.hands != first.hands and second.counts == first.counts

    lowest = min(cards_to_ranks(first.hands[0]))
    actions = [Action("bid", 0, value=3), Action("play", 0, cards=(lowest,)), Action("pass", 1)]
    states = [(first, second)]
    for action in actions:
        a, b = states[-1]
        states.append((apply(a, action), apply(b, action)))
    for a, b in states:
        table = table_for(a)
        pictures = {scenes.table_scene(table, s.view(seat), 12.3)
                    for s in (a, b) for seat in range(3)}
        assert len(pictures) == 1, a.phase
        (scene,) = pictures
        assert all(seat.shown_cards is None for seat in scene.seats)
        public = list(a.kitty) if a.landlord is not None else []
        public += [c for c in range(54) if card_rank(c) == lowest]
        assert set(scene_cards(scene)) <= set(public)

    bidding = scenes.table_scene(table_for(first), first.view(0), 14.2)
    assert bidding.kitty is None and bidding.kitty_size == 3 and bidding.base == 0
    assert [s.card_count for s in bidding.seats] == [17, 17, 17]
    assert [s.is_turn for s in bidding.seats] == [True, False, False]
    assert bidding.seconds_left == 15
    playing = scenes.table_scene(table_for(states[-1][0]), states[-1][0].view(1), 29.5)
    assert playing.kitty == first.kitty
    assert [s.role for s in playing.seats] == ["landlord", "farmer", "farmer"]
    assert [s.card_count for s in playing.seats] == [19, 17, 17]
    assert playing.seats[0].last_play == states[-1][0].last_cards[0]
    assert playing.seats[1].last_play == "pass" and playing.seats[2].last_play is None
    assert [s.is_turn for s in playing.seats] == [False, False, True]
    assert (playing.base, playing.multiplier, playing.seconds_left) == (3, 1, 30)
    assert [s.label for s in playing.seats] == ["AL", "P2", "B3"]
    render_table(playing)  # a valid scene


def test_a_play_is_drawn_with_the_very_cards_that_left_the_hand():
    """Seat 0 holds the 3 of hearts and of diamonds (no spade): the table shows those, not a
    made-up 3 of spades (RULES.md §4: played cards are face up)."""
    threes = [1, 3]  # 3♥, 3♦
    rest = [c for c in range(54) if card_rank(c) != 0]
    hands = [threes + rest[:15], [0, 2] + rest[15:30], rest[30:47]]
    state = new_deal(SCORE, hands=hands, first_bidder=0)
    state = apply(state, Action("bid", 0, value=3))
    state = apply(state, Action("play", 0, cards=(0, 0)))
    scene = scenes.table_scene(table_for(state), state.view(1), 20)
    assert scene.seats[0].last_play == (1, 3)
    assert not set(scene.seats[0].last_play) & set(state.hands[0])
    single = apply(new_deal(SCORE, hands=hands, first_bidder=0), Action("bid", 0, value=3))
    single = apply(single, Action("play", 0, cards=(0,)))
    assert scenes.table_scene(table_for(single), single.view(2), 20).seats[0].last_play == (1,)


def test_a_deal_stored_before_cards_were_recorded_still_draws_its_plays():
    state = apply(new_deal(SCORE, seed=SEED, first_bidder=0), Action("bid", 0, value=3))
    lowest = min(cards_to_ranks(state.hands[0]))
    state = apply(state, Action("play", 0, cards=(lowest,)))
    old = replace(state, last_cards=(None, None, None))
    scene = scenes.table_scene(table_for(old), old.view(1), 20)
    assert [card_rank(c) for c in scene.seats[0].last_play] == [lowest]


def test_a_shown_hand_and_doubling_are_on_the_picture():
    rules = preset("score", show_cards=True)
    state = apply(new_deal(rules, seed=SEED), Action("show", 1))
    scene = scenes.table_scene(table_for(state), state.view(2), 10)
    assert scene.seats[1].shown_cards == state.hands[1]
    assert scene.seats[0].shown_cards is None and scene.seats[2].shown_cards is None
    assert scene.multiplier == 1

    state = new_deal(ROB, seed=SEED, first_bidder=0)
    for action in (Action("call", 0), Action("rob", 1), Action("norob", 2)):
        state = apply(state, action)
    scene = scenes.table_scene(table_for(state), state.view(0), 10)
    assert [s.last_play for s in scene.seats] == ["call", "rob", "no rob"]
    assert scene.multiplier == 2  # one rob (RULES §2.2)
    state = apply(state, Action("norob", 0))  # the caller lets Bob keep it
    state = apply(state, Action("double", 2))
    scene = scenes.table_scene(table_for(state), state.view(0), 10)
    assert state.phase == "doubling" and state.landlord == 1
    assert scene.seats[2].doubled and scene.seats[2].last_play == "double"
    assert not scene.seats[0].doubled and scene.seats[0].last_play is None
    assert scene.multiplier == max(state.multipliers()) == 4


def test_autoplay_of_a_human_is_drawn_and_a_finished_deal_has_no_countdown():
    state = apply(new_deal(SCORE, seed=SEED), Action("autoplay", 1, value=1))
    scene = scenes.table_scene(table_for(state), state.view(0), 3)
    assert [s.autoplay for s in scene.seats] == [False, True, False]
    assert scene.seconds_left == 5
    state = apply(state, Action("leave", 0))  # leaving while bidding ends the deal
    scene = scenes.table_scene(table_for(state), state.view(0), 3)
    assert state.phase == "finished" and scene.seconds_left is None
    assert not any(s.is_turn for s in scene.seats)


def test_hand_picture_raises_the_selected_ranks_cards():
    state = new_deal(SCORE, seed=SEED)
    view = state.view(0)
    ranks = cards_to_ranks(view.hand)
    pair = next(r for r in ranks if ranks.count(r) >= 2)
    single = max(ranks)
    cards, chosen = scenes.hand_picture(view, [pair, pair, single])
    assert cards == view.hand
    assert sorted(card_rank(c) for c in chosen) == sorted([pair, pair, single])
    assert set(chosen) <= set(view.hand) and len(set(chosen)) == 3
    assert scenes.hand_picture(view, []) == (view.hand, ())
    with pytest.raises(ValueError):
        scenes.hand_picture(view, [single] * 5)


def test_result_scene_shows_the_cards_left_and_beans():
    state = new_deal(SCORE, seed=SEED, first_bidder=0)
    state = apply(state, Action("bid", 0, value=3))
    state = apply(state, Action("leave", 1))  # an escape during play ends with a result later
    for _ in range(200):
        if state.phase == "finished":
            break
        state = apply(state, auto_action(state, state.to_act[0]))
    result = state.result
    assert result is not None and result.winner is not None
    table = table_for(state)
    beans = [p * 10 for p in result.points]
    scene = scenes.result_scene(table, state.view(0), state.hands, result.points, beans)
    assert scene.winner == result.winner
    assert [s.cards_left for s in scene.seats] == [tuple(h) for h in state.hands]
    assert [s.points for s in scene.seats] == list(result.points)
    assert [s.beans for s in scene.seats] == beans
    assert [s.escaped for s in scene.seats] == [False, True, False]
    assert scene.seats[0].role == "landlord" and scene.base == 3
    assert scene.multiplier == max(result.multipliers)

    cancelled = apply(new_deal(SCORE, seed=SEED), Action("leave", 0))
    assert scenes.result_scene(table_for(cancelled), cancelled.view(0), cancelled.hands,
                               [0, 0, 0], [0, 0, 0]) is None


@pytest.mark.parametrize(("kind", "value", "phase", "word"), [
    ("bid", 2, "bidding", "bid 2"), ("pass", None, "bidding", "no bid"),
    ("pass", None, "playing", "pass"), ("decline", None, "bidding", "no call"),
    ("nodouble", None, "doubling", "no double"),
])
def test_action_words_are_short_ascii(kind, value, phase, word):
    assert scenes.action_word(Action(kind, 0, value=value), phase) == word
    assert word.isascii() and len(word) <= 12


def test_every_top_board_has_an_ascii_picture_title():
    from bot.handlers.economy import TOP_QUERIES
    from bot.store import LeaderboardRow

    assert set(scenes.LEADERBOARD_TITLES) == set(TOP_QUERIES)
    rows = [LeaderboardRow(1, 7, "Ada Lovelace", 1200, 9, 6),
            LeaderboardRow(2, 8, "🔥🔥", -5, 1, 0)]
    for kind in TOP_QUERIES:
        title, board = scenes.leaderboard_scene(kind, rows)
        assert title.isascii() and len(title) <= 40
        assert [(r.rank, r.name, r.beans, r.games, r.wins) for r in board] == [
            (1, "Ada Lovelace", 1200, 9, 6), (2, "#2", -5, 1, 0)]
        render_leaderboard(board, title)  # a valid picture
