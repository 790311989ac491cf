"""Hint when the AI's own choice is to pass (QA of issue 10): Pass comes first, not a bomb or a
rocket over the partner's winning play; pressed again, Hint cycles through the plays as
usual (:func:`bot.core.selection.hint_order`)."""

from __future__ import annotations

import time

from bot.core.selection import hint_order
from bot.core.settings import Settings
from bot.core.table import Seat, Table
from bot.features.service import Game
from bot.game.outlet import PRESSER, PROMPT
from engine import SCORE, Action, apply, new_deal
from engine.ai import choose_action, hint_advice
from engine.combos import ComboType

SEED = 10


def _partner_leads_and_wins() -> tuple:
    """Seed 10: the landlord (seat 0) leads, farmer 1 beats it with 44555; farmer 2 holds the
    rocket and the AI passes."""
    state = apply(new_deal(SCORE, seed=SEED, first_bidder=0), Action("bid", 0, value=3))
    for _ in range(2):
        seat = state.to_act[0]
        state = apply(state, choose_action(state.view(seat), "hard", seed=1))
    return state, state.to_act[0]


async def test_hint_offers_pass_first_when_the_ai_passes_on_the_partner():
    state, seat = _partner_leads_and_wins()
    view = state.view(seat)
    assert seat == 2 and view.trick.seat == 1 and state.landlord == 0
    legal = view.legal_plays()
    assert any(p.type is ComboType.ROCKET for p in legal)
    assert hint_advice(view).pass_first

    game = Game(None, Settings(bot_token="1:x"), None)  # type: ignore[arg-type]
    try:
        table = Table(-1, None, "en", seats=[Seat(1, "Ann"), Seat(2, "Bob"), Seat(3, "Cat")])
        table.state = state
        table.reset_turn_memory()
        table.progress.selections[seat] = [3]
        assert await game.hint(table, seat) == "pass"
        assert table.progress.selections[seat] == []
        cycle = [str(p) for p in hint_order(legal)]
        assert cycle[-1] == "XD"  # the rocket last
        shown = []
        for _ in cycle:
            assert await game.hint(table, seat) == "play"
            shown.append(table.progress.selections[seat])
        assert shown == [sorted(p.cards) for p in hint_order(legal)]
        assert await game.hint(table, seat) == "pass"  # and round again
    finally:
        game.shutdown()


class _Recorder:
    """An outlet that records the hand messages presented (and shows them all), and the rank
    in the token's line each was asked for at."""

    def __init__(self) -> None:
        self.presented: list[tuple[int, str]] = []
        self.ranks: list[int] = []

    async def present(self, chat_id, message_id, is_photo, shown_key, drawing, thread_id=None,
                      *, rank=2):
        self.presented.append((chat_id, drawing.text))
        self.ranks.append(rank)
        return (message_id or 100 + chat_id, drawing.is_photo)


async def test_hint_saying_pass_with_nothing_selected_costs_no_edit():
    """Issue 9 item 9: the pop-up says to pass; the hand message would change only in its
    seconds left, so it is not edited. A press that changes the selection is drawn (with the
    seconds left now)."""
    state, seat = _partner_leads_and_wins()
    outlet = _Recorder()
    game = Game(None, Settings(bot_token="1:x"), outlet)  # type: ignore[arg-type]
    try:
        table = Table(-1, None, "en", seats=[Seat(1, "Ann"), Seat(2, "Bob"), Seat(3, "Cat")])
        table.state = state
        table.reset_turn_memory()
        table.reset_messages()
        table.progress.deadline = time.time() + 25
        await game.deals.show_hand(table, seat)
        assert len(outlet.presented) == 1 and "25" in outlet.presented[0][1]
        table.progress.deadline -= 5  # five seconds later: the message still says 25 s
        assert await game.hint(table, seat) == "pass"
        await game.redraw_hand(table, seat)
        assert len(outlet.presented) == 1  # nothing but the clock would change
        assert await game.hint(table, seat) == "play"  # pressed again: a play is selected
        await game.redraw_hand(table, seat)
        assert len(outlet.presented) == 2 and "20" in outlet.presented[1][1]
        # the presser's own hand goes first in the token's line, the turn's prompt after it
        assert outlet.ranks == [PROMPT, PRESSER]
    finally:
        game.shutdown()
