"""Group tournaments (锦标赛, RULES.md §10.1), the pure part: presets and the stages a field
plays (:mod:`.presets`), the draw from the committed seed (:mod:`.draws`), advancement, the
final's and the tournament's places (:mod:`.advancement`). Prize tables and the pool's split are in
:mod:`engine.prizes` (shared with matches and challenges). No I/O.

A tournament, as a driver runs it::

    stages = plan(preset, len(field))
    previous, done = None, []
    for stage in stages:
        tables = draw(seed, stage.number, field, table_size=preset.table_size, scores=previous)
        starts = start_scores(stage.stage, field, previous)
        ... play each table; on ExtraDeals play the tie-breaks and ask again ...
        if stage.is_final:
            ranking = final_ranking(stage, tables, results[0], signup)
        else:
            outcome = advance(stage, tables, results, signup, previous)
            field, previous = list(outcome.through), outcome.scores
            done.append(outcome)
    payout = split_pool(pool, [places[p] for p in signup], preset.prize_table)
"""

from engine.tournament.advancement import (
    Advancement,
    ExtraDeals,
    FinalRanking,
    Seat,
    TableResult,
    TieBreak,
    advance,
    final_ranking,
    start_scores,
    tournament_places,
)
from engine.tournament.draws import MAX_STAGE, Draw, draw, lot
from engine.tournament.presets import (
    CLASSIC,
    MAX_FIELD,
    PRESETS,
    QUALIFIER,
    QUICK,
    Advance,
    Chips,
    FixedDeals,
    PlannedStage,
    Stage,
    Start,
    TournamentError,
    TournamentPreset,
    advancing,
    plan,
    tournament_preset,
)

__all__ = [
    "CLASSIC", "MAX_FIELD", "MAX_STAGE", "PRESETS", "QUALIFIER", "QUICK", "Advance",
    "Advancement", "Chips", "Draw", "ExtraDeals", "FinalRanking", "FixedDeals", "PlannedStage",
    "Seat", "Stage", "Start", "TableResult", "TieBreak", "TournamentError", "TournamentPreset",
    "advance", "advancing", "draw", "final_ranking", "lot", "plan", "start_scores",
    "tournament_places", "tournament_preset",
]
