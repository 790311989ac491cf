"""What the pictures show (issues 4, 10): the table picture is built from public facts only
(never a hand that is not shown), in the table's language with the players' names; the hand
picture raises the selection; the result shows the cards left and the multiplier's parts that
give the engine's multipliers; the leaderboard's names and values.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.core.i18n import CATALOGUES, LANGUAGES, t
from bot.core.table import Seat, Table
from bot.presentation import scenes, views
from engine import ROB, SCORE, Action, apply, auto_action, new_deal, preset
from engine.cards import card_rank, cards_to_ranks
from images import Labels, TableScene, render_leaderboard, render_result, render_table
from images.result import breakdown, seat_factors, title_lines
from tests.images import scenes as golden

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
    assert playing.seats[1].last_play == "Pass" and playing.seats[2].last_play is None
    assert [s.is_turn for s in playing.seats] == [False, False, True]
    assert (playing.base, playing.multiplier, playing.seconds_left) == (3, 1, 30)
    assert [s.label for s in playing.seats] == ["AL", "张", "B3"]
    assert [s.name for s in playing.seats] == ["Ada Lovelace", "张三", "🤖 Bot 3"]
    assert playing.labels == scenes.picture_labels("en")
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


def test_a_play_is_drawn_in_the_order_its_caption_reads():
    """QA of issue 9: the picture drew a plane as 4 4 9 9 Q Q Q K K K while the caption wrote
    QQQ KKK 44 99; now both read the body first, then the wings."""
    plane = [4, 5, 24, 25, 36, 37, 38, 40, 41, 42]  # 4 4 9 9 Q Q Q K K K
    rest = [c for c in range(54) if c not in plane]
    hands = [plane + rest[:7], rest[7:24], rest[24:41]]
    state = apply(new_deal(SCORE, hands=hands, first_bidder=0), Action("bid", 0, value=3))
    state = apply(state, Action("play", 0, cards=cards_to_ranks(plane)))
    drawn = scenes.table_scene(table_for(state), state.view(1), 20).seats[0].last_play
    assert drawn == (36, 37, 38, 40, 41, 42, 4, 5, 24, 25)
    assert views.play_text(state.trick.play, "en") == "QQQ KKK 44 99"


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
    assert scene.multiplier == 4  # a show before bidding counts at once (RULES.md §3)

    state = new_deal(ROB, seed=SEED, first_bidder=0)
    for action in (Action("call", 0), Action("rob", 1), Action("norob", 2)):
        state = apply(state, action)
    scene = scenes.table_scene(table_for(state), state.view(0), 10)
    assert [s.last_play for s in scene.seats] == ["Call landlord", "Rob", "Don't rob"]
    assert scene.multiplier == 2  # one rob (RULES §2.2)
    state = apply(state, Action("norob", 0))  # the caller lets Bob keep it
    state = apply(state, Action("double", 2))
    scene = scenes.table_scene(table_for(state), state.view(0), 10)
    assert state.phase == "doubling" and state.landlord == 1
    assert scene.seats[2].doubled and scene.seats[2].last_play == "Double"
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


def test_the_seat_to_play_shows_its_clock_not_its_last_pass_and_both_pair_multipliers():
    """A new user's report: the seat to act showed the 不出 of the trick before next to its
    clock; and the table said one multiplier where the result says ×64 / ×32 (a farmer
    doubled, RULES.md §3)."""
    from engine import ROB

    state = apply(new_deal(ROB, seed=SEED, first_bidder=0), Action("call", 0))
    table = table_for(state)
    stale = 0
    for _ in range(400):
        if state.phase == "finished":
            break
        seat = state.to_act[0]
        view = state.view(seat)
        if state.phase == "playing":
            scene = scenes.table_scene(table, view, 20)
            assert scene.seats[seat].last_play is None and scene.seats[seat].is_turn
            assert scene.seconds_left == 20
            stale += views.last_actions(view)[seat] is not None
        if state.phase == "doubling":
            kind = "double" if seat == 1 else "nodouble"  # one farmer doubles
            state = apply(state, Action(kind, seat))
            if state.phase == "playing":
                scene = scenes.table_scene(table, state.view(0), 20)
                pairs = views.current_multipliers(state.view(0))
                assert len(set(pairs)) == 2 and scene.multipliers == tuple(pairs)
                from images.table import multiplier_words
                assert multiplier_words(scene) == " / ".join(
                    f"×{m}" for m in dict.fromkeys(pairs))
            continue
        state = apply(state, auto_action(state, seat))
    assert stale  # the seat's action of the round before was there to hide


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



def test_an_escape_payment_is_written_with_grouped_digits_in_caption_and_picture():
    """RULES.md §9: what a leaver pays reads the same in the caption and on the picture, digits
    grouped by three as every other number of the result (``1,800 points``, not ``1800``)."""
    state = new_deal(SCORE, seed=SEED, first_bidder=0)
    state = apply(state, Action("bid", 0, value=3))
    state = apply(state, Action("leave", 1))
    for _ in range(200):
        if state.phase == "finished":
            break
        state = apply(state, auto_action(state, state.to_act[0]))
    assert state.result is not None and state.result.escaped == (1,)
    points = [p * 100 for p in state.result.points]  # settled points of a rich deal
    beans = [p * 50 for p in points]
    paid = -points[1]
    assert paid >= 1000
    table = table_for(state)
    text, _ = views.result_view(table, state.view(0), points, beans)
    written = t("unit.points", "en", n=paid, signed=f"{paid:,d}")
    assert f"pays {written} (" in text and f"{paid} points" not in text
    scene = scenes.result_scene(table, state.view(0), state.hands, points, beans)
    assert scene is not None
    assert f"pays {paid:,d} points ({paid * 50:,d} beans)" in " ".join(title_lines(scene)[1])


def test_a_deal_left_during_the_bidding_has_a_result_picture():
    """RULES.md §9 (QA: this result alone was sent as text with pictures on): no winner, no
    roles, the leaver's flat payment as the picture's one tag, the same line as the caption."""
    cancelled = apply(new_deal(SCORE, seed=SEED), Action("leave", 0))
    points = list(cancelled.result.points)
    assert points == [-6, 3, 3]
    table = table_for(cancelled)
    scene = scenes.result_scene(table, cancelled.view(0), cancelled.hands, points, [-60, 30, 30])
    assert scene is not None and scene.winner is None and scene.landlord is None
    assert [s.role for s in scene.seats] == [None, None, None]
    assert [s.escaped for s in scene.seats] == [True, False, False]
    assert [s.beans for s in scene.seats] == [-60, 30, 30]
    assert scenes.result_breakdown(scene) == [t("result.bidding_escape", "en", n=6)]
    assert render_result(scene).startswith(b"\x89PNG")


def test_a_deal_left_after_robs_shows_the_bid_and_the_multiplier_so_far():
    """RULES.md §9: the caller leaves after two robs (×4) with a show (×4): 3 × 1 × 16 = 48
    points; the picture's one tag and the caption's line name the base, the multiplier so far
    and what was paid; a leave before any call keeps the flat line."""
    rules = preset("rob", show_cards=True)
    state = apply(new_deal(rules, seed=SEED, first_bidder=0), Action("show", 0))
    for kind, seat in (("call", 0), ("rob", 1), ("rob", 2)):
        state = apply(state, Action(kind, seat))
    cancelled = apply(state, Action("leave", 0))
    points = list(cancelled.result.points)
    assert points == [-48, 24, 24] and cancelled.result.base == 1
    table = table_for(cancelled)
    view = cancelled.view(1)
    beans = [p * 10 for p in points]
    scene = scenes.result_scene(table, view, cancelled.hands, points, beans)
    assert scene is not None and (scene.base, scene.multiplier) == (1, 16)
    line = t("result.bidding_escape_bid", "en", n=48, base=1, m=16)
    assert line == ("Left during the bidding at base 1 ×16: the leaver pays 48 points "
                    "(3 × base × multiplier, at least 6).")
    assert scenes.result_breakdown(scene) == [line]
    assert render_result(scene).startswith(b"\x89PNG")
    text, _ = views.result_view(table, view, points, beans)  # the caption without a picture
    assert line in text.splitlines()
    early = apply(new_deal(rules, seed=SEED), Action("leave", 2))
    scene = scenes.result_scene(table_for(early), early.view(0), early.hands,
                                list(early.result.points), [30, 30, -60])
    assert scenes.result_breakdown(scene) == [t("result.bidding_escape", "en", n=6)]


@pytest.mark.parametrize(("lang", "kind", "value", "phase", "word"), [
    ("zh-Hans", "bid", 2, "bidding", "2分"), ("zh-Hans", "pass", None, "bidding", "不叫"),
    ("zh-Hans", "pass", None, "playing", "不出"), ("zh-Hant", "rob", None, "bidding", "搶地主"),
    ("en", "nodouble", None, "doubling", "No double"), ("en", "decline", None, "bidding",
                                                        "Don't call"),
])
def test_action_words_are_the_catalogues(lang, kind, value, phase, word):
    view = replace(new_deal(SCORE, seed=SEED).view(0), phase=phase)
    assert scenes.action_word(Action(kind, 0, value=value), view, lang) == word


def test_picture_words_come_from_every_catalogue():
    """Issue 10: each picture word is a catalogue message in all three languages, with the same
    placeholders as the English default."""
    for lang in LANGUAGES:
        words = scenes.picture_labels(lang)
        assert words.lang == lang
        for field in Labels.words():
            key = scenes.SHARED_KEYS.get(field, f"pic.{field}")
            assert key in CATALOGUES[lang], (lang, key)
            english = getattr(Labels(), field)
            assert sorted(_placeholders(getattr(words, field))) == sorted(_placeholders(english))
    hans, hant = scenes.picture_labels("zh-Hans"), scenes.picture_labels("zh-Hant")
    # The golden pictures' words are the catalogues' (tests/images/scenes.py).
    assert (hans, hant, scenes.picture_labels("en")) == (golden.HANS, golden.HANT, golden.ENGLISH)
    assert (hans.landlord, hans.farmer, hans.farmers_win) == ("地主", "农民", "农民胜")
    assert (hant.farmer, hant.bombs.format(n=1, m=2)) == ("農民", "炸彈 1 個 ×2")


def _placeholders(template: str) -> list[str]:
    import string

    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def test_names_without_a_drawable_character_get_the_seat_number():
    assert scenes.picture_name(Seat(5, "🔥🔥"), 1, "zh-Hans") == "玩家2"
    assert scenes.picture_name(Seat(5, "🔥 Max"), 1, "en") == "🔥 Max"
    assert scenes.seat_label(Seat(5, "韩梅梅"), 2) == "韩"


def test_a_bot_seats_badge_is_a_short_bot_name_in_the_tables_language():
    """QA of issue 10: the bot seats' badge read "B3" in Chinese pictures."""
    bot = Seat(None, "🤖 机器人3", True)
    assert [scenes.seat_label(bot, 2, lang) for lang in ("zh-Hans", "zh-Hant", "en")] == [
        "机3", "機3", "B3"]
    table = Table(-1, None, "zh-Hans", seats=[Seat(1, "王小明"), Seat(None, "", True),
                                              Seat(None, "", True)])
    scene = scenes.table_scene(table, new_deal(SCORE, seed=SEED).view(0), 15.0)
    assert [seat.label for seat in scene.seats] == ["王", "机2", "机3"]


