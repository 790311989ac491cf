"""Texts and keyboards: cards as people read them, the right buttons at the right time, and no
hand in a group view (issue 3; GLOSSARY.md; RULES §4–§7)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.core import callbacks as cb
from bot.core.i18n import CATALOGUES, LANGUAGES, t
from bot.core.table import Seat, Table
from bot.presentation import views
from engine import (
    ERROR_CODES,
    ROB,
    SCORE,
    Action,
    ComboType,
    apply,
    classify,
    new_deal,
    preset,
)
from engine.cards import parse_ranks
from engine.replay import deal_from_strings

BOT_DIR = Path(__file__).resolve().parents[2] / "bot"


def table_for(state=None, lang="en") -> Table:
    table = Table(-100, None, lang, title="Group")
    table.seats = [Seat(1, "Ann"), Seat(2, "Bob"), Seat(None, "🤖", True)]
    table.reset_turn_memory()
    table.state = state
    return table


def test_cards_as_people_read_them():
    ranks = parse_ranks("3TJQKA2XD")
    assert views.ranks_text(ranks, "en") == "3 10 J Q K A 2 Small joker Big joker"
    assert views.ranks_text(ranks, "zh-Hans") == "3 10 J Q K A 2 小王 大王"
    assert views.ranks_text(ranks, "zh-Hant").endswith("小王 大王")
    assert views.cards_text([52, 0, 31], "en") == "3 10 Small joker"


def test_selection_buttons_show_counts_and_carry_token_and_version():
    rows = views.selection_keyboard_rows(parse_ranks("33347TXD"), parse_ranks("33X"), "Tok12345",
                                         9, "en")
    labels = [b.text for row in rows for b in row]
    assert labels == ["✅3 2/3", "4", "7", "10", "✅Small joker", "Big joker"]
    assert [len(row) for row in rows] == [5, 1]
    assert rows[0][3].callback_data == "S:Tok12345:9:r7"
    for row in rows:
        for button in row:
            assert cb.parse_callback(button.callback_data).version == 9


def test_hand_view_buttons_follow_the_phase():
    state = new_deal(SCORE, seed=1, first_bidder=0)
    table = table_for(state)
    text, markup = views.hand_view(table, state.view(0), 15)
    labels = [[b.text for b in row] for row in markup.inline_keyboard]
    assert labels == [["1 point", "2 points", "3 points", "No bid"], ["Auto-play"]]
    assert text.splitlines()[1] == views.cards_text(state.hands[0], "en")
    assert "15 s" in text
    _, markup = views.hand_view(table, state.view(1), 15)
    assert [[b.text for b in row] for row in markup.inline_keyboard] == [["Auto-play"]]

    state = apply(state, Action("bid", 0, value=3))  # Ann is landlord and leads
    table.state = state
    text, markup = views.hand_view(table, state.view(0), 30)
    controls = [b.text for b in markup.inline_keyboard[-2]]
    assert controls == ["Play", "Hint", "Clear"]  # a leader may not pass (RULES §4.1)
    assert t("hand.role", "en", role="Landlord") in text
    low = views.cards_text(state.hands[0], "en").split()[0]
    state = apply(state, Action("play", 0, cards=(state.hands[0][0] // 4,)))
    table.state = state
    _, markup = views.hand_view(table, state.view(1), 30)
    assert [b.text for b in markup.inline_keyboard[-2]] == ["Play", "Pass", "Hint", "Clear"]
    text, _ = views.hand_view(table, state.view(1), 30)
    assert t("hand.your_follow", "en", cards=low, name="Ann", seconds=30) in text

    state = apply(state, Action("autoplay", 1, value=1))
    table.state = state
    text, markup = views.hand_view(table, state.view(1), 30)
    # on auto-play the seat is not prompted: no status or counter line, the 记牌器 button
    assert [[b.text for b in row] for row in markup.inline_keyboard] == [
        [t("btn.counter", "en")], ["Take back", t("btn.last_trick", "en")]]
    assert markup.inline_keyboard[1][0].callback_data.endswith(":0:auto0")
    assert t("hand.counter", "en", counts="") not in text
    assert views.status_line(table, state.view(1), "en") not in text


def test_rob_preset_buttons():
    state = new_deal(ROB, seed=3, first_bidder=2)
    table = table_for(state, "zh-Hans")
    _, markup = views.hand_view(table, state.view(2), 15)
    assert [b.text for b in markup.inline_keyboard[0]] == ["叫地主", "不叫"]
    state = apply(state, Action("call", 2))
    table.state = state
    _, markup = views.hand_view(table, state.view(0), 15)
    assert [b.text for b in markup.inline_keyboard[0]] == ["抢地主", "不抢"]
    assert [b.callback_data.split(":")[-1] for b in markup.inline_keyboard[0]] == ["rob", "norob"]


@pytest.mark.parametrize(("lang", "bid", "call", "rob"), [
    ("zh-Hans", "轮到你叫分", "轮到你叫地主", "轮到你抢地主"),
    ("zh-Hant", "輪到你叫分", "輪到你叫地主", "輪到你搶地主"),
    ("en", "Your turn to bid (1–3 points)", "call the landlord?", "rob the landlord?"),
])
def test_bidding_words_follow_the_preset_and_its_stage(lang, bid, call, rob):
    """RULES.md §2: the score preset bids points (叫分); the rob preset calls (叫地主), then
    robs (抢地主)."""
    state = new_deal(SCORE, seed=3, first_bidder=0)
    table = table_for(state, lang)
    hand, _ = views.hand_view(table, state.view(0), 15)
    text, _ = views.table_view(table, state.view(0), 15)
    assert bid in hand and call not in hand
    assert t("table.phase_bid", lang) in text and t("table.phase_call", lang) not in text
    state = new_deal(ROB, seed=3, first_bidder=0)
    table = table_for(state, lang)
    hand, _ = views.hand_view(table, state.view(0), 15)
    text, _ = views.table_view(table, state.view(0), 15)
    assert call in hand and bid not in hand and rob not in hand
    assert t("table.phase_call", lang) in text
    state = apply(state, Action("call", 0))
    table.state = state
    hand, _ = views.hand_view(table, state.view(1), 15)
    text, _ = views.table_view(table, state.view(1), 15)
    assert rob in hand and call not in hand
    assert t("table.phase_rob", lang) in text
    if lang != "en":
        assert t("table.phase_bid", lang) == "叫分中"
        assert "叫分" in t("table.redeal_score", lang) and "叫地主" in t("table.redeal_rob", lang)
        assert "叫分" in t("table.no_bids_score", lang, n=3)


def test_table_view_is_public_only():
    state = new_deal(SCORE, seed=5, first_bidder=1)
    state = apply(state, Action("bid", 1, value=2))
    table = table_for(state)
    text, markup = views.table_view(table, state.view(0), 14.6)
    assert "▶ Bob · 17 cards · 2 points" not in text  # Bob has spoken; Cat is next
    assert "Bob · 17 cards · 2 points" in text
    assert "⏳ 🤖 Bot 3 to act · 15 s" in text
    assert [b.text for b in markup.inline_keyboard[0]] == [t("btn.my_cards", "en")]
    assert t("btn.my_cards", "en") == "🂠 My cards"
    state = apply(state, Action("pass", 2))
    state = apply(state, Action("pass", 0))
    table.state = state
    text, _ = views.table_view(table, state.view(0), 30, notice="note")
    assert t("table.kitty", "en", cards=views.cards_text(state.kitty, "en")) in text
    assert "👑 Bob (Landlord) · 20 cards" in text and text.endswith("note")
    for hand in state.hands:
        assert views.cards_text(hand, "en") not in text


def test_last_actions_show_the_current_round():
    state = new_deal(SCORE, seed=5, first_bidder=0)
    for action in (Action("bid", 0, value=1), Action("pass", 1), Action("bid", 2, value=3)):
        state = apply(state, action)
    landlord = state.landlord
    single = (state.hands[landlord][0] // 4,)
    state = apply(state, Action("play", landlord, cards=single))
    latest = views.last_actions(state.view(0))
    assert latest[landlord] == Action("play", landlord, cards=single)
    assert [a for i, a in enumerate(latest) if i != landlord] == [None, None]


@pytest.mark.parametrize(("ranks", "rules", "en", "zh"), [
    ("3555", SCORE, "555 3", "555 3"),
    ("3TTT", SCORE, "10 10 10 3", "10 10 10 3"),
    ("33344456", SCORE, "333 444 5 6", "333 444 5 6"),
    ("355558", SCORE, "5555 3 8", "5555 3 8"),
    ("33555588", SCORE, "5555 33 88", "5555 33 88"),
    ("335555", preset("score", four_two_is_bomb=True), "5555 3 3", "5555 3 3"),
    ("34567", SCORE, "3 4 5 6 7", "3 4 5 6 7"),
    ("TTJJQQ", SCORE, "10 10 JJ QQ", "10 10 JJ QQ"),
    ("XD", SCORE, "Small joker Big joker", "小王 大王"),
    ("9", SCORE, "9", "9"),
])
def test_a_play_is_written_body_first_then_kickers(ranks, rules, en, zh):
    play = classify(parse_ranks(ranks), rules)[0]
    assert views.play_text(play, "en") == en
    assert views.play_text(play, "zh-Hans") == zh == views.play_text(play, "zh-Hant")


def test_table_and_follow_prompt_show_plays_body_first():
    """Bob (seat 1) plays 444 6 on the table; Cat, to follow, is asked to beat "444 6"."""
    hands = ["3355557799JJKKAA2", "444688TTQQ379JKA2", "346667889TTJQQKA2"]
    state = deal_from_strings(SCORE, hands, "2XD", first_bidder=1)
    for action in (Action("bid", 1, value=3), Action("play", 1, cards=parse_ranks("4446"))):
        state = apply(state, action)
    table = table_for(state)
    text, _ = views.table_view(table, state.view(0), 20)
    assert "Bob (Landlord) · 16 cards · 444 6" in text
    hand, _ = views.hand_view(table, state.view(2), 20)
    assert "beat 444 6 (Bob)" in hand
    zh_table = table_for(state, "zh-Hans")
    hand, _ = views.hand_view(zh_table, state.view(2), 20)
    assert "压过 444 6" in hand


def test_beat_texts_say_why():
    pair = classify(parse_ranks("99"))[0]
    bomb = classify(parse_ranks("8888"))[0]
    rocket = classify(parse_ranks("XD"))[0]
    straight = classify(parse_ranks("34567"))[0]
    assert views.beat_text("too_low", pair, "en") == (
        "A pair can only be beaten by a higher pair (or a bomb).")
    assert views.beat_text("too_low", pair, "zh-Hans") == "对子只能用更大的对子压（或炸弹）。"
    assert views.beat_text("type_mismatch", pair, "en") == (
        "A pair can only be beaten by a pair (or a bomb).")
    assert views.beat_text("length_mismatch", straight, "en").startswith("A straight of 5 cards")
    assert views.beat_text("too_low", bomb, "en") == t("beat.bomb", "en")
    assert views.beat_text("too_low", rocket, "en") == t("beat.rocket", "en")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_engine_refusal_has_a_text(lang):
    for code in ERROR_CODES:
        assert views.illegal_text(code, lang) == CATALOGUES[lang][f"illegal.{code}"]
    assert views.illegal_text("no_such_code", lang) == t("illegal.not_allowed", lang)


def test_every_key_used_by_the_flow_exists_in_every_language():
    keys = set()
    for path in [BOT_DIR / "presentation" / "views.py",
                 *sorted((BOT_DIR / "telegram" / "handlers").glob("*.py"))]:
        keys |= set(re.findall(r'\bt\(\s*"([a-z_.0-9]+)"', path.read_text(encoding="utf-8")))
    keys |= {f"lobby.{r}" for r in ("expired", "closed", "empty")}
    keys |= {f"preset.{p}" for p in ("score", "rob")} | {f"btn.bid_{v}" for v in (1, 2, 3)}
    keys |= {f"combo.{c.value}" for c in ComboType}
    keys |= {f"btn.{k}" for k in ("call", "decline", "rob", "norob", "double", "nodouble")}
    keys |= {f"hand.your_bid_{w}" for w in ("bid", "call", "rob")}
    keys |= {f"table.phase_{w}" for w in ("bid", "call", "rob")}
    keys |= {f"table.{k}_{p}" for k in ("redeal", "no_bids") for p in ("score", "rob")}
    assert len(keys) > 80
    for lang in LANGUAGES:
        missing = sorted(k for k in keys if k not in CATALOGUES[lang])
        assert missing == [], lang


def test_result_view_lists_points_beans_and_kitty():
    state = new_deal(SCORE, seed=11, first_bidder=0)
    state = apply(state, Action("bid", 0, value=3))
    state = apply(state, Action("leave", 1))
    state = apply(state, Action("leave", 2))
    state = apply(state, Action("leave", 0))
    table = table_for(state)
    text, markup = views.result_view(table, state.view(0), state.result.points, (0, 0, 0))
    assert text.splitlines()[0] == t("result.cancelled", "en")
    assert "Ann (Landlord): 0 points, 0 beans" in text
    assert t("result.kitty", "en", cards=views.cards_text(state.kitty, "en")) in text
    assert t("pic.escape_title", "en", names="Ann, Bob, 🤖 Bot 3") in text
    assert [b.text for b in markup.inline_keyboard[0]] == ["Play again", "Leave"]
    table.private = True  # a practice (or challenge) deal plays for points only
    text, _ = views.result_view(table, state.view(0), state.result.points, (0, 0, 0))
    assert "👑 Ann (Landlord): 0 points" in text.splitlines() and "beans" not in text
    table.private, table.competition.match_id = False, 7  # so does a match's deal
    text, _ = views.result_view(table, state.view(0), state.result.points, (0, 0, 0))
    assert "beans" not in text


def test_result_after_an_escape_says_who_left_what_they_paid_and_the_breakdown():
    from bot.presentation import scenes
    from engine import auto_action

    state = new_deal(SCORE, seed=11, first_bidder=0)
    state = apply(state, Action("bid", 0, value=3))
    state = apply(state, Action("leave", 1))
    while state.result is None:
        state = apply(state, auto_action(state, state.to_act[0]))
    result = state.result
    assert result.escaped == (1,) and result.winner is not None
    table = table_for(state)
    beans = [p * 10 for p in result.points]
    scene = scenes.result_scene(table, state.view(0), state.hands, result.points, beans)
    breakdown = scenes.result_breakdown(scene)
    text, _ = views.result_view(table, state.view(0), result.points, beans, breakdown)
    lines = text.splitlines()
    paid = -result.points[1]
    assert lines[0] == "🏁 Bob left the deal"
    assert lines[1] == f"Bob left and pays {paid} points ({paid * 10} beans)."
    assert "\n".join(breakdown) in text and breakdown[0].startswith("Base 3")
    assert (t("result.spring", "en", spring=t("spring", "en")) in lines) == result.spring
    assert f"Bob (Farmer): -{paid} points, -{paid * 10} beans" in text
    assert t("result.landlord_wins", "en") not in text


def test_doubling_round_asks_every_seat_and_show_cards_is_offered():
    rules = ROB.with_options(show_cards=True)
    state = new_deal(rules, seed=8, first_bidder=0)
    table = table_for(state)
    _, markup = views.hand_view(table, state.view(1), 15)
    assert [b.text for b in markup.inline_keyboard[0]] == ["Show cards"]  # ×4 before the call
    for action in (Action("call", 0), Action("norob", 1), Action("norob", 2)):
        state = apply(state, action)
    assert state.phase == "doubling"
    table.state = state
    for seat in range(3):
        _, markup = views.hand_view(table, state.view(seat), 15)
        assert [b.text for b in markup.inline_keyboard[0]] == ["Double", "No double"]
    text, _ = views.table_view(table, state.view(0), 15)
    assert t("table.phase_doubling", "en") in text
    assert "⏳ Ann, Bob, 🤖 Bot 3 to act" in text
    state = apply(state, Action("double", 1))
    table.state = state
    text, _ = views.table_view(table, state.view(0), 15)
    assert "Bob (Farmer) · 17 cards · Double" in text
    assert "Multiplier ×2 / ×1" in text  # per farmer–landlord pair, farmers in seat order


def test_call_outs_announce_bombs_rockets_planes_robs_doubles_shows_and_the_multiplier():
    hands = ["33334444555666XD7", "77788899TTJJQQKKA", "5689TTJJQQKKAAA22"]
    state = deal_from_strings(SCORE, hands, "922", first_bidder=0)
    table = table_for(state)
    state = apply(state, Action("bid", 0, value=3))
    assert views.callout(table, state.view(1), "en") is None
    state = apply(state, Action("play", 0, cards=parse_ranks("3333")))
    seen = []
    for action in (Action("pass", 1), Action("pass", 2)):
        table.state = state
        seen.append(views.table_view(table, state.view(1), 20)[0])
        state = apply(state, action)
    assert all("💣 Ann: Bomb! Multiplier ×2" in text for text in seen)  # stands for a round
    state = apply(state, Action("play", 0, cards=parse_ranks("XD")))
    assert views.callout(table, state.view(2), "en") == "🚀 Ann: Rocket! Multiplier ×4"
    hand, _ = views.hand_view(table, state.view(2), 20)
    assert "🚀 Ann: Rocket! Multiplier ×4" in hand  # the private captions say it too
    for action in (Action("pass", 1), Action("pass", 2),
                   Action("play", 0, cards=parse_ranks("55566679"))):
        state = apply(state, action)
    assert views.callout(table, state.view(1), "zh-Hans") == "🛫 Ann 飞机！"

    state = new_deal(ROB, seed=3, first_bidder=0)
    for action in (Action("call", 0), Action("rob", 1)):
        state = apply(state, action)
    table = table_for(state, lang="zh-Hans")
    table.seats[1] = Seat(2, "李雷")
    assert "🙋 李雷 抢地主！倍数 ×2" in views.table_view(table, state.view(0), 20)[0]
    while state.phase == "bidding":
        seat = state.to_act[0]
        kinds = [a.kind for a in state.view(seat).legal_actions()]
        state = apply(state, Action("norob" if "norob" in kinds else "pass", seat))
    assert state.phase == "doubling"
    farmer = next(s for s in range(3) if s != state.landlord)
    state = apply(state, Action("double", farmer))
    pairs = views.multiplier_text(state.multipliers())
    assert views.callout(table, state.view(0), "zh-Hans") == \
        f"⏫ {views.seat_name(table.seats[farmer], farmer, 'zh-Hans')} 加倍！倍数 {pairs}"
    assert pairs in ("×2 / ×4", "×4 / ×2")

    state = apply(new_deal(ROB.with_options(show_cards=True), seed=8, first_bidder=0),
                  Action("show", 1))
    table = table_for(state)
    assert views.callout(table, state.view(0), "en") == \
        "👀 Bob shows their cards! Multiplier ×4"


def test_a_show_before_bidding_counts_in_the_multiplier_while_bidding():
    """RULES.md §3, §7: a show before bidding is ×4 for the whole deal from the moment it is made
    (QA: the table, its picture and the hands said ×1 until the landlord was decided, and the
    call-out had no multiplier); a rob doubles it again; the table's cap holds."""
    from bot.presentation.scenes import table_scene

    rules = ROB.with_options(show_cards=True)
    state = apply(new_deal(rules, seed=8, first_bidder=0), Action("show", 1))
    assert state.phase == "bidding" and state.landlord is None and state.shown == (0, 4, 0)
    table = table_for(state, lang="zh-Hans")
    table.seats[1] = Seat(2, "乙方")
    assert views.current_multipliers(state.view(0)) == [4]
    text, _ = views.table_view(table, state.view(0), 15)
    assert "倍数 ×4" in text and "×1" not in text
    assert "👀 乙方 明牌！倍数 ×4" in text
    hand, _ = views.hand_view(table, state.view(2), 15)
    assert "倍数 ×4" in hand and "×1" not in hand
    assert table_scene(table, state.view(0), 15).multiplier == 4
    state = apply(apply(state, Action("call", 1)), Action("rob", 2))
    assert state.phase == "bidding"
    assert views.current_multipliers(state.view(0)) == [8]
    capped = apply(new_deal(rules.with_options(multiplier_cap=2), seed=8, first_bidder=0),
                   Action("show", 0))
    assert views.current_multipliers(capped.view(1)) == [2]
    score = apply(new_deal(SCORE.with_options(show_cards=True), seed=8, first_bidder=0),
                  Action("show", 0))
    assert views.current_multipliers(score.view(1)) == [4]


