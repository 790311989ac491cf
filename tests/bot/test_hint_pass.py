"""Hint when the AI's own choice is to pass (QA of issue 10): Pass comes first, not a bomb or a
rocket over the partner's winning play; pressed again, Hint cycles through the plays as
usual (:func:`bot.selection.hint_order`)."""

from __future__ import annotations

from bot.game.service import Game
from bot.game.table import Seat, Table
from bot.selection import hint_order
from bot.settings import Settings
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
        table.selections[seat] = [3]
        assert await game.hint(table, seat) == "pass"
        assert table.selections[seat] == []
        cycle = [str(p) for p in hint_order(legal)]
        assert cycle[-1] == "XD"  # the rocket last
        shown = []
        for _ in cycle:
            assert await game.hint(table, seat) == "play"
            shown.append(table.selections[seat])
        assert shown == [sorted(p.cards) for p in hint_order(legal)]
        assert await game.hint(table, seat) == "pass"  # and round again
    finally:
        game.shutdown()
