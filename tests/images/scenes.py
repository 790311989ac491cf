"""Fixed inputs for the golden pictures (and the README examples in docs/).

The words are the catalogues' (``bot.presentation.scenes.picture_labels``, copied here as fixed
values so that a catalogue edit does not move the golden pictures silently): zh-Hans for the
three-seat table and the result, zh-Hant for the four-seat table, English for the rest.
"""

from __future__ import annotations

import dataclasses

from engine.cards import parse_ranks
from images import (
    ENGLISH,
    Labels,
    LeaderboardRow,
    LeaderboardScene,
    ResultScene,
    ResultSeat,
    SeatScene,
    TableScene,
    cards_for_ranks,
)

HANS = Labels(
    lang="zh-Hans", landlord="地主", farmer="农民", autoplay="托管", doubled="加倍",
    base="底分 {base}", base_unset="底分 –", multiplier="×{n}", landlord_wins="地主胜",
    farmers_win="农民胜", escape_title="{names} 逃跑",
    escape_paid="{name} 逃跑，付 {points} 分（{beans} 欢乐豆）",
    escape_points="{name} 逃跑，付 {points} 分", practice_left="{names} 结束了练习",
    practice_free="练习不计分",
    bidding_escape="叫牌时逃跑：逃跑者固定付 {n} 分（还没有底分和倍数）。", win="胜",
    bidding_escape_bid=("叫牌时逃跑（底分 {base}，倍数 ×{m}）：逃跑者付 {n} 分（3 × 底分 × 倍数，"
                        "至少 6 分）。"),
    lose="负",
    left="逃跑", penalty="托管惩罚", short="欢乐豆不足", points="分数", beans="欢乐豆",
    played_out="出完了",
    rob="抢地主 {n} 次 ×{m}", rob_one="抢地主 1 次 ×{m}", show="明牌 ×{m}", shown="明牌",
    landlord_double="地主加倍 ×{m}", double="加倍 ×{m}", bombs="炸弹 {n} 个 ×{m}",
    bomb_one="炸弹 1 个 ×{m}", rockets="王炸 {n} 个 ×{m}", rocket_one="王炸 ×{m}",
    spring="春天 ×{m}", anti_spring="反春 ×{m}", cap="封顶 ×{m}",
    head_bid="头撂 +{n}", allowance="可出炸弹 {n}",
    place="名次", player="玩家", net_beans="净赢欢乐豆", balance="欢乐豆", deals="局数",
    win_rate="胜率", no_rows="还没有人打过牌", matchpoints="比赛分", no_entrants="还没有人参加",
    boards="副数", final="最终排名", cancelled="已取消", score="积分", chips="筹码", prize="奖金",
    standings="排名 · {format}",
    match_over="比赛结束 · {format}",
)
HANT = dataclasses.replace(
    HANS, lang="zh-Hant", farmer="農民", autoplay="託管", landlord_wins="地主勝",
    farmers_win="農民勝", escape_paid="{name} 逃跑，付 {points} 分（{beans} 歡樂豆）",
    practice_left="{names} 結束了練習", practice_free="練習不計分",
    bidding_escape="叫牌時逃跑：逃跑者固定付 {n} 分（還沒有底分和倍數）。", win="勝",
    bidding_escape_bid=("叫牌時逃跑（底分 {base}，倍數 ×{m}）：逃跑者付 {n} 分（3 × 底分 × 倍數，"
                        "至少 6 分）。"),
    lose="負", penalty="託管懲罰", short="歡樂豆不足", points="分數", beans="歡樂豆",
    rob="搶地主 {n} 次 ×{m}",
    rob_one="搶地主 1 次 ×{m}", bombs="炸彈 {n} 個 ×{m}", bomb_one="炸彈 1 個 ×{m}",
    rockets="王炸 {n} 個 ×{m}", cap="封頂 ×{m}",
    head_bid="頭撂 +{n}", allowance="可出炸彈 {n}",
    net_beans="淨贏歡樂豆", balance="歡樂豆", deals="局數", win_rate="勝率",
    no_rows="還沒有人打過牌", matchpoints="比賽分", no_entrants="還沒有人參加",
    boards="副數", final="最終排名", score="積分", chips="籌碼", prize="獎金",
    match_over="比賽結束 · {format}",
)

#: The landlord's 20 cards after taking the kitty: every rank from 3 to 2 and both jokers.
HAND_20 = (0, 1, 5, 9, 14, 18, 19, 23, 27, 28, 30, 35, 38, 41, 44, 47, 50, 51, 52, 53)
HAND_20_SELECTED = (0, 1, 27, 28)
#: A two-deck landlord hand (RULES.md §11): 33 cards, ids repeating.
HAND_33 = tuple(sorted(list(range(0, 54, 2)) + [3, 7, 11, 15, 52, 53]))
HAND_33_SELECTED = (52, 52, 53)