def test_a_loser_who_paid_all_they_had_is_named_in_the_result():
    """RULES.md §8 (QA: Cat −6 points but −50 beans, Ann +12 points but +650 beans at 100 a
    point, and nothing said why): the caption names each loser who could pay only what it held,
    in every language, and the picture tags its row."""
    from bot.presentation import scenes
    from engine import auto_action

    state = new_deal(SCORE, seed=11, first_bidder=0)
    state = apply(state, Action("bid", 0, value=3))
    state = apply(state, Action("leave", 1))
    while state.result is None:
        state = apply(state, auto_action(state, state.to_act[0]))
    table = table_for(state)
    table.seats[2] = Seat(3, "Cat")
    table.options.stake = 100
    points, beans = [12, -6, -6], [650, -600, -50]
    assert views.short_payers(table, points, beans) == [2]
    text, _ = views.result_view(table, state.view(0), points, beans)
    assert "⚠️ Cat could pay only 50 beans, all they had; the winners share it." in text.splitlines()
    scene = scenes.result_scene(table, state.view(0), state.hands, points, beans)
    assert [s.short for s in scene.seats] == [False, False, True]
    table.lang = "zh-Hans"
    zh, _ = views.result_view(table, state.view(0), points, beans)
    assert "⚠️ Cat 欢乐豆不足，只付了 50 欢乐豆（全部），赢家按比例分。" in zh.splitlines()
    # Paid in full: nobody is named, whatever the points.
    assert views.short_payers(table, points, [1200, -600, -600]) == []
    text, _ = views.result_view(table, state.view(0), points, [1200, -600, -600])
    assert "⚠️" not in text
    # A bot winner takes nothing, so a loser pays less than points × stake: not short of beans.
    table.seats[2] = Seat(None, "🤖", True)
    assert views.short_payers(table, [-2, 1, 1], [-100, 100, 0]) == []
    table.private = True  # points only: no beans to be short of
    assert views.short_payers(table, points, beans) == []


