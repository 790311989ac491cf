"""Properties of tournaments (RULES.md §10.1) over many fields, seeds and results: the draw
places everyone once, byes stay below a table, every next stage fills whole tables, the number
through matches the plan, and a whole tournament's prizes sum to the pool."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.prizes import split_pool
from engine.tournament import (
    PRESETS,
    Advancement,
    ExtraDeals,
    FinalRanking,
    Seat,
    TableResult,
    advance,
    draw,
    final_ranking,
    plan,
    tournament_places,
    tournament_preset,
)

seeds = st.binary(min_size=8, max_size=32).map(bytes.hex)
sizes = st.sampled_from([3, 4])
presets = st.sampled_from(sorted(PRESETS))


@settings(max_examples=150, deadline=None)
@given(seed=seeds, stage=st.integers(1, 99), size=sizes, n=st.integers(4, 200))
def test_every_player_is_drawn_once_and_byes_stay_below_a_table(seed, stage, size, n):
    players = list(range(1000, 1000 + n))
    result = draw(seed, stage, players, table_size=size)
    placed = [p for table in result.tables for p in table] + list(result.byes)
    assert sorted(placed) == players
    assert all(len(table) == size for table in result.tables)
    assert len(result.byes) == n % size <= size - 1
    assert draw(seed, stage, list(reversed(players)), table_size=size) == result


@settings(max_examples=100, deadline=None)
@given(seed=seeds, other=seeds, stage=st.integers(1, 98), n=st.integers(12, 120))
def test_the_draw_differs_across_seeds_and_stages(seed, other, stage, n):
    # 12 players or more: two draws agree by chance with probability below 1 / 12!
    players = [f"p{i}" for i in range(n)]
    first = draw(seed, stage, players)
    assert draw(seed, stage + 1, players).tables != first.tables
    if other != seed:
        assert draw(other, stage, players).tables != first.tables


@settings(max_examples=100, deadline=None)
@given(seed=seeds, n=st.integers(3, 60),
       scores=st.lists(st.one_of(st.none(), st.integers(-5, 5)), min_size=60, max_size=60))
def test_byes_go_to_the_best_previous_scores(seed, n, scores):
    players = list(range(n))
    known = {p: s for p, s in zip(players, scores, strict=False) if s is not None}
    result = draw(seed, 2, players, scores=known)
    floor = min((known.get(p, -99) for p in result.byes), default=None)
    seated = [p for table in result.tables for p in table]
    if floor is not None:
        assert all(known.get(p, -99) <= floor for p in seated)


@settings(max_examples=200, deadline=None)
@given(name=presets, size=sizes, n=st.integers(3, 400))
def test_every_stage_fills_whole_tables_and_ends_in_one_final_table(name, size, n):
    preset = tournament_preset(name, table_size=size)
    if n < size:
        return
    stages = plan(preset, n)
    assert stages[0].field == n
    assert [s.number for s in stages] == list(range(1, len(stages) + 1))
    for stage, following in zip(stages, stages[1:], strict=False):
        assert stage.advancing is not None
        assert stage.advancing % size == 0 and size <= stage.advancing < stage.field
        assert following.field == stage.advancing
        assert stage.tables * size + stage.byes == stage.field and stage.byes < size
        rule = stage.stage.advance
        assert rule is not None
        if rule.kind == "overall":
            assert stage.advancing == rule.count
    final = stages[-1]
    assert final.is_final and final.field == size and final.tables == 1 and final.byes == 0
    assert final.stage == preset.final


def play_stage(rng: random.Random, players: tuple, tied: bool) -> list[Seat]:
    """Random results at one table; ``tied``: scores from a tiny range, so ties are common."""
    spread = 2 if tied else 50
    return [Seat(p, rng.randint(-spread, spread), rng.randint(0, 3),
                 forfeited=rng.random() < 0.03) for p in players]


def settle(rng: random.Random, ask, seats_by_table: list[list[Seat]]):
    """Ask, playing random extra deals where told to, until an answer comes."""
    played = [0] * len(seats_by_table)
    for _ in range(50):
        results = [TableResult(tuple(s), played[i]) for i, s in enumerate(seats_by_table)]
        answer = ask(results)
        if not isinstance(answer, ExtraDeals):
            return answer
        for tie in answer.tie_breaks:
            assert tie.deals in (1, 3) and len(tie.players) >= 2
            played[tie.table] += tie.deals
            seats_by_table[tie.table] = [
                Seat(s.player, s.score, s.wins, s.extra + rng.randint(-4, 4), s.forfeited)
                for s in seats_by_table[tie.table]]
    raise AssertionError("ties never broken")


@settings(max_examples=120, deadline=None)
@given(name=presets, size=sizes, n=st.integers(3, 60), seed=seeds, tied=st.booleans(),
       pool=st.integers(0, 100_000), rng_seed=st.integers(0, 2**32))
def test_a_whole_tournament_advances_the_planned_number_and_pays_the_pool(
        name, size, n, seed, tied, pool, rng_seed):
    if n < size:
        return
    rng = random.Random(rng_seed)
    preset = tournament_preset(name, table_size=size)
    signup = [f"u{i}" for i in range(n)]
    field: list[str] = list(signup)
    previous: dict[str, int] | None = None
    done: list[Advancement] = []
    final: FinalRanking | None = None
    for stage in plan(preset, n):
        if len(field) < size:
            break  # forfeits left too few for a table: the caller ends the tournament
        tables = draw(seed, stage.number, field, table_size=size, scores=previous)
        seats_by_table = [play_stage(rng, t, tied) for t in tables.tables]
        if stage.is_final:
            answer = settle(rng, lambda r, s=stage, t=tables: final_ranking(s, t, r[0], signup),
                            seats_by_table)
            assert isinstance(answer, FinalRanking)
            final = answer
            ranked = [p for group in answer.places for p in group]
            assert sorted(ranked + list(answer.forfeited)) == sorted(field)
            assert not answer.places or len(answer.places[0]) == 1
            break
        answer = settle(rng, lambda r, s=stage, t=tables, p=previous: advance(s, t, r, signup, p),
                        seats_by_table)
        assert isinstance(answer, Advancement)
        forfeits = len(answer.forfeited)
        assert len(answer.through) == min(stage.advancing, len(field) - forfeits)
        if not forfeits:
            assert len(answer.through) == stage.advancing
        assert set(tables.byes) <= set(answer.through)
        out = [p for group in answer.out for p in group]
        assert sorted([*answer.through, *out, *answer.forfeited]) == sorted(field)
        done.append(answer)
        field, previous = list(answer.through), dict(answer.scores)
    if final is None:
        return
    places = tournament_places(final, done)
    assert set(places) == set(signup)
    paid = split_pool(pool, [places[p] for p in signup], preset.prize_table)
    assert all(amount >= 0 for amount in paid)
    if any(places[p] is not None for p in signup):
        assert sum(paid) == pool
    winner = final.places[0][0] if final.places else None
    if winner is not None:
        assert paid[signup.index(winner)] == max(paid)
