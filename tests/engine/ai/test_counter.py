"""The card counter (记牌器) is computed from a SeatView alone (issue 17, RULES.md §1.3)."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.action import Action
from engine.ai import choose_action
from engine.ai.counter import CardCounter, card_counter, deck_counts, format_counter
from engine.cards import RANK_COUNT, cards_to_ranks
from engine.deal import DealState, apply, new_deal
from engine.presets import SCORE, Rules

SHOW = SCORE.with_options(show_cards=True, doubling=True)
FOUR = Rules(seats=4, decks=2, hand_size=25, kitty_size=8)


def _rank_counts(cards) -> list[int]:
    c = [0] * RANK_COUNT
    for r in cards_to_ranks(cards):
        c[r] += 1
    return c


def _truth(state: DealState, seat: int) -> tuple[int, ...]:
    """Cards neither played nor in ``seat``'s hand, read from the full state."""
    out = [0] * RANK_COUNT
    for s, hand in enumerate(state.hands):
        if s != seat:
            out = [a + b for a, b in zip(out, _rank_counts(hand), strict=True)]
    if state.landlord is None:
        out = [a + b for a, b in zip(out, _rank_counts(state.kitty), strict=True)]
    return tuple(out)


def _redeal_unseen(state: DealState, seat: int, rng: random.Random) -> DealState:
    """The same deal with every card ``seat`` cannot see dealt again at random: the other
    seats' hidden hands and, before it is revealed, the kitty."""
    hidden = [s for s in range(state.rules.seats) if s != seat and not state.shown[s]]
    pool = [c for s in hidden for c in state.hands[s]]
    kitty_hidden = state.landlord is None
    if kitty_hidden:
        pool += list(state.kitty)
    rng.shuffle(pool)
    hands = list(state.hands)
    for s in hidden:
        n = len(hands[s])
        hands[s], pool = tuple(sorted(pool[:n])), pool[n:]
    kitty = tuple(sorted(pool)) if kitty_hidden else state.kitty
    return replace(state, hands=tuple(hands), kitty=kitty)


def _play_into(seed: int, stop: int) -> DealState:
    """A three-player deal with showing allowed, played ``stop`` actions in (AI and random
    actions mixed, shows included)."""
    rng = random.Random(seed)
    state = new_deal(SHOW, seed=seed)
    for _ in range(stop):
        if state.phase not in ("bidding", "doubling", "playing"):
            break
        seat = state.to_act[0]
        shows = [a for s in range(3) for a in state.legal_actions(s) if a.kind == "show"]
        if shows and rng.random() < 0.3:
            action = rng.choice(shows)
        elif rng.random() < 0.3:
            action = rng.choice([a for a in state.legal_actions(seat) if a.kind != "show"])
        else:
            action = choose_action(state.view(seat), "easy", seed=seed)
        state = apply(state, action)
    return state


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), stop=st.integers(0, 60), who=st.integers(0, 2))
def test_counter_is_exact_and_the_same_when_unseen_cards_are_dealt_again(seed, stop, who):
    state = _play_into(seed, stop)
    rng = random.Random(seed)
    for seat in range(3):
        counter = card_counter(state.view(seat))
        assert counter.out == _truth(state, seat)
        again = _redeal_unseen(state, seat, rng)
        assert again.view(seat) == state.view(seat)
        assert card_counter(again.view(seat)) == counter
    viewer = who
    counter = card_counter(state.view(viewer))
    assert all(0 <= k <= n for k, n in zip(counter.known, counter.out, strict=True))
    assert counter.total == sum(len(h) for s, h in enumerate(state.hands) if s != viewer) + (
        len(state.kitty) if state.landlord is None else 0)


def _four_player_state(seed: int, plays: int) -> DealState:
    """A four-player two-deck deal with seat 0 the landlord (kitty taken) and ``plays`` plays
    of one to three random cards written into the history."""
    rng = random.Random(seed)
    state = new_deal(FOUR, seed=seed)
    hands = [list(h) for h in state.hands]
    hands[0] += list(state.kitty)
    history = list(state.history)
    for i in range(plays):
        seat = i % 4
        if len(hands[seat]) < 4:
            continue
        cards = rng.sample(hands[seat], rng.randint(1, 3))
        for c in cards:
            hands[seat].remove(c)
        history.append(Action("play", seat, cards=tuple(sorted(cards_to_ranks(cards)))))
    return replace(state, hands=tuple(tuple(sorted(h)) for h in hands), landlord=0,
                   history=tuple(history), phase="playing")


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), plays=st.integers(0, 60))
def test_counter_of_the_four_player_two_deck_game(seed, plays):
    state = _four_player_state(seed, plays)
    rng = random.Random(seed)
    for seat in range(4):
        counter = card_counter(state.view(seat))
        assert counter.deck == (8,) * 13 + (2, 2)
        assert counter.out == _truth(state, seat)
        assert card_counter(_redeal_unseen(state, seat, rng).view(seat)) == counter
        if seat != 0:  # the revealed kitty is in the landlord's hand, known but still out
            assert sum(counter.known) >= 8 - sum(len(a.cards or ()) for a in state.history
                                                 if a.kind == "play" and a.seat == 0)


def test_a_fresh_deal_counts_everything_but_the_own_hand():
    state = new_deal(SCORE, seed=5)
    view = state.view(1)
    counter = card_counter(view)
    own = _rank_counts(view.hand)
    assert deck_counts(SCORE) == (4,) * 13 + (1, 1)
    assert counter.out == tuple(d - o for d, o in zip(counter.deck, own, strict=True))
    assert counter.total == 37
    assert counter.known == (0,) * RANK_COUNT


def test_format_counter_reads_like_the_apps():
    out = (1, 0, 0, 0, 0, 0, 0, 3, 0, 0, 4, 2, 3, 0, 1)
    line = format_counter(CardCounter(out=out, deck=deck_counts(SCORE), known=(0,) * 15))
    assert line == "大王1 小王0 2×3 A×2 K×4 Q×0 J×0 10×3 9×0 8×0 7×0 6×0 5×0 4×0 3×1"
    english = format_counter(CardCounter(out=out, deck=deck_counts(SCORE), known=(0,) * 15),
                             {14: "Big joker ", 13: "Small joker "})
    assert english.startswith("Big joker 1 Small joker 0 2×3")
