"""Match texts and the option buttons (issue 11): exact lines in three languages."""

from __future__ import annotations

from bot.core.i18n import t
from bot.features.match.views import (
    final_text,
    options_lines,
    place_text,
    standings_scene,
    standings_text,
    stepped,
)
from bot.telegram.handlers.match import Refusal, refusal_text, typed_options
from engine.knockout import PER_POINT
from engine.match import FIRST_TO, FIXED, KNOCKOUT, MatchError, MatchOptions, MatchState

NAMES = ["Ann", "Bob", "Cat"]


def test_option_buttons_step_through_their_choices_and_stop_at_the_ends() -> None:
    options = MatchOptions(FIXED)
    assert stepped(options, "deals-").deals == 8
    assert stepped(MatchOptions(FIXED, deals=3), "deals-").deals == 3
    assert stepped(MatchOptions(FIXED, deals=18), "deals+").deals == 18
    assert stepped(options, "fee+").entry_fee == 10
    knockout = MatchOptions(KNOCKOUT)
    assert stepped(knockout, "base+").chip_base == 3
    assert stepped(knockout, "chips-").chips == 15 and stepped(knockout, "chips+").chips == 30
    assert stepped(MatchOptions(KNOCKOUT, chips=5), "chips-").chips == 5
    assert stepped(MatchOptions(KNOCKOUT, chips=200), "chips+").chips == 200
    assert stepped(knockout, "out+").threshold == 2 and stepped(knockout, "out-").threshold == 1
    assert stepped(knockout, "per+").base_per == PER_POINT
    assert stepped(stepped(knockout, "per+"), "per+").base_per == "deal"
    try:  # out at 20 chips or fewer, starting with 10: nobody could play
        stepped(MatchOptions(KNOCKOUT, chips=10, threshold=10), "out+")
    except MatchError:
        pass
    else:
        raise AssertionError("a threshold above the starting chips")
    assert stepped(knockout, "time+").time_limit == 15
    assert stepped(MatchOptions(KNOCKOUT, chip_base=4), "base-").chip_base == 3
    try:
        stepped(options, "chips+")  # a fixed match has no chips
    except KeyError:
        pass
    else:
        raise AssertionError("chips in a fixed match")


def test_places_in_three_languages() -> None:
    assert [place_text(n, "en") for n in (1, 2, 3, 12, 21)] == \
        ["1st place", "2nd place", "3rd place", "12th place", "21st place"]
    assert place_text(3, "zh-Hans") == "第3名" and place_text(1, "zh-Hant") == "第1名"


def test_knockout_standings_show_chips_out_and_the_chip_base() -> None:
    options = MatchOptions(KNOCKOUT, rise_every=1, base_per=PER_POINT)
    state = MatchState(options, (True, True, False), 0.0)
    state = state.record(1, (-12, 7, 5))  # 20 − 24: pays 20, shared 14 : 10
    text = standings_text(state, NAMES, "en", 0.0).splitlines()
    assert text == [
        t("match.standings", "en", format="Knock-out"),
        "1st place Bob · 32 chips · deals played: 1",
        "2nd place Cat · 28 chips · deals played: 1",
        "3rd place Ann · 0 chips · out",
        "Chip base: 4 per point",
    ]
    zh = standings_text(state, NAMES, "zh-Hans", 0.0).splitlines()
    assert zh[3] == "第3名 Ann · 0 筹码 · 出局"
    state = MatchState(MatchOptions(KNOCKOUT), (True, True, False), 0.0).record(1, (2, -1, -1))
    assert standings_text(state, NAMES, "en", 0.0).splitlines()[-1] == "Chip base: 2 per deal"
    assert standings_text(state, NAMES, "zh-Hant", 0.0).splitlines()[-1] == "每局籌碼：2 個"


def test_the_knockout_lobby_shows_its_chips_threshold_and_unit() -> None:
    lines = options_lines(MatchOptions(KNOCKOUT), "en", 3)
    assert lines[1:5] == ["Starting chips: 20 · chip base: 2 per deal", "Out at 0 chips",
                          "Time limit: off", "Rising base: doubles every 5 deals"]
    lines = options_lines(MatchOptions(KNOCKOUT, chips=15, threshold=5, base_per=PER_POINT),
                          "zh-Hans", 3)
    assert lines[1:3] == ["初始筹码：15 · 每分 2 个筹码", "筹码少于 5 个即出局"]