def test_the_hand_at_the_end_of_a_deal_raises_nothing():
    """Issue 10: the winner's last hand picture showed the played K raised; once the deal is over
    the selection is not drawn, and an empty hand is an empty hand."""
    state = apply(new_deal(SCORE, seed=SEED), Action("leave", 0))
    view = state.view(1)
    ranks = cards_to_ranks(view.hand)
    assert state.phase == "finished"
    assert scenes.hand_picture(view, [ranks[0]]) == (view.hand, ())
    assert scenes.hand_picture(replace(view, hand=()), [ranks[0]]) == ((), ())


def _finish(state, seats_to_double=(), show=None):
    """Play ``state`` out with the seats' auto actions, doubling where asked."""
    for _ in range(400):
        if state.phase == "finished":
            return state
        seat = state.to_act[0]
        if state.phase == "doubling":
            kind = "double" if seat in seats_to_double else "nodouble"
            state = apply(state, Action(kind, seat))
            continue
        if show is not None and seat == show and not state.shown[seat] and \
                state.view(seat).may_show():
            state = apply(state, Action("show", seat))
            continue
        state = apply(state, auto_action(state, seat))
    raise AssertionError("the deal did not end")


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_the_result_picture_breaks_the_engine_multipliers_down(seed):
    """Issue 10: rob preset, the landlord rob, one farmer doubles, the landlord shows its cards:
    the picture's parts multiply to the engine's pair multipliers, farmer by farmer, and its
    points and beans are the settled ones."""
    rules = preset("rob", show_cards=True)
    state = new_deal(rules, seed=seed, first_bidder=0)
    for action in (Action("call", 0), Action("rob", 1), Action("rob", 2), Action("norob", 0)):
        state = apply(state, action)
    landlord = state.landlord
    farmers = [s for s in range(3) if s != landlord]
    final = _finish(state, seats_to_double=(farmers[0],), show=landlord)
    result = final.result
    table = table_for(final)
    table.lang = "zh-Hans"
    beans = [p * 20 for p in result.points]
    scene = scenes.result_scene(table, final.view(0), final.hands, result.points, beans)
    assert [s.points for s in scene.seats] == list(result.points)
    assert [s.beans for s in scene.seats] == beans
    assert scene.robs == final.bidding.robs == 2
    assert scene.landlord.shown == final.shown[landlord] == 2
    assert (scene.bombs, scene.rockets) == (result.bombs, result.rockets)
    for farmer, multiplier in zip(result.farmers, result.multipliers, strict=True):
        seat = scene.seats[farmer]
        assert seat.multiplier == multiplier
        product = 2 ** (scene.robs + scene.bombs + (scene.spring or scene.anti_spring))
        product *= max(s.shown for s in scene.seats) * (2 if scene.landlord.doubled else 1)
        product *= 2 if seat.doubled else 1
        assert product == multiplier
    assert scene.seats[farmers[0]].doubled and not scene.seats[farmers[1]].doubled
    words = scene.labels
    parts = breakdown(scene)
    assert parts[:3] == ["底分 1", "抢地主 2 次 ×4", "明牌 ×2"]
    assert parts[-1] == " / ".join(f"×{m}" for m in dict.fromkeys(result.multipliers))
    assert seat_factors(scene, scene.seats[farmers[0]]) == [words.double.format(m=2)]
    assert seat_factors(scene, scene.seats[farmers[1]]) == []
    lines = scenes.result_breakdown(scene)
    assert lines[0] == " · ".join(parts)
    doubler = table.seats[farmers[0]].name
    assert lines[1:] == [f"{doubler}：加倍 ×2 → ×{scene.seats[farmers[0]].multiplier}"]
    render_result(scene)  # a valid picture


