"""The mid-game Monte Carlo of ``hard`` (engine.ai.montecarlo; RULES.md §4, §6)."""

from __future__ import annotations

import random

from engine.action import Action
from engine.ai import levels, montecarlo
from engine.ai.decompose import _best, plan_work
from engine.ai.endgame import Budget, _beats, _limited_follows
from engine.ai.hand import counts_of
from engine.ai.knowledge import Knowledge, knowledge_from_view
from engine.ai.play import HARD, choose_play
from engine.cards import parse_ranks
from engine.combos import ComboType
from engine.deal import apply, new_deal
from engine.presets import SCORE
from engine.trick import read_play


def _knowledge(seat: int, hand: str, counts: tuple[int, int, int], unseen: str,
               trick: tuple[int, str] | None = None) -> Knowledge:
    """Seat ``seat``'s knowledge (landlord seat 0) holding ``hand`` with ``unseen`` held by the
    other two seats (their counts must add up), following ``trick`` (seat, cards) if given."""
    own, rest = counts_of(parse_ranks(hand)), counts_of(parse_ranks(unseen))
    assert sum(counts) - counts[seat] == sum(rest) and counts[seat] == sum(own)
    prev = read_play(parse_ranks(trick[1]), None, None, SCORE) if trick else None
    return Knowledge(seat=seat, landlord=0, hand=tuple(own), counts=counts, prev=prev,
                     prev_seat=trick[0] if trick else None, unseen=tuple(rest),
                     known=(None, None, None), landlord_kitty=(0,) * 15,
                     played_by=((0,) * 15,) * 3)


def _counted(nodes: int) -> tuple[Budget, list[int]]:
    """A budget that also records what is left of it after each spend."""
    left: list[int] = []

    class Counting(Budget):
        def spend(self) -> None:
            try:
                super().spend()
            finally:
                left.append(self.nodes)

    return Counting(nodes), left


def _one_card_landlord() -> Knowledge:
    # The landlord (seat 0) has one card left and leads an A; farmer seat 1 holds the last 2
    # (the others and both jokers are gone); the unseen cards hold no 2, joker or bomb.
    return _knowledge(1, "25566778899", (1, 11, 17), "333444TTTJJJQQQKKK", trick=(0, "A"))


def _opening_follow() -> Knowledge:
    # The landlord led a 7 from its 20 cards; farmer seat 1 holds 17.
    return _knowledge(1, "3445667899JQKA22X", (19, 17, 17),
                      "33344555667788899TTTTJJJQQQKKKAAA22D", trick=(0, "7"))


def test_rollout_plays_a_known_deal_to_its_end():
    # The landlord leads the rocket, then its pair: nobody can answer either.
    hands = [counts_of(parse_ranks(h)) for h in ("33XD", "456789TJ", "56789TJQ")]
    budget = Budget(1000)
    assert montecarlo.rollout([tuple(h) for h in hands], 0, 0, None, None, budget) is True
    # Three hands planned fully (1, 11 and 11 splits scored), four moves: 33, pass, pass,
    # rocket.
    assert [plan_work(h) for h in hands] == [1, 11, 11]
    plans = 3 * montecarlo.PLAN_COST + montecarlo.SPLIT_COST * 23
    assert budget.nodes == 1000 - plans - 4


def test_revise_replaces_a_losing_pass_with_the_winning_2():
    # Passing lets the one-card landlord keep the lead and play out; the 2 takes the trick
    # and the farmer then leads pairs the landlord cannot answer.
    k = _one_card_landlord()
    got = montecarlo.revise(k, None, random.Random(5))
    assert got is not None and got.type is ComboType.SINGLE and got.cards == (12,)


def test_playout_wins_count_the_pass_as_lost_and_the_2_as_won():
    k = _one_card_landlord()
    two = next(p for _, p in montecarlo.rank_plays(k) if p is not None and p.cards == (12,))
    wins, done = montecarlo.playout_wins(k, [None, two], random.Random(1), Budget(10_000),
                                         samples=16)
    assert done == 16
    assert wins[1] == 16 and wins[0] < 8


def test_same_generator_state_gives_the_same_decision_and_counts():
    k = _opening_follow()
    cands = montecarlo.candidates(k, None)
    assert len(cands) >= 2
    a = montecarlo.playout_wins(k, cands, random.Random(42), Budget(4000))
    b = montecarlo.playout_wins(k, cands, random.Random(42), Budget(4000))
    assert a == b
    assert montecarlo.revise(k, None, random.Random(7)) == montecarlo.revise(
        k, None, random.Random(7))


