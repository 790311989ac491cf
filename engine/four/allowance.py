"""The farmers' bomb allowances of the four-player game (RULES.md §11 "Bomb limits").

The landlord may play any number of bombs. A farmer's allowance follows from the bidding:

* 头撂 (the first bidder bid 3 at once): every farmer may play any number;
* otherwise a farmer who passed or bid 1 may play 1 bomb, one who bid 2 may play 2 (a first
  bidder whose 1 or 2 nobody outbid leaves three 1-bomb farmers: the same rule);
* 逼打 (all four passed, the first bidder is landlord at base 1): the seat before the landlord
  in turn order (上家, ``landlord - 1``) may play no bomb, the other two 1 each.

``joker_bomb`` (天尊) counts as a bomb. The allowance is public (``SeatView.bomb_limits``).
Rule choices where §11 is silent: a farmer's own bid is their only bid (each seat speaks once,
RULES.md §11); with the house rule off (``rules.farmer_bomb_limits``) nobody has a limit.

>>> from engine.action import Action, ActionKind
>>> from engine.presets import FOUR
>>> bid = ActionKind.BID
>>> bids = [Action(bid, 1, value=1), Action(bid, 2, value=2), Action(ActionKind.PASS, 3),
...         Action(bid, 0, value=3)]
>>> bomb_limits(FOUR, bids, first_bidder=1, landlord=0)
(None, 1, 2, 1)
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.action import Action, ActionKind
from engine.play import ComboType, Play
from engine.presets import Rules

__all__ = ["BOMB_TYPES", "bomb_limits", "head_bid", "is_bomb"]

#: Plays that count against an allowance (RULES.md §11: 天尊 counts as a bomb).
BOMB_TYPES = frozenset({ComboType.BOMB, ComboType.JOKER_BOMB, ComboType.ROCKET})


def is_bomb(play: Play) -> bool:
    """True for a bomb, joker bomb or rocket."""
    return play.type in BOMB_TYPES


def head_bid(bids: Sequence[Action], first_bidder: int) -> bool:
    """True if the bidding opened with the first bidder's 3 (头撂, RULES.md §11).

    ``bids`` are the deal's actions in order; only ``bid`` and ``pass`` are looked at.
    """
    spoken = [a for a in bids if a.kind in (ActionKind.BID, ActionKind.PASS)]
    return bool(spoken) and spoken[0] == Action(ActionKind.BID, first_bidder, value=3)


def bomb_limits(rules: Rules, bids: Sequence[Action], *, first_bidder: int,
                landlord: int) -> tuple[int | None, ...]:
    """Per seat, how many bombs it may play in the deal; ``None`` = any number.

    Args:
        rules: the deal's rules; without ``rules.farmer_bomb_limits`` or outside the four-player
            game every seat is unlimited.
        bids: the deal's actions in order (``bid``/``pass`` are the bidding; others ignored).
        first_bidder: the seat that spoke first.
        landlord: the landlord; landlord and first bidder with no bid at all is 逼打.
    """
    seats = rules.seats
    if rules.variant != "four" or not rules.farmer_bomb_limits or head_bid(bids, first_bidder):
        return (None,) * seats
    own = {a.seat: a.value or 0 for a in bids if a.kind == ActionKind.BID}
    limits: list[int | None] = []
    for seat in range(seats):
        if seat == landlord:
            limits.append(None)
        elif not own:  # 逼打: the landlord's 上家 may not bomb
            limits.append(0 if seat == (landlord - 1) % seats else 1)
        else:
            limits.append(2 if own.get(seat) == 2 else 1)
    return tuple(limits)