def test_final_standings_name_the_champion_and_the_prizes() -> None:
    state = MatchState(MatchOptions(FIXED, deals=3, entry_fee=100), (True, True, True), 0.0)
    for n, points in enumerate([(4, -2, -2), (-1, 2, -1), (2, -4, 2)]):
        state = state.record(n, points)
    text = final_text(state, NAMES, [150, 60, 90], "zh-Hant")  # per seat
    assert text.splitlines() == [
        "🏁 比賽結束 · 定局積分",
        "🏆 冠軍：Ann",
        "",
        "第1名 Ann · +5 分 · 第 3/3 局 · 獎金 150 歡樂豆",
        "第2名 Cat · -1 分 · 第 3/3 局 · 獎金 90 歡樂豆",
        "第3名 Bob · -4 分 · 第 3/3 局 · 獎金 60 歡樂豆",
        "",
        "獎池 300 歡樂豆已發放。",
    ]


def test_shared_champions_are_listed_the_way_each_language_lists() -> None:
    def final(humans: tuple[bool, ...], points: tuple[int, ...], names: list[str],
              lang: str) -> str:
        state = MatchState(MatchOptions(FIXED, deals=3), humans, 0.0)
        for n in range(3):
            state = state.record(n, points)
        return final_text(state, names, [0, 0, 0], lang).splitlines()[1]

    assert final((True, False, True), (2, -4, 2), ["甲", "乙", "🤖 機器人3"], "zh-Hant") == \
        "🏆 冠軍：甲、🤖 機器人3"
    assert final((True, True, False), (2, 2, -4), NAMES, "en") == \
        t("match.champion", "en", names="Ann, Bob")


def test_the_standings_picture_has_the_texts_rows_and_the_final_one_the_prizes() -> None:
    options = MatchOptions(KNOCKOUT, rise_every=1, base_per=PER_POINT)
    state = MatchState(options, (True, True, False), 0.0)
    state = state.record(1, (-12, 6, 6))
    scene = standings_scene(state, NAMES, "zh-Hans", 0.0)
    assert scene.title == "排名 · 打立出局" and not scene.final and scene.chips
    assert [(r.place, r.name, r.score, r.progress, r.out) for r in scene.rows] == [
        (1, "Bob", "30 筹码", "1", False),  # the column is headed 局数: no word repeated
        (1, "Cat", "30 筹码", "1", False),
        (3, "Ann", "0 筹码", "出局", True),
    ]
    # the two still in are tied for first: an extra deal plays it off (RULES.md §10.1)
    assert scene.note == t("match.extra_deal", "zh-Hans") == "⚔️ 第一名并列：加赛一局！"
    final = standings_scene(state, NAMES, "en", 0.0, paid=[0, 60, 0])
    assert final.final and final.title == "Match over · Knock-out" and final.note == ""
    assert [(r.name, r.prize) for r in final.rows] == [("Bob", 60), ("Cat", 0), ("Ann", 0)]
    fixed = MatchState(MatchOptions(FIXED, deals=9), (True, True, True), 0.0)
    for n in range(3):
        fixed = fixed.record(n, (2, -1, -1))
    assert [r.progress for r in standings_scene(fixed, NAMES, "en", 0.0).rows] == ["3/9"] * 3
    assert t("match.deals_of", "en", n=3, total=9) in standings_text(fixed, NAMES, "en", 0.0)


def test_the_first_to_lobby_and_standings_show_the_target_and_the_prize_table() -> None:
    options = MatchOptions(FIXED, target=30, time_limit=15, entry_fee=100, prizes=(60, 40))
    assert options_lines(options, "en", 3) == [
        "🏆 First-to match", "First to 30 points wins", "Time limit: 15 min",
        "Entry fee: 100 beans · Prize pool: 300 beans",
        "Prize split: 1st place 60% · 2nd place 40% (bots take no part)"]
    assert options_lines(options, "zh-Hans", 3)[1:3] == ["先得 30 分者胜", "限时：15 分钟"]
    assert options_lines(options, "zh-Hant", 3)[-1] == \
        "獎池分配：第1名 60% · 第2名 40%（機器人不參與）"
    assert options_lines(MatchOptions(FIXED, deals=18), "en", 3)[1:3] == [
        "Deals: 18", "Time limit: off"]
    assert options_lines(MatchOptions(FIXED), "en", 3)[-1] == \
        "Prize split: 1st place 50% · 2nd place 30% · 3rd place 20% (bots take no part)"
    state = MatchState(options, (True,) * 3, 0.0).record(1, (4, -2, -2))
    assert standings_text(state, NAMES, "en", 0).splitlines() == [
        "📊 Standings · First-to match",
        "1st place Ann · +4 points · deals played: 1",
        "2nd place Bob · -2 points · deals played: 1",
        "2nd place Cat · -2 points · deals played: 1",
        "First to 30 points wins"]
    assert stepped(options, "target+").target == 50
    assert stepped(MatchOptions(FIXED, target=10), "target-").target == 10
    assert stepped(options, "time-").time_limit == 0


