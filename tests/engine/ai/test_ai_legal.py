"""The AI never returns an illegal action (property test over random deals, RULES.md §2–§6)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ai import levels
from engine.deal import apply, new_deal
from engine.presets import ROB, SCORE

RULES = {
    "score": SCORE,
    "rob": ROB,
    "show": SCORE.with_options(show_cards=True, doubling=True),
    "third": SCORE.with_options(third_min_two=True, all_pass_forced_landlord=True),
    "house": SCORE.with_options(rocket_kickers=True, four_two_is_bomb=True, alarm_at=3),
}


def _key(action):
    return (action.kind, action.seat, action.value, action.cards)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    preset=st.sampled_from(sorted(RULES)),
    seat_levels=st.tuples(*[st.sampled_from(levels.LEVELS)] * 3),
    noise=st.sampled_from([0.0, 0.2, 0.5]),
)
def test_every_ai_action_is_legal(seed, preset, seat_levels, noise):
    rng = random.Random(seed)
    state = new_deal(RULES[preset], seed=seed, first_bidder=seed % 3)
    decisions = 0
    while state.phase not in ("finished", "redeal"):
        for seat in state.to_act:
            legal = [a for a in state.legal_actions(seat) if a.kind != "show"]
            # the first decision is always the AI's: a deal that all pass at once (a redeal)
            # still checks one
            if decisions and rng.random() < noise:
                action = rng.choice(legal)  # random moves reach unusual positions
            else:
                action = levels.choose_action(state.view(seat), seat_levels[seat])
                assert _key(action) in {_key(a) for a in legal}, (str(action), state.to_json())
                decisions += 1
                for hint in levels.hints(state.view(seat), limit=3):
                    assert any(a.kind == "play" and a.cards == hint.cards for a in legal)
            state = apply(state, action)
            break
    assert decisions > 0
