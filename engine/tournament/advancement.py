"""Who goes through a tournament stage, the final's places and the tournament's places
(晋级, RULES.md §10.1). Pure: the caller reports each table's results and acts on the answer.

**Ranking.** A stage ranks by score (points, or chips left; see :mod:`.presets`), or by deals
won when its rule says ``rank_by="wins"`` (seed 001). A player who forfeited (逃跑) is ranked
last of the stage and never goes through.

**Ties** (RULES.md §10.1) at an advancement line: between players of one table, extra deals at
that table (加赛), one at a time until broken (the preset's ``extra_deals`` the first time:
seed 000 plays 3); between players of different tables, the better previous-stage score (none,
e.g. at the first stage or after a bye, counts below any score), then more deals won in the
stage, then the earlier sign-up. When a tie at the line mixes tables, the cross-table order
decides how many of each table's tied players go through, and extra deals at the table decide
which of them. Extra deals are never guessed: :func:`advance` answers :class:`ExtraDeals`
naming the table(s), the caller plays them and adds their results to :attr:`Seat.extra`, then
asks again.

**Filling whole tables**: per-table winners plus byes are topped up to the next stage's size
(:func:`engine.tournament.advancing`) by the best runners-up across tables, or, where the rule
would keep everyone, cut down to it by the same order (the weakest winners drop).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from engine.tournament.draws import Draw
from engine.tournament.presets import PlannedStage, RankBy, Stage, TournamentError

P = TypeVar("P", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Seat(Generic[P]):
    """One player's result at a table in a stage.

    Attributes:
        player: the player.
        score: the stage score at the end: points (starting score included) or chips left.
        wins: deals won in the stage (on the winning side, as landlord or farmer).
        extra: the sum of the extra deals (加赛) played at this table to break a tie, in the
            unit the stage ranks by (points, chips, or deals won); it only breaks ties.
        forfeited: left the tournament (逃跑): ranked last, never through, no prize.
    """

    player: P
    score: int
    wins: int = 0
    extra: int = 0
    forfeited: bool = False


@dataclass(frozen=True, slots=True)
class TableResult(Generic[P]):
    """A table's results: one :class:`Seat` per player of the drawn table (any order) and the
    number of ``extra_deals`` already played there."""

    seats: tuple[Seat[P], ...]
    extra_deals: int = 0


@dataclass(frozen=True, slots=True)
class TieBreak(Generic[P]):
    """Extra deals (加赛) to play at ``table`` (0-based index in the draw) between ``players``
    (the whole table plays; only their order matters): ``deals`` deals now."""

    table: int
    players: tuple[P, ...]
    deals: int


@dataclass(frozen=True, slots=True)
class ExtraDeals(Generic[P]):
    """Nothing is decided yet: play these tie-breaks (several tables may play at once), add
    their results to :attr:`Seat.extra` and :attr:`TableResult.extra_deals`, and ask again."""

    tie_breaks: tuple[TieBreak[P], ...]


@dataclass(frozen=True, slots=True)
class Advancement(Generic[P]):
    """A decided stage.

    Attributes:
        through: the next stage's field, byes first, then best first.
        out: the players eliminated, as groups sharing a place, best first (equal score, or
            equal deals won when the stage ranks by wins); forfeits are not among them.
        forfeited: the players who left during the stage.
        scores: every table player's stage score (for the next draw's byes and carry-over).
    """

    through: tuple[P, ...]
    out: tuple[tuple[P, ...], ...]
    forfeited: tuple[P, ...]
    scores: Mapping[P, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FinalRanking(Generic[P]):
    """The final's result: ``places`` as groups sharing a place, best first (the first group
    is the winner alone), and the players who ``forfeited`` (no place, no prize)."""

    places: tuple[tuple[P, ...], ...]
    forfeited: tuple[P, ...]


@dataclass(frozen=True, slots=True)
class _Entry(Generic[P]):
    player: P
    table: int
    primary: int
    extra: int
    cross: tuple[bool, int, int, int]


def _entries(planned: PlannedStage, draw: Draw[P], results: Sequence[TableResult[P]],
             signup: Sequence[P], previous: Mapping[P, int] | None,
             rank_by: RankBy) -> tuple[list[_Entry[P]], list[Seat[P]]]:
    """The non-forfeited table players as entries and the forfeited seats; checks that the
    results match the draw."""
    if draw.stage != planned.number:
        raise TournamentError(f"the draw is of stage {draw.stage}, not {planned.number}")
    if len(results) != len(draw.tables):
        raise TournamentError(f"{len(draw.tables)} table results are expected, "
                              f"not {len(results)}")
    order = {p: i for i, p in enumerate(signup)}
    known = previous or {}
    entries: list[_Entry[P]] = []
    forfeited: list[Seat[P]] = []
    for index, (table, result) in enumerate(zip(draw.tables, results, strict=True)):
        players = [seat.player for seat in result.seats]
        if sorted(map(str, players)) != sorted(map(str, table)) or len(set(players)) != len(table):
            raise TournamentError(f"table {index + 1}: the results are not of its players")
        for seat in result.seats:
            if seat.player not in order:
                raise TournamentError(f"{seat.player!r} is not in the sign-up order")
            if seat.forfeited:
                forfeited.append(seat)
                continue
            prev = known.get(seat.player)
            cross = (prev is not None, prev or 0, seat.wins, -order[seat.player])
            primary = seat.wins if rank_by == "wins" else seat.score
            entries.append(_Entry(seat.player, index, primary, seat.extra, cross))
    for player in draw.byes:
        if player not in order:
            raise TournamentError(f"{player!r} is not in the sign-up order")
    return entries, forfeited


def _select(entries: Sequence[_Entry[P]], places: int, results: Sequence[TableResult[P]],
            first_deals: int) -> tuple[list[_Entry[P]], list[TieBreak[P]]]:
    """``entries`` ordered best first so that the first ``places`` go through, and the
    tie-breaks needed before that order holds (see the module docstring)."""
    order = sorted(entries, key=lambda e: (e.primary, e.cross), reverse=True)
    if places >= len(order) or places <= 0 or order[places - 1].primary != order[places].primary:
        return order, []
    line = order[places - 1].primary
    start = next(i for i, e in enumerate(order) if e.primary == line)
    stop = max(i for i, e in enumerate(order) if e.primary == line) + 1
    group, room = order[start:stop], places - start
    tie_breaks: list[TieBreak[P]] = []
    for table in sorted({e.table for e in group}):
        positions = [i for i, e in enumerate(group) if e.table == table]
        members = sorted((group[i] for i in positions), key=lambda e: e.extra, reverse=True)
        inside = sum(1 for i in positions if i < room)
        if 0 < inside < len(members) and members[inside - 1].extra == members[inside].extra:
            tied = tuple(e.player for e in members if e.extra == members[inside].extra)
            played = results[table].extra_deals
            tie_breaks.append(TieBreak(table, tied, first_deals if played == 0 else 1))
        for i, member in zip(positions, members, strict=True):
            group[i] = member
    return order[:start] + group + order[stop:], tie_breaks


def _groups(entries: Sequence[_Entry[P]]) -> tuple[tuple[P, ...], ...]:
    """Ordered entries as groups of equal ``primary`` (shared places)."""
    groups: list[list[P]] = []
    last: int | None = None
    for entry in entries:
        if groups and entry.primary == last:
            groups[-1].append(entry.player)
        else:
            groups.append([entry.player])
        last = entry.primary
    return tuple(tuple(g) for g in groups)


def advance(planned: PlannedStage, draw: Draw[P], results: Sequence[TableResult[P]],
            signup: Sequence[P], previous: Mapping[P, int] | None = None,
            ) -> Advancement[P] | ExtraDeals[P]:
    """Decide who goes through a stage that is not the final (RULES.md §10.1).

    Args:
        planned: the stage (:func:`engine.tournament.plan`).
        draw: its draw; ``results`` holds one :class:`TableResult` per drawn table, in order.
        signup: every player in sign-up order (the last tie-break).
        previous: previous-stage scores (``Advancement.scores`` of the stage before); none at
            the first stage.

    Returns:
        :class:`Advancement`, or :class:`ExtraDeals` when a tie at a table must be played off
        first. ``through`` holds ``planned.advancing`` players (fewer only when forfeits leave
        too few).

    >>> from engine.tournament.presets import QUICK, plan
    >>> stage = plan(QUICK, 4)[0]
    >>> d = Draw(1, (("a", "b", "c"),), ("d",))
    >>> r = [TableResult((Seat("a", 4), Seat("b", -2), Seat("c", -2)))]
    >>> advance(stage, d, r, "abcd")
    ExtraDeals(tie_breaks=(TieBreak(table=0, players=('b', 'c'), deals=1),))
    >>> r = [TableResult((Seat("a", 4), Seat("b", -2, extra=2), Seat("c", -2, extra=-1)), 1)]
    >>> advance(stage, d, r, "abcd").through
    ('d', 'a', 'b')

    Raises:
        TournamentError: the final (use :func:`final_ranking`), or results that do not match
            the draw or the sign-up order.
    """
    rule = planned.stage.advance
    if rule is None or planned.advancing is None:
        raise TournamentError("the final has no advancement; use final_ranking")
    entries, forfeits = _entries(planned, draw, results, signup, previous, rule.rank_by)
    byes = list(draw.byes)
    target = min(planned.advancing, len(byes) + len(entries))
    tie_breaks: list[TieBreak[P]] = []
    if rule.kind == "overall":
        ranked, tie_breaks = _select(entries, target - len(byes), results, planned.extra_deals)
        chosen, rest = ranked[:target - len(byes)], ranked[target - len(byes):]
    else:
        winners: list[_Entry[P]] = []
        runners: list[_Entry[P]] = []
        for index in range(len(draw.tables)):
            ranked, found = _select([e for e in entries if e.table == index], rule.count,
                                    results, planned.extra_deals)
            tie_breaks += found
            winners += ranked[:rule.count]
            runners += ranked[rule.count:]
        if not tie_breaks:
            need = target - len(byes) - len(winners)
            if need >= 0:
                ranked, tie_breaks = _select(runners, need, results, planned.extra_deals)
                chosen, rest = winners + ranked[:need], ranked[need:]
                chosen = sorted(chosen, key=lambda e: (e.primary, e.cross), reverse=True)
            else:
                keep = target - len(byes)
                ranked, tie_breaks = _select(winners, keep, results, planned.extra_deals)
                chosen = ranked[:keep]
                rest = sorted(ranked[keep:] + runners, key=lambda e: (e.primary, e.cross),
                              reverse=True)
    if tie_breaks:
        return ExtraDeals(tuple(tie_breaks))
    scores = {seat.player: seat.score for result in results for seat in result.seats}
    return Advancement(tuple(byes) + tuple(e.player for e in chosen), _groups(rest),
                       tuple(s.player for s in forfeits), scores)


def final_ranking(planned: PlannedStage, draw: Draw[P], result: TableResult[P],
                  signup: Sequence[P]) -> FinalRanking[P] | ExtraDeals[P]:
    """The final's places (RULES.md §10, §10.1): by score; a tie for first is played off by
    extra deals at the table (the preset's ``extra_deals`` first, then one at a time); ties
    below first share the place (by score alone); forfeits get no place.

    >>> from engine.tournament.presets import QUICK, plan
    >>> final = plan(QUICK, 3)[0]
    >>> d = Draw(1, (("a", "b", "c"),), ())
    >>> final_ranking(final, d, TableResult((Seat("a", 6), Seat("b", -3), Seat("c", -3))), "abc")
    FinalRanking(places=(('a',), ('b', 'c')), forfeited=())

    Raises:
        TournamentError: not the final, or a result that does not match the draw.
    """
    if not planned.is_final:
        raise TournamentError(f"stage {planned.number} is not the final; use advance")
    if len(draw.tables) != 1 or draw.byes:
        raise TournamentError("the final is one table without byes")
    entries, forfeits = _entries(planned, draw, [result], signup, None, "score")
    if not entries:
        return FinalRanking((), tuple(s.player for s in forfeits))
    ranked, tie_breaks = _select(entries, 1, [result], planned.extra_deals)
    if tie_breaks:
        return ExtraDeals(tuple(tie_breaks))
    places = ((ranked[0].player,), *_groups(ranked[1:]))
    return FinalRanking(places, tuple(s.player for s in forfeits))


def tournament_places(final: FinalRanking[P], stages: Sequence[Advancement[P]]
                      ) -> dict[P, int | None]:
    """Every player's place in the tournament, for the prize table (RULES.md §10.1): the final's
    places, then the players out in the last stage before it, then those out in the stage
    before that, …; players out in the same stage with the same score (or deals won) share a
    place. A place is 1 + the number of players ranked above (1, 2, 2, 4). Forfeits: ``None``.

    Args:
        final: :func:`final_ranking`'s answer.
        stages: :func:`advance`'s answers for the stages before the final, in stage order.
    """
    places: dict[P, int | None] = {}
    above = 0
    groups = list(final.places)
    for stage in reversed(stages):
        groups.extend(stage.out)
    for group in groups:
        for player in group:
            places[player] = above + 1
        above += len(group)
    for player in [*final.forfeited, *(p for s in stages for p in s.forfeited)]:
        places[player] = None
    return places


def start_scores(stage: Stage, players: Sequence[P],
                 previous: Mapping[P, int] | None = None) -> dict[P, int]:
    """Each player's starting score in ``stage`` (RULES.md §10.1): zero, the base, or the
    capped carry-over of ``previous`` (the stage before's ``Advancement.scores``; a player
    without one, e.g. after a bye, carries 0). A chips stage starts at 0 here: its chips come
    from its format.

    >>> from engine.tournament.presets import QUALIFIER
    >>> start_scores(QUALIFIER.final, ["a", "b", "c"], {"a": 300, "b": 41})
    {'a': 100, 'b': 20, 'c': 0}
    """
    known = previous or {}
    return {p: stage.start.score(known.get(p)) for p in players}