def test_an_escape_result_names_the_leaver_and_what_they_paid():
    from images.result import title_lines

    state = new_deal(SCORE, seed=SEED, first_bidder=0)
    state = apply(state, Action("bid", 0, value=3))
    state = apply(state, Action("leave", 1))
    final = _finish(state)
    result = final.result
    table = table_for(final)
    table.lang = "zh-Hans"
    beans = [p * 10 for p in result.points]
    scene = scenes.result_scene(table, final.view(0), final.hands, result.points, beans)
    title, lines = title_lines(scene)
    assert title == "张三 逃跑"
    assert lines == [f"张三 逃跑，付 {-result.points[1]} 分（{-beans[1]} 欢乐豆）"]


def test_a_practice_deal_its_player_ended_tags_nobody_and_says_no_points():
    """A new user's report: ending a practice deal drew 胜 · 托管 · 逃跑 on her row and an empty
    multiplier row, while the text says nobody pays. Nobody won, lost or escaped: no row has a
    tag, and where the multiplier would be the picture says practice counts no points."""
    from images.result import row_tags, title_lines, won

    state = new_deal(SCORE, seed=SEED, first_bidder=0)
    state = apply(state, Action("bid", 0, value=3))  # Ada is landlord
    state = apply(state, Action("autoplay", 0, value=True))
    final = _finish(apply(state, Action("leave", 0)))
    table = table_for(final)
    table.lang = "zh-Hans"
    table.private = True  # a practice table
    table.seats = [Seat(1, "Ada Lovelace"), Seat(None, "🤖 机器人2", True),
                   Seat(None, "🤖 机器人3", True)]
    zeros = [0, 0, 0]
    scene = scenes.result_scene(table, final.view(0), final.hands, zeros, zeros)
    assert scene is not None and scene.seats[0].escaped
    assert title_lines(scene) == ("Ada Lovelace 结束了练习", [])
    assert breakdown(scene) == ["练习不计分"]
    assert [row_tags(scene, seat) for seat in scene.seats] == [[], [], []]
    assert not any(won(scene, seat) for seat in scene.seats)
    assert scenes.result_breakdown(scene) == ["练习不计分"]
    render_result(scene)  # a valid picture