def test_the_budget_caps_the_rollout_moves_and_drops_the_cut_deal():
    k = _opening_follow()
    cands = montecarlo.candidates(k, None)
    budget, left = _counted(50 * montecarlo.DRAW_COST + 300)
    wins, done = montecarlo.playout_wins(k, cands, random.Random(3), budget, samples=50)
    # The spend that overdraws the budget raises, and nothing is played after it.
    assert left[-1] < 0 and all(n >= 0 for n in left[:-1])
    assert 0 < done < 50
    assert all(w <= done for w in wins)


def test_no_search_near_the_end_where_the_endgame_search_decides():
    k = _knowledge(1, "3456", (5, 4, 5), "899TTJQKA2", trick=(0, "7"))
    assert montecarlo.candidates(k, None) == [None]


def test_a_farmer_plays_out_a_follow_its_heuristic_scores_well_below_the_pass():
    # The landlord (14 cards) led 345678; the farmer's 8-K straight scores 10.2 below its
    # pass, outside the landlord's window (8) but inside a farmer's (12). Played out, the
    # straight wins 283 of 400 deals, the pass 125 (seed 9).
    k = _knowledge(1, "4556899TJQQQKKAA2", (14, 17, 17), "333445667778899TTTJJJQKKAA222XD",
                   trick=(0, "345678"))
    straight = parse_ranks("89TJQK")
    assert choose_play(k) is None
    assert [p and p.cards for p in montecarlo.candidates(k, None)] == [None, straight]
    got = montecarlo.revise(k, None, random.Random(1))
    assert got is not None and got.cards == straight


def test_a_farmer_compares_four_kinds_of_lead():
    # No 2 nor joker is out: the farmer's 2s and As win every trick; its heuristic leads the
    # T. A farmer compares four candidates (the landlord three): the fourth, a single 2,
    # keeps the lead and wins all 200 play-outs (seed 9), the T 173.
    k = _knowledge(2, "TAA22", (9, 14, 5), "33344788999TJJJQQKKKKAA")
    ten = choose_play(k)
    assert ten is not None and ten.cards == parse_ranks("T")
    cands = montecarlo.candidates(k, ten)
    assert [p and p.cards for p in cands] == [parse_ranks(c) for c in ("T", "AA", "22", "2")]
    got = montecarlo.revise(k, ten, random.Random(0))
    assert got is not None and got.cards == parse_ranks("2")


def test_quick_plan_splits_the_hand_into_legal_plays():
    rng = random.Random(11)
    deck = [r for r in range(15) for _ in range(4 if r < 13 else 1)]
    types = list(ComboType)
    for _ in range(300):
        rng.shuffle(deck)
        hand = tuple(counts_of(deck[:17]))
        plan = montecarlo._quick_plan(hand)
        used = [0] * 15
        for kind, main, n, cards in plan:
            play = read_play(cards, types[kind], None, SCORE)
            assert (play.type, play.main, play.n) == (types[kind], main, n)
            for r in cards:
                used[r] += 1
        assert tuple(used) == hand


def test_quick_plan_keeps_the_rocket_and_bombs_and_kicks_the_lowest_single():
    plan = montecarlo._quick_plan(tuple(counts_of(parse_ranks("3777799JJJKXD"))))
    shown = sorted((list(ComboType)[m[0]].value, m[3]) for m in plan)
    assert shown == sorted([("rocket", (13, 14)), ("bomb", (4, 4, 4, 4)),
                            ("trio_single", (0, 8, 8, 8)), ("pair", (6, 6)), ("single", (10,))])


def test_hints_lead_with_the_seats_own_choice_all_deal_long():
    state = new_deal(SCORE, seed=4, first_bidder=0)
    for a in (Action("bid", 0, value=1), Action("pass", 1), Action("pass", 2)):
        state = apply(state, a)
    revised = 0
    while state.phase == "playing":
        view = state.view(state.to_act[0])
        action = levels.choose_action(view, "hard", seed=9)
        advice = levels.hint_advice(view, seed=9)
        if action.kind == "pass":
            assert advice.pass_first
        else:
            assert not advice.pass_first and advice.plays[0].cards == action.cards
        k = knowledge_from_view(view)
        revised += montecarlo.revise(k, choose_play(k, HARD, random.Random(1)),
                                     random.Random(1)) != choose_play(k, HARD, random.Random(1))
        state = apply(state, action)
    assert revised  # the play-outs changed at least one decision of this deal