def test_the_selection_line_says_whether_the_selection_can_be_played():
    """The prompt's selection line (issue 32 item 5): the reading when it is a legal play,
    else why not, in the words of Play's pop-up (RULES.md §5, §6)."""
    state = apply(new_deal(SCORE, seed=20240601, first_bidder=0), Action("bid", 0, value=3))
    view = state.view(0)  # Ann leads: 3 4 4 5 6 7 8 J Q K K K A A 2 小王 大王 and the kitty
    legal = view.legal_plays()
    assert views.selection_line(view, parse_ranks("KKK3"), legal, "en") == (
        "Selected: 3 K K K · ✅ trio with a single, can be played")
    assert views.selection_line(view, parse_ranks("34"), legal, "zh-Hant") == (
        "已選：3 4 · ✖ 這些牌不是有效牌型。")
    led = apply(state, Action("play", 0, cards=parse_ranks("K")))
    bob = led.view(1)
    assert views.selection_line(bob, parse_ranks("5"), bob.legal_plays(), "en") == (
        "Selected: 5 · ✖ A single can only be beaten by a higher single (or a bomb).")
    assert views.selection_line(bob, parse_ranks("2"), bob.legal_plays(), "zh-Hans") == (
        "已选：2 · ✅ 单张，可以出")


def test_a_waiting_hand_reads_what_the_others_did_last():
    """Issue 32 item 4: each other seat from the next one on (下家 first) with its latest
    decision as the table writes it; a seat that has not acted this round is left out."""
    state = new_deal(SCORE, seed=20240601, first_bidder=0)
    table = table_for(state)
    assert views.others_line(table, state.view(1), "en") is None  # nobody has bid yet
    state = apply(state, Action("bid", 0, value=1))
    state = apply(state, Action("pass", 1))
    table.state = state
    assert views.others_line(table, state.view(2), "en") == "Ann 1 point · Bob No bid"
    assert views.others_line(table, state.view(0), "zh-Hans") == "Bob 不叫"
    text, _ = views.hand_view(table, state.view(0), 10)
    assert text.splitlines()[-3:] == ["Bob No bid", "", "Waiting for 🤖 Bot 3."]