def test_every_top_board_has_a_picture_in_the_groups_language():
    from bot.store import LeaderboardRow
    from bot.telegram.handlers.economy import TOP_QUERIES

    rows = [LeaderboardRow(1, 7, "Ada Lovelace", 1200, 9, 6),
            LeaderboardRow(2, 8, "🔥🔥", 0, 0, 0)]
    for kind in TOP_QUERIES:
        board = scenes.leaderboard_scene(kind, rows, "zh-Hant")
        assert board.title == t(f"top.title_{kind}", "zh-Hant")
        assert board.balances == (kind in ("all", "global"))
        assert board.labels == scenes.picture_labels("zh-Hant")
        assert [(r.rank, r.name, r.beans, r.games, r.wins) for r in board.rows] == [
            (1, "Ada Lovelace", 1200, 9, 6), (2, "玩家2", 0, 0, 0)]  # nothing drawable
        assert board.rows[1].win_rate is None  # no deal, no rate
        render_leaderboard(board)  # a valid picture
    with pytest.raises(KeyError):
        scenes.leaderboard_scene("yesterday", rows)


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_a_four_player_result_adds_up(seed):
    """RULES.md §11: four seats, bombs do not double by default, and a landlord who bid 3 first
    and wins gets 头撂 +1 per pair: the picture's parts give the engine's multipliers and
    bonus, its points are the engine's."""
    from engine import FOUR
    from images.result import pair_multipliers

    state = new_deal(FOUR, seed=seed, first_bidder=0)
    state = apply(state, Action("bid", 0, value=3))
    final = _finish(state)
    result = final.result
    table = table_for(final)
    table.seats.append(Seat(4, "韓梅梅"))
    table.lang = "zh-Hant"
    scene = scenes.result_scene(table, final.view(0), final.hands, result.points,
                                [p * 10 for p in result.points])
    assert scene is not None and len(scene.seats) == 4
    assert not scene.bombs_double and scene.bonus == result.bonus
    assert pair_multipliers(scene) == list(result.multipliers)
    parts = breakdown(scene)
    assert not any(part.startswith("炸彈") for part in parts)
    assert ("頭撂 +1" in parts) == (result.bonus == 1)
    assert [s.points for s in scene.seats] == list(result.points)
    render_result(scene)  # a valid picture


