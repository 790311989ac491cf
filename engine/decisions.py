"""Whether a decision taken on an older state still means what it meant (RULES.md §3).

Every seat due may double (加倍) and show its cards (明牌) at once, whatever the others decide
meanwhile, so a decision drawn at one state version may arrive after the others' decisions
moved the version on: :func:`still_current` says whether it may act on the state as it is now.
"""

from __future__ import annotations

from engine.action import ActionKind
from engine.deal import DealState

#: The decisions RULES.md §3 lets every seat due take at once, whatever the others decide
#: meanwhile: doubling (加倍, all seats asked together) and showing cards (明牌).
SIMULTANEOUS = frozenset({ActionKind.DOUBLE, ActionKind.NODOUBLE, ActionKind.SHOW})
#: The bidding actions; the last one of a deal is the landlord taking the kitty.
BIDDING = frozenset({ActionKind.BID, ActionKind.CALL, ActionKind.DECLINE, ActionKind.ROB,
                     ActionKind.NOROB, ActionKind.PASS})


def still_current(state: DealState, seat: int, kind: ActionKind, version: int) -> bool:
    """Whether ``seat``'s decision ``kind`` (an action kind), offered at state ``version``, may
    act on ``state``: offered at this very state, or a simultaneous decision
    (:data:`SIMULTANEOUS`) that means now what it meant when offered:

    * double / not double: ``seat`` has not decided yet in the doubling round (the only phase
      that offers them, once per deal), so three decisions at once are all taken;
    * show cards: the seat may still show at the factor it was offered: ×4 before the first
      bid (that window only closes), ×2 for the landlord only if offered after the kitty was
      taken (:func:`kitty_version`), not a bidding-time ×4 offer.

    A seat that decided already, a version above ``state``'s and every other decision on an
    older state are not current."""
    if version == state.version:
        return True
    if version > state.version or kind not in SIMULTANEOUS \
            or state.phase not in ("bidding", "doubling", "playing"):
        return False
    if kind != ActionKind.SHOW:
        return state.phase == "doubling" and seat in state.to_act
    factor = state.view(seat).may_show()
    return factor == 4 or (factor == 2 and version >= kitty_version(state))


def kitty_version(state: DealState) -> int:
    """The state version at which the landlord took the kitty (RULES.md §1.3): the version
    right after the deal's last bidding action, 0 before any; meaningful until the first play
    (a pass in play is not told apart). Every applied action is one history entry and one
    version, except a timeout: its ``timeout`` entry and the action it resolved to are one."""
    version = taken = 0
    for action in state.history:
        if action.kind == ActionKind.TIMEOUT:
            continue
        version += 1
        if action.kind in BIDDING:
            taken = version
    return taken
