"""Fixed inputs for the golden pictures (and the README examples in docs/)."""

from __future__ import annotations

from engine.cards import parse_ranks
from images import (
    LeaderboardRow,
    ResultScene,
    ResultSeat,
    SeatScene,
    TableScene,
    cards_for_ranks,
)

#: The landlord's 20 cards after taking the kitty: every rank from 3 to 2 and both jokers.
HAND_20 = (0, 1, 5, 9, 14, 18, 19, 23, 27, 28, 30, 35, 38, 41, 44, 47, 50, 51, 52, 53)
HAND_20_SELECTED = (0, 1, 27, 28)
#: A two-deck landlord hand (RULES.md §11): 33 cards, ids repeating.
HAND_33 = tuple(sorted(list(range(0, 54, 2)) + [3, 7, 11, 15, 52, 53]))
HAND_33_SELECTED = (52, 52, 53)

TABLE_3 = TableScene(
    seats=(
        SeatScene("AL", "landlord", 12, last_play=cards_for_ranks(parse_ranks("33344456"))),
        SeatScene("P2", "farmer", 2, alarm=True, last_play="pass", autoplay=True, doubled=True),
        SeatScene("BW", "farmer", 15, is_turn=True,
                  shown_cards=(2, 6, 10, 13, 17, 21, 26, 31, 34, 37, 42, 45, 48, 49, 53)),
    ),
    kitty=(5, 40, 52),
    base=3,
    multiplier=12,
    seconds_left=17,
)

TABLE_BIDDING = TableScene(
    seats=(
        SeatScene("P1", None, 17, last_play="bid 1"),
        SeatScene("P2", None, 17, last_play="pass"),
        SeatScene("P3", None, 17, is_turn=True),
    ),
    seconds_left=4,
)

TABLE_4 = TableScene(
    seats=(
        SeatScene("P1", "farmer", 25, last_play="pass"),
        SeatScene("P2", "farmer", 1, alarm=True, is_turn=True),
        SeatScene("LL", "landlord", 30, last_play=cards_for_ranks(parse_ranks("TTJJQQKK"))),
        SeatScene("P4", "farmer", 25, last_play=cards_for_ranks(parse_ranks("AAA")),
                  shown_cards=tuple(range(0, 50, 2))),
    ),
    kitty=(0, 4, 8, 12, 16, 20, 52, 53),
    base=2,
    multiplier=4,
    seconds_left=28,
)

RESULT = ResultScene(
    winner="landlord",
    seats=(
        ResultSeat("AL", "landlord", 48, 960),
        ResultSeat("P2", "farmer", -24, -480, cards_for_ranks(parse_ranks("3479JQKA2D")),
                   autoplay=True),
        ResultSeat("BW", "farmer", -24, -480, cards_for_ranks(parse_ranks("55")), escaped=True),
    ),
    base=3,
    multiplier=16,
    bombs=2,
    spring=True,
)

LEADERBOARD = [
    LeaderboardRow(1, "Ada Lovelace", 12400, 80, 51),
    LeaderboardRow(2, "P2", 9000, 60, 33),
    LeaderboardRow(3, "bob", 300, 12, 5),
    LeaderboardRow(4, "Zed", -20, 3, 1),
]