def test_the_four_player_table_picture_carries_each_farmers_bomb_allowance():
    """RULES.md §11 (the allowance is public), QA round 4 defect 5: the same numbers as the
    caption's "1 bomb left"."""
    from engine import FOUR

    state = new_deal(FOUR, seed=SEED, first_bidder=0)
    for seat, bid in ((0, 1), (1, 2), (2, None), (3, None)):
        state = apply(state, Action("bid", seat, value=bid) if bid else Action("pass", seat))
    assert state.phase == "playing" and state.landlord == 1
    table = table_for(state)
    table.seats.append(Seat(4, "韓梅梅"))
    view = state.view(0)
    scene = scenes.table_scene(table, view, 20)
    assert [s.bombs_left for s in scene.seats] == [view.bombs_left(i) if i != 1 else None
                                                   for i in range(4)]
    assert [s.bombs_left for s in scene.seats] == [1, None, 1, 1]
    three = scenes.table_scene(table_for(_finish_bidding()), _finish_bidding().view(0), 20)
    assert all(s.bombs_left is None for s in three.seats)


def _finish_bidding():
    state = new_deal(SCORE, seed=SEED, first_bidder=0)
    return apply(state, Action("bid", 0, value=3))


def test_names_the_fonts_cannot_draw_get_one_distinct_fallback_everywhere():
    """QA round 4, defect 4: Arabic, very rare hanzi and emoji names are not drawn as three
    identical "?" rows on /top; the table names them like the board (玩家N / Player N) and
    their badges say 玩N / PN; a name with drawable characters keeps them."""
    from bot.store import LeaderboardRow

    names = ["محمد علي", "𠀋𡈽𪚥", "💰💰💰", "Ann"]
    rows = [LeaderboardRow(n, 10 + n, name, 100 - n, 1, 1) for n, name in enumerate(names, 1)]
    board = scenes.leaderboard_scene("today", rows, "zh-Hans")
    assert [r.name for r in board.rows] == ["玩家1", "玩家2", "玩家3", "Ann"]
    en = scenes.leaderboard_scene("today", rows, "en")
    assert [r.name for r in en.rows][:3] == ["Player 1", "Player 2", "Player 3"]
    table = table_for(new_deal(SCORE, seed=SEED, first_bidder=0))
    table.lang = "zh-Hans"
    table.seats = [Seat(1, "Ann"), Seat(2, "𠀋𡈽𪚥"), Seat(3, "💰💰💰")]
    scene = scenes.table_scene(table, table.state.view(0), 20)
    assert [(s.label, s.name) for s in scene.seats] == [
        ("A", "Ann"), ("玩2", "玩家2"), ("玩3", "玩家3")]


def test_badges_that_collide_at_one_table_are_told_apart():
    table = table_for(new_deal(SCORE, seed=SEED, first_bidder=0))
    table.lang = "zh-Hans"
    table.seats = [Seat(1, "选手甲"), Seat(2, "选手乙"), Seat(None, "🤖 机器人3", True)]
    assert scenes.seat_labels(table, "zh-Hans") == ["甲", "乙", "机3"]
    table.seats = [Seat(1, "Al Lee"), Seat(2, "Ann Lu"), Seat(3, "王小明")]
    assert scenes.seat_labels(table, "en") == ["AL", "AN", "王"]