TABLE_3 = TableScene(
    seats=(
        SeatScene("王", "landlord", 12, name="王小明",
                  last_play=cards_for_ranks(parse_ranks("33344456"))),
        SeatScene("李", "farmer", 2, name="李雷", alarm=True, last_play="不出", autoplay=True,
                  doubled=True),
        SeatScene("欧", "farmer", 15, name="欧阳娜娜🔥Nana Ouyang", is_turn=True,
                  shown_cards=(2, 6, 10, 13, 17, 21, 26, 31, 34, 37, 42, 45, 48, 49, 53)),
    ),
    kitty=(5, 40, 52),
    base=3,
    multiplier=12,
    seconds_left=17,
    labels=HANS,
)

#: Issue 10: a 12-card straight in front of a side seat stays one row.
TABLE_STRAIGHT = TableScene(
    seats=(
        SeatScene("AL", "landlord", 8, name="Ada Lovelace", last_play="Pass"),
        SeatScene("P2", "farmer", 5, name="🔥🔥", is_turn=True),
        SeatScene("MA", "farmer", 5, name="Maximilian Alexander",
                  last_play=cards_for_ranks(parse_ranks("3456789TJQKA"))),
    ),
    kitty=(5, 40, 52),
    base=2,
    multiplier=2,
    seconds_left=30,
)

TABLE_BIDDING = TableScene(
    seats=(
        SeatScene("P1", None, 17, name="Player 1", last_play="1 point"),
        SeatScene("B2", None, 17, name="Bot 2", last_play="No bid"),
        SeatScene("Z", None, 17, name="Zoë", is_turn=True),
    ),
    seconds_left=4,
)

TABLE_4 = TableScene(
    seats=(
        SeatScene("陳", "farmer", 25, name="陳大文", last_play="不出", bombs_left=1),
        SeatScene("韓", "farmer", 10, name="韓梅梅", alarm=True, is_turn=True, bombs_left=0,
                  autoplay=True),
        SeatScene("司", "landlord", 30, name="司馬懿",
                  last_play=cards_for_ranks(parse_ranks("TTJJQQKK"))),
        SeatScene("L", "farmer", 25, name="Lee", last_play=cards_for_ranks(parse_ranks("AAA")),
                  shown_cards=tuple(range(0, 50, 2)), bombs_left=2),
    ),
    kitty=(0, 4, 8, 12, 16, 20, 52, 53),
    base=2,
    multiplier=4,
    seconds_left=28,
    labels=HANT,
)

#: Rob preset (base 1): two robs ×4, the landlord showed ×2, a bomb and the rocket ×4, a
#: spring ×2 — ×64 in both pairs; 李雷 doubled (×128). Points 1 × 128 + 1 × 64.
RESULT = ResultScene(
    winner="landlord",
    seats=(
        ResultSeat("王", "landlord", 192, 3840, name="王小明", shown=2),
        ResultSeat("李", "farmer", -128, -2560, cards_for_ranks(parse_ranks("3479JQKA2D")),
                   name="李雷", autoplay=True, doubled=True, multiplier=128),
        ResultSeat("韩", "farmer", -64, -1280, cards_for_ranks(parse_ranks("55")),
                   name="韩梅梅", multiplier=64),
    ),
    base=1,
    multiplier=128,
    bombs=2,
    rockets=1,
    robs=2,
    spring=True,
    labels=HANS,
)

#: Score preset, base 3: Bob left during play and pays 3 × 3 × 4 = 36 points (RULES.md §9).
RESULT_ESCAPE = ResultScene(
    winner="landlord",
    seats=(
        ResultSeat("AL", "landlord", 18, 180, cards_for_ranks(parse_ranks("4568")),
                   name="Ada Lovelace"),
        ResultSeat("B", "farmer", -36, -360, cards_for_ranks(parse_ranks("9TJQKA2")),
                   name="Bob 🔥", escaped=True, autoplay=True, multiplier=4),
        ResultSeat("C", "farmer", 18, 180, cards_for_ranks(parse_ranks("33")), name="Cat",
                   multiplier=4),
    ),
    base=3,
    multiplier=4,
    bombs=2,
    labels=ENGLISH,
)

LEADERBOARD_ROWS = (
    LeaderboardRow(1, "Ada Lovelace", 12400, 80, 51),
    LeaderboardRow(2, "王小明", 9000, 60, 33),
    LeaderboardRow(3, "bob 🔥", 0, 12, 5),
    LeaderboardRow(4, "Zed the Great Player Of All", -20, 3, 1),
)
LEADERBOARD = LeaderboardScene("🏆 This week's leaderboard (net beans won)", LEADERBOARD_ROWS)
#: /top global: balances, no sign; a player without a deal has no win rate.
LEADERBOARD_BALANCES = LeaderboardScene(
    "🌏 全服欢乐豆总榜",
    (LeaderboardRow(1, "韩梅梅", 15800, 40, 22), LeaderboardRow(2, "李雷", 1000, 0, 0),
     LeaderboardRow(3, "欧阳娜娜娜娜娜", 0, 7, 0)),
    balances=True, labels=HANS,
)
