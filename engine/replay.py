"""The judge's ``replay`` operation: play a whole deal from fixed cards (docs/judge.md).

>>> hands = ["3333444455556666X", "777788889999TTTTD", "JJJJQQQQKKKKAAAA2"]
>>> out = run_replay({"op": "replay", "preset": "score", "hands": hands, "kitty": "222",
...                   "first_bidder": 0, "actions": ["pass", "pass", "pass"]})
>>> out
{'ok': True, 'finished': False, 'redeal': True}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.action import Action, IllegalAction
from engine.cards import SMALL_JOKER, CardError, parse_ranks
from engine.deal import DealState, apply, new_deal
from engine.presets import Rules, preset


def run_replay(request: dict[str, Any], rules: Rules | None = None) -> dict[str, Any]:
    """Replay a deal and report its result (RULES.md §1–§4, §7, §9, §11; docs/judge.md).

    ``request``: ``{"preset": "score"|"rob", "hands": [3 card strings], "kitty": str,
    "first_bidder": int, "actions": [str, ...], "options": {house options}}``, and in the
    four-player game optionally ``"barred": [seats]``: seats that may only pass in the bidding,
    having lost three deals as landlord in their match (RULES.md §11; a bid of theirs is
    illegal, code ``barred``; 逼打 still makes a barred first bidder landlord). Each action is
    made by the seat whose turn it is (``to_act[0]``; in the doubling round that is seat order
    starting with the landlord), ``leave``, ``autoplay 0|1``, ``show`` and ``timeout`` included:
    a play or pass made while that seat is on auto-play counts as made by auto-play (RULES.md
    §9). ``rules``, when given, replaces ``preset`` and ``options``
    (the judge passes the four-player rules of RULES.md §11 this way: four hands of 25 and a
    kitty of 8).

    Returns:
        finished: ``{"ok": True, "finished": True, "landlord", "base", "winner", "bombs",
        "rockets", "spring", "anti_spring", "multiplier", "points", "escaped",
        "autoplay_penalized"}``; ``bombs`` counts bombs and rockets played, ``multiplier`` each
        farmer–landlord pair's, farmers in seat order; ``escaped`` the seats that left (RULES.md
        §9; a leave during the bidding ends the deal with ``winner`` and ``landlord`` null and
        ``base`` the highest bid so far), ``autoplay_penalized`` the farmers the auto-play
        penalty fell on (RULES.md §9).
        All passed: ``{"ok": True, "finished": False, "redeal": True}``. Actions ran out
        first: ``{"ok": True, "finished": False, "phase", "to_act", "landlord", "base", "bombs",
        "multiplier", "counts"}``. Illegal action: ``{"ok": False, "at": index, "error": text,
        "code": IllegalAction code}``. Malformed request: ``{"error": text}``. Never raises.
    """
    try:
        state, actions = _setup(request, rules)
    except (KeyError, TypeError, ValueError, CardError) as exc:
        return {"error": f"bad replay request: {exc}"}
    for index, text in enumerate(actions):
        try:
            state = apply_texts(state, [text])
        except IllegalAction as exc:
            return {"ok": False, "at": index, "error": exc.message, "code": exc.code}
    return summary(state)


def summary(state: DealState) -> dict[str, Any]:
    """The judge's description of a deal state (see :func:`run_replay`)."""
    if state.phase == "redeal":
        return {"ok": True, "finished": False, "redeal": True}
    result = state.result
    if result is None:
        return {"ok": True, "finished": False, "phase": state.phase, "to_act": list(state.to_act),
                "landlord": state.landlord, "base": state.base, "bombs": state.bombs,
                "multiplier": list(state.multipliers()), "counts": list(state.counts)}
    return {"ok": True, "finished": True, "landlord": result.landlord, "base": result.base,
            "winner": result.winner, "bombs": result.bombs, "rockets": result.rockets,
            "spring": result.spring, "anti_spring": result.anti_spring,
            "multiplier": list(result.multipliers), "points": list(result.points),
            "escaped": list(result.escaped), "autoplay_penalized": list(result.autoplay_penalized)}


def _setup(request: dict[str, Any], rules: Rules | None) -> tuple[DealState, list[str]]:
    if rules is None:
        options = request.get("options") or {}
        if not isinstance(options, dict):
            raise ValueError("options must be an object")
        rules = preset(request.get("preset", "score"), **options)
    hands_text, kitty_text = request["hands"], request["kitty"]
    if not isinstance(hands_text, list) or not all(isinstance(h, str) for h in hands_text):
        raise ValueError("hands must be a list of card strings")
    first_bidder = request.get("first_bidder", 0)
    if not isinstance(first_bidder, int) or isinstance(first_bidder, bool):
        raise ValueError("first_bidder must be a seat number")
    actions = request["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise ValueError("actions must be a list of strings")
    seats = request.get("barred", [])
    if not isinstance(seats, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) and 0 <= s < rules.seats
            for s in seats):
        raise ValueError("barred must be a list of seat numbers")
    barred = [s in seats for s in range(rules.seats)] if seats else []
    return deal_from_strings(rules, hands_text, kitty_text, first_bidder=first_bidder,
                             barred=barred), actions


def deal_from_strings(rules: Rules, hands: Sequence[str], kitty: str, *,
                      first_bidder: int = 0, barred: Sequence[bool] = ()) -> DealState:
    """A new deal with fixed cards written as rank strings (RULES.md §1), e.g. for tests and
    the judge: ``deal_from_strings(SCORE, ["33344…", …], "XD2")``. Suits are handed out in
    order (they never matter, RULES.md §1.1). ``barred``: as :func:`engine.deal.new_deal`
    (RULES.md §11).

    Raises:
        CardError: an unknown character or too many of a rank in one string.
        ValueError: the strings are not exactly one deck dealt to size, a bad seat, or a bar
            :func:`engine.deal.new_deal` refuses.
    """
    groups = [parse_ranks(t, decks=rules.decks) for t in [*hands, kitty]]
    cards = _cards_from_ranks(groups, rules.decks)
    return new_deal(rules, first_bidder=first_bidder, hands=cards[:-1], kitty=cards[-1],
                    barred=barred)


def apply_texts(state: DealState, actions: Sequence[str]) -> DealState:
    """Apply actions written in judge notation, each by the seat ``to_act[0]``.

    Raises:
        IllegalAction: the first illegal action (earlier ones are applied to a copy only).
    """
    for text in actions:
        if not state.to_act:
            raise IllegalAction("wrong_phase", f"The deal is over ({state.phase}).")
        state = apply(state, Action.parse(state.to_act[0], text))
    return state


def _cards_from_ranks(groups: Sequence[Sequence[int]], decks: int = 1) -> list[list[int]]:
    """Give each rank a card id of the decks: the suits are handed out in order (RULES.md §1.1:
    suits never matter; with two decks, RULES.md §11, each card id is used twice)."""
    used = [0] * (SMALL_JOKER + 2)
    out = []
    for ranks in groups:
        cards = []
        for r in ranks:
            if used[r] >= (4 if r < SMALL_JOKER else 1) * decks:
                raise ValueError("the hands and kitty hold a card more often than the decks")
            cards.append(r * 4 + used[r] % 4 if r < SMALL_JOKER else 39 + r)
            used[r] += 1
        out.append(cards)
    return out
