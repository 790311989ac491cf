"""Bidding, calling/robbing and doubling from hand strength (RULES.md §2, §3).

Hand strength counts control cards (2s, jokers, bombs, the rocket) and the number of plays the
hand needs (:func:`engine.ai.decompose.hand_turns`): a hand with many controls and few plays is
worth bidding for. Thresholds are in *strength points*; a 17-card hand usually scores −4 to 12.

Calibration (1,500 self-play deals of the ``normal`` level with seat 0 always the landlord): the
landlord's win rate is about 0.48 for a 17-card strength of 0–2, 0.56 at 2–4, 0.64 at 4–6,
0.70 at 6–8 and 0.80 at 8 or more. A bid is worth it when the win rate clearly passes one half;
higher bids raise the stake (RULES.md §7) and want surer hands.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.ai.decompose import hand_turns
from engine.ai.hand import counts_of
from engine.cards import BIG_JOKER, SMALL_JOKER, TWO

#: Strength needed for a bid of 1, 2, 3 (score preset, RULES.md §2.1).
BID_THRESHOLDS = (2.0, 4.0, 7.0)
#: Strength needed to call, and to rob (rob preset, RULES.md §2.2).
CALL_THRESHOLD = 2.0
ROB_THRESHOLD = 5.0
#: Strength needed to double (RULES.md §3): landlord (20 cards) and farmer (17 cards).
LANDLORD_DOUBLE = 10.0
FARMER_DOUBLE = 8.0


def hand_strength(ranks: Sequence[int]) -> float:
    """Strength points of a hand given as ranks (see module doc).

    2s count 2 (four 2s 8), the small joker 3, the big joker 4, the rocket 1 more, each other
    bomb 6; every play the hand needs beyond 6 costs 1.5, every one below 6 earns 1.5.
    """
    c = counts_of(ranks)
    ctrl = 3.0 * c[SMALL_JOKER] + 4.0 * c[BIG_JOKER]
    if c[SMALL_JOKER] and c[BIG_JOKER]:
        ctrl += 1.0
    ctrl += 8.0 if c[TWO] == 4 else 2.0 * c[TWO]
    ctrl += 6.0 * sum(1 for r in range(TWO) if c[r] == 4)
    turns = hand_turns(c)
    return ctrl + 1.5 * (6 - turns)


def bid_value(ranks: Sequence[int]) -> int:
    """The bid this hand is worth: 0 (pass) to 3 (RULES.md §2.1)."""
    s = hand_strength(ranks)
    return sum(1 for t in BID_THRESHOLDS if s >= t)


def wants_call(ranks: Sequence[int]) -> bool:
    """Call the landlord (叫地主, RULES.md §2.2)."""
    return hand_strength(ranks) >= CALL_THRESHOLD


def wants_rob(ranks: Sequence[int]) -> bool:
    """Rob the landlord (抢地主, RULES.md §2.2)."""
    return hand_strength(ranks) >= ROB_THRESHOLD


def wants_double(ranks: Sequence[int], is_landlord: bool) -> bool:
    """Double this seat's stake (加倍, RULES.md §3)."""
    return hand_strength(ranks) >= (LANDLORD_DOUBLE if is_landlord else FARMER_DOUBLE)