def test_typed_options_take_a_target_and_a_prize_table_and_refuse_a_bad_one() -> None:
    assert typed_options(FIRST_TO, []) == MatchOptions(FIXED, target=30)
    assert typed_options(FIRST_TO, ["50", "target=20", "time=15"]) == \
        MatchOptions(FIXED, target=20, time_limit=15, entry_fee=50)
    assert typed_options(FIXED, ["100", "prizes=60,40"]) == \
        MatchOptions(FIXED, entry_fee=100, prizes=(60, 40))
    assert typed_options(KNOCKOUT, ["prizes=100"]).prizes == (100,)  # type: ignore[union-attr]
    assert typed_options(FIXED, ["deals=18"]).deals == 18  # type: ignore[union-attr]
    assert typed_options(FIRST_TO, ["target=3"]) == \
        Refusal("match.typed_range", {"option": "target", "low": 5, "high": 300})
    assert typed_options(FIXED, ["target=30"]) == Refusal("match.usage", {})  # /firstto's
    cases = {"60,30": ("prizes.bad_sum", {"total": 90}),
             "40,60": ("prizes.bad_order", {"place": 2, "share": 60, "above": 40}),
             ",".join(["10"] * 11): ("prizes.bad_places", {"places": 11}),
             "0,100": ("prizes.bad_share", {"place": 1, "share": 0}),
             "half": ("prizes.bad_text", {"word": "half"}),
             "": ("prizes.bad_empty", {})}
    for table, (key, fields) in cases.items():
        refusal = typed_options(FIXED, ["100", f"prizes={table}"])
        assert refusal == Refusal(key, fields), table
        text = refusal_text(refusal, FIXED, "en")  # type: ignore[arg-type]
        assert text == t(key, "en", **fields) and "{" not in text
    assert refusal_text(typed_options(FIXED, ["prizes=60,30"]), FIXED, "en") == (  # type: ignore[arg-type]
        "Prize table: the percentages add up to 90%; they must add up to exactly 100%. "
        "Nothing was opened.")
    assert refusal_text(typed_options(FIXED, ["prizes=60,30"]), FIXED, "zh-Hans") == (  # type: ignore[arg-type]
        "奖金分配：百分比合计 90%，须正好是 100%。未开桌。")


def test_the_redeal_rule_cycles_shows_in_three_languages_and_is_typed_or_refused() -> None:
    """RULES.md §2.3 as a match option: the lobby button cycles the three rules, the lobby
    names the rule in the settings menu's words, ``redeal=`` types one, and a wrong word is
    refused with the three allowed ones; a match without a rule (four players, an old row)
    has no button to press."""
    options = MatchOptions(FIXED, redeal_rule="forced_bid")
    assert stepped(options, "redeal+").redeal_rule == "penalty"
    assert stepped(stepped(options, "redeal+"), "redeal+").redeal_rule == "redeal"
    assert stepped(MatchOptions(KNOCKOUT, redeal_rule="redeal"), "redeal+").redeal_rule \
        == "forced_bid"
    try:
        stepped(MatchOptions(FIXED), "redeal+")  # no rule: a four-player match
    except KeyError:
        pass
    else:
        raise AssertionError("a redeal rule for a match without one")
    lines = {lang: options_lines(MatchOptions(FIXED, redeal_rule="penalty"), lang, 3)
             for lang in ("en", "zh-Hans", "zh-Hant")}
    assert "All pass again: 3rd deal: -4 / +2" in lines["en"]
    assert "连续无人叫：第三局扣 4 分" in lines["zh-Hans"]
    assert "連續無人叫：第三局扣 4 分" in lines["zh-Hant"]
    assert not any("All pass again" in line for line in options_lines(MatchOptions(FIXED), "en", 3))

    stored = MatchOptions(KNOCKOUT, redeal_rule="penalty").to_dict()
    assert stored["redeal_rule"] == "penalty"
    assert MatchOptions.from_dict(stored).redeal_rule == "penalty"
    old = {k: v for k, v in stored.items() if k != "redeal_rule"}  # a row from before
    assert MatchOptions.from_dict(old).redeal_rule is None  # the group's rule, as then

    assert typed_options(FIXED, ["100", "redeal=penalty"]) == \
        MatchOptions(FIXED, entry_fee=100, redeal_rule="penalty")
    assert typed_options(KNOCKOUT, ["redeal=Forced-Bid"]).redeal_rule == "forced_bid"  # type: ignore[union-attr]
    assert typed_options(FIRST_TO, ["redeal_rule=redeal"]).redeal_rule == "redeal"  # type: ignore[union-attr]
    assert typed_options(FIXED, []).redeal_rule is None  # type: ignore[union-attr]
    refusal = typed_options(FIXED, ["redeal=again"])
    assert refusal == Refusal("match.typed_words", {"option": "redeal",
                                                    "words": ("redeal", "forced_bid", "penalty")})
    assert refusal_text(refusal, FIXED, "en") == (  # type: ignore[arg-type]
        "All pass again: one of redeal, forced_bid, penalty, please. "
        "Nothing was opened.")
