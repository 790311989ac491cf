"""Bidding, calling/robbing and doubling from hand strength (RULES.md §2, §3).

Hand strength counts control cards (2s, jokers, bombs, the rocket) and the number of plays the
hand needs (:func:`engine.ai.decompose.hand_turns`): a hand with many controls and few plays is
worth bidding for. Thresholds are in *strength points*; a 17-card hand usually scores −4 to 12.

Tuning (``bench/arena.py --bidding``: whole deals, the AI in one chair among RLCard's rule agent,
which bids and doubles like our ``easy`` level; 1,000 deals from seed 7000 per preset, compared
deal by deal with the same deals): bidding, calling, robbing and doubling earlier than the first
calibration (bid 2/4/7, call 2, rob 5, double 10/8, from ``normal`` self-play, where the landlord
won about half the deals at a strength of 0-2 and 0.80 at 8 or more) gains points all the way:
score preset bid 0/2/5 +0.83 points per deal (± 0.15), rob preset call 0 / rob 3 +0.69 (± 0.27),
doubling at 6/4 +1.06 over 10/8 (with call 1 / rob 4). The field's weakness pulls towards
bidding every hand (bid -1/1/4 gained another +0.31), so the thresholds stop here rather than
follow it into bidding hands a strong table would punish.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.ai.decompose import hand_turns
from engine.ai.hand import counts_of
from engine.cards import BIG_JOKER, SMALL_JOKER, TWO

#: Strength needed for a bid of 1, 2, 3 (score preset, RULES.md §2.1).
BID_THRESHOLDS = (0.0, 2.0, 5.0)
#: Strength needed to call, and to rob (rob preset, RULES.md §2.2).
CALL_THRESHOLD = 0.0
ROB_THRESHOLD = 3.0
#: Strength needed to double (RULES.md §3): landlord (20 cards) and farmer (17 cards).
LANDLORD_DOUBLE = 6.0
FARMER_DOUBLE = 4.0


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