def test_the_cheapest_beat_is_a_legal_answer_whenever_one_exists():
    rng = random.Random(5)
    deck = [r for r in range(15) for _ in range(4 if r < 13 else 1)]
    for _ in range(400):
        rng.shuffle(deck)
        hand, other = tuple(counts_of(deck[:17])), tuple(counts_of(deck[17:34]))
        for prev in montecarlo._quick_plan(other):
            got = montecarlo._cheapest_beat(hand, prev)
            follows = _limited_follows(hand, prev[0], prev[1], prev[2], len(prev[3]))
            if got is None:
                assert not follows
                continue
            assert _beats(got, prev) and all(got[3].count(r) <= hand[r] for r in got[3])
            play = read_play(got[3], list(ComboType)[got[0]], None, SCORE)
            assert (play.main, play.n) == (got[1], got[2])
            plain = [m for m, _ in follows if m[0] < montecarlo._BOMB]
            if prev[0] in (*montecarlo._WIDTHS, montecarlo._TRIO_SINGLE, montecarlo._TRIO_PAIR):
                # A single, pair or trio (kicker or not) breaks no bomb.
                plain = [m for m in plain if hand[m[1]] < 4]
            if plain:  # no bomb while a plain answer exists, and none lower
                assert got[0] < montecarlo._BOMB and got[1] == min(m[1] for m in plain)


def test_a_plan_is_charged_its_real_work_once_per_decision():
    hands = [tuple(counts_of(parse_ranks(h))) for h in ("33XD", "456789TJ", "56789TJQ")]
    first = 3 * montecarlo.PLAN_COST + montecarlo.SPLIT_COST * 23 + 4
    work = montecarlo.Work(10_000)
    montecarlo.rollout(list(hands), 0, 0, None, None, work)
    assert work.nodes == 10_000 - first
    # The same hands again in the same decision: looked up, not planned.
    montecarlo.rollout(list(hands), 0, 0, None, None, work)
    assert work.nodes == 10_000 - first - (3 * montecarlo.PLAN_COST + 4)
    # Another decision pays the plans again, though the cache now holds them.
    again = montecarlo.Work(10_000)
    montecarlo.rollout(list(hands), 0, 0, None, None, again)
    assert again.nodes == 10_000 - first


def test_the_count_does_not_depend_on_what_the_caches_hold():
    k = _opening_follow()
    cands = montecarlo.candidates(k, None)

    def run() -> tuple:
        work = montecarlo.Work(montecarlo.ROLLOUT_NODES)
        wins, done = montecarlo.playout_wins(k, cands, random.Random(8), work)
        return wins, done, work.nodes

    warm = run()
    for cache in (_best, montecarlo._plan, montecarlo._quick_plan, _limited_follows):
        cache.cache_clear()
    cold = run()
    assert cold == warm
    # Drawing the deals and planning them is charged beyond the rollout moves.
    assert warm[2] < montecarlo.ROLLOUT_NODES - montecarlo.SAMPLES * montecarlo.DRAW_COST


def test_plan_work_counts_the_splits_scored():
    # 345678: six singles, 34567 + 8, 3 + 45678, or the whole straight.
    assert plan_work(counts_of(parse_ranks("345678"))) == 4
    assert plan_work(counts_of(parse_ranks("33"))) == 1
    assert plan_work((0,) * 15) == 0


def test_an_eager_rollout_seat_breaks_its_plan_to_beat_but_keeps_its_bombs():
    # 45678 is planned as a straight: no planned combination beats a single 3.
    hand = tuple(counts_of(parse_ranks("45678")))
    three = montecarlo._move(read_play(parse_ranks("3"), None, None, SCORE))
    plan = list(montecarlo._quick_plan(hand))
    assert montecarlo._follow(hand, plan, three, alarm=False) is None
    assert montecarlo._follow(hand, plan, three, alarm=False, eager=True)[3] == (1,)  # a 4
    bomb = tuple(counts_of(parse_ranks("35555")))
    assert montecarlo._follow(bomb, list(montecarlo._quick_plan(bomb)), three, alarm=False,
                              eager=True) is None


def test_only_the_deciding_seats_enemies_follow_eagerly_in_its_rollouts(monkeypatch):
    # Farmer seat 1 leads its 4. A landlord that keeps 399JJ whole passes and wins with its
    # plan; one that breaks its 99 to beat the 4, as players do, loses the deal.
    hands = [tuple(counts_of(parse_ranks(h))) for h in ("399JJ", "488TTQ", "47JQA")]

    def landlord_wins(eager: str, me: int | None) -> bool:
        monkeypatch.setattr(montecarlo, "EAGER", eager)
        return montecarlo.rollout(list(hands), 0, 1, None, None, Budget(10_000), me)

    assert landlord_wins("none", 1) is True
    assert landlord_wins("enemies", 1) is False
    # Seen from the landlord's side, the landlord is no enemy: it keeps its plan.
    assert landlord_wins("enemies", 0) is True
