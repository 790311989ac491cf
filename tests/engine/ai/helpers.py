"""Build seat views of concrete positions for the AI tests (RULES.md §4)."""

from __future__ import annotations

from dataclasses import replace

from engine.action import Action
from engine.cards import parse_ranks
from engine.deal import apply, new_deal
from engine.presets import SCORE
from engine.trick import Trick, read_play
from engine.view import SeatView


def cards_of(text: str) -> tuple[int, ...]:
    """Card ids for a rank string (suits chosen in order; jokers are 52 and 53)."""
    used: dict[int, int] = {}
    out = []
    for r in parse_ranks(text):
        if r >= 13:
            out.append(39 + r)
        else:
            out.append(r * 4 + used.get(r, 0))
            used[r] = used.get(r, 0) + 1
    return tuple(sorted(out))


def position(seat: int, hand: str, counts: tuple[int, int, int], *,
             played: list[tuple[int, str]] = (), trick: tuple[int, str] | None = None,
             landlord: int = 0) -> SeatView:
    """The view of ``seat`` (to act) holding ``hand`` in a deal where ``landlord`` leads.

    ``played`` adds public plays to the history; ``trick`` is the play to beat and its seat.
    """
    state = new_deal(SCORE, seed=1, first_bidder=landlord)
    state = apply(state, Action("bid", landlord, value=3))
    view = state.view(seat)
    history = view.history + tuple(Action("play", s, cards=parse_ranks(c)) for s, c in played)
    if trick is not None:
        history += (Action("play", trick[0], cards=parse_ranks(trick[1])),)
        play = read_play(parse_ranks(trick[1]), None, None, SCORE)
        t = Trick(play=play, seat=trick[0], passes=(seat - trick[0]) % 3 - 1)
    else:
        t = Trick()
    ranks = sorted(r for a in history if a.kind == "play" for r in a.cards)
    return replace(view, hand=cards_of(hand), counts=counts, history=history, trick=t,
                   to_act=(seat,), played=tuple(ranks))
