"""A group tournament's shape (锦标赛, RULES.md §10.1): stage formats, starting scores,
advancement rules, the presets ``quick``, ``classic`` and ``qualifier``, and :func:`plan`, the
stages a field of a given size plays.

Units: a stage's **score** is points (RULES.md §7) in a fixed-deal stage and chips in a chips
stage (§10); it is the tournament's own count, never beans.

>>> [(s.number, s.field, s.tables, s.byes, s.advancing) for s in plan(QUICK, 10)]
[(1, 10, 3, 1, 6), (2, 6, 2, 0, 3), (3, 3, 1, 0, None)]
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from engine.prizes import DEFAULT_PRIZE_TABLE, PrizeTableError, check_prize_table

#: Players a tournament's field may hold (inclusive; the bot's sign-up maximum is its own).
MIN_TABLE_SIZE, MAX_TABLE_SIZE = 3, 4
MAX_FIELD = 999


class TournamentError(ValueError):
    """A tournament option, field, draw or result that cannot be used; the message says why."""


def _whole(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TournamentError(f"{name}: a whole number from {low} to {high} is expected, "
                              f"not {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class FixedDeals:
    """定局积分 (RULES.md §10): ``deals`` deals per table (1–30), players ranked by points."""

    deals: int = 9

    def __post_init__(self) -> None:
        _whole("deals", self.deals, 1, 30)


@dataclass(frozen=True, slots=True)
class Chips:
    """打立出局 (RULES.md §10): everyone starts with ``chips``; a deal moves points ×
    ``chip_base`` chips; a player below ``threshold`` chips is out and the table's match ends;
    the chip base doubles every ``rise_every`` deals (0: never). Ranked by chips left."""

    chips: int = 20
    chip_base: int = 2
    threshold: int = 1
    rise_every: int = 0

    def __post_init__(self) -> None:
        _whole("chips", self.chips, 1, 10_000)
        _whole("chip_base", self.chip_base, 1, 1_000)
        _whole("threshold", self.threshold, 1, self.chips)
        _whole("rise_every", self.rise_every, 0, 100)


StageFormat = FixedDeals | Chips
StartKind = Literal["zero", "base", "carry_over"]
AdvanceKind = Literal["per_table", "overall"]
RankBy = Literal["score", "wins"]


@dataclass(frozen=True, slots=True)
class Start:
    """A stage's starting score (RULES.md §10.1): ``"zero"``; ``"base"``, everyone ``base``
    points (seed 000: 每人基础积分30分); or ``"carry_over"`` (晋级带分, seed 003): ``share`` % of
    the previous stage's score, at most ``cap`` points either way (default 50 %, cap 100).

    >>> Start.carry(50, 100).score(37), Start.carry(50, 100).score(400), Start.carry().score(-9)
    (18, 100, -4)
    """

    kind: StartKind = "zero"
    base: int = 0
    share: int = 50
    cap: int = 100

    def __post_init__(self) -> None:
        if self.kind not in ("zero", "base", "carry_over"):
            raise TournamentError(f"start: zero, base or carry_over, not {self.kind!r}")
        _whole("base", self.base, -10_000, 10_000)
        _whole("share", self.share, 0, 100)
        _whole("cap", self.cap, 0, 10_000)

    @classmethod
    def with_base(cls, base: int) -> Start:
        """Everyone starts the stage with ``base`` points."""
        return cls("base", base=base)

    @classmethod
    def carry(cls, share: int = 50, cap: int = 100) -> Start:
        """Everyone starts with ``share`` % of their previous-stage score, capped at ``cap``."""
        return cls("carry_over", share=share, cap=cap)

    def score(self, previous: int | None) -> int:
        """The starting score of a player whose previous-stage score was ``previous``
        (``None``: no previous stage, or a bye there; a carry-over is then 0). A carry-over is
        rounded toward zero, then held within ``-cap..cap``."""
        if self.kind == "zero":
            return 0
        if self.kind == "base":
            return self.base
        if previous is None:
            return 0
        carried = min(self.cap, abs(previous) * self.share // 100)
        return carried if previous >= 0 else -carried


@dataclass(frozen=True, slots=True)
class Advance:
    """Who goes through (晋级, RULES.md §10.1): ``"per_table"``, the top ``count`` of each
    table (seed 000 每组积分最高者; seed 001 by most deals won, ``rank_by="wins"``), or
    ``"overall"``, the top ``count`` of the stage across all tables, byes included (seed 000
    分数最高的9人进入复赛). The next stage always fills whole tables (:func:`advancing`)."""

    kind: AdvanceKind = "per_table"
    count: int = 1
    rank_by: RankBy = "score"

    def __post_init__(self) -> None:
        if self.kind not in ("per_table", "overall"):
            raise TournamentError(f"advance: per_table or overall, not {self.kind!r}")
        if self.rank_by not in ("score", "wins"):
            raise TournamentError(f"rank_by: score or wins, not {self.rank_by!r}")
        _whole("count", self.count, 1, MAX_FIELD)


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage (初赛 / 复赛 / 决赛): its ``format``, ``start`` score, ``advance`` rule
    (``None`` for the final, whose ranking is the tournament's) and ``time_limit`` in minutes
    (0: none; when it runs out the deals in progress are the last, seed 001).

    Raises:
        TournamentError: a chips stage with a starting score other than zero (everyone starts
            with the format's chips).
    """

    format: StageFormat = field(default_factory=FixedDeals)
    start: Start = field(default_factory=Start)
    advance: Advance | None = None
    time_limit: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.format, FixedDeals | Chips):
            raise TournamentError("format: fixed deals or chips")
        if isinstance(self.format, Chips) and self.start.kind != "zero":
            raise TournamentError("a chips stage starts everyone with its chips; "
                                  "its start must be zero")
        _whole("time_limit", self.time_limit, 0, 24 * 60)


@dataclass(frozen=True, slots=True)
class TournamentPreset:
    """A tournament's stages (RULES.md §10.1).

    Attributes:
        name: the preset's name (``quick``, ``classic``, ``qualifier`` or an admin's own).
        rounds: the stages before the final, in order. A round is skipped when it would not
            make the field smaller (an ``overall`` count not below the field: a small field
            starts later in the list); the last round repeats until one table is left.
        final: the last stage, one table.
        table_size: 3, or 4 in a four-player tournament (RULES.md §11).
        extra_deals: deals of the first extra-deal tie-break at a table (加赛; seed 000 plays
            3), then one at a time.
        prize_table: the pool's split by place in percent (:mod:`engine.prizes`).

    Raises:
        TournamentError: no rounds, a round or final of the wrong kind, an invalid prize
            table (the reason of :class:`engine.prizes.PrizeTableError`), an ``overall`` count
            that is not whole tables, a ``per_table`` count not below the table size, or a
            last round that never gets down to one table.
    """

    name: str
    rounds: tuple[Stage, ...]
    final: Stage
    table_size: int = 3
    extra_deals: int = 1
    prize_table: tuple[int, ...] = DEFAULT_PRIZE_TABLE

    def __post_init__(self) -> None:
        size = _whole("table_size", self.table_size, MIN_TABLE_SIZE, MAX_TABLE_SIZE)
        _whole("extra_deals", self.extra_deals, 1, 9)
        try:
            check_prize_table(self.prize_table)
        except PrizeTableError as error:
            raise TournamentError(f"prize_table: {error}") from None
        if not self.rounds:
            raise TournamentError("a tournament needs at least one stage before the final")
        if self.final.advance is not None:
            raise TournamentError("the final has no advancement: its ranking is the result")
        for number, stage in enumerate(self.rounds, start=1):
            rule = stage.advance
            if rule is None:
                raise TournamentError(f"stage {number}: an advancement rule is expected")
            if rule.kind == "per_table" and rule.count >= size:
                raise TournamentError(f"stage {number}: the top {rule.count} of a table of "
                                      f"{size} would be everyone")
            if rule.kind == "overall" and rule.count % size:
                raise TournamentError(f"stage {number}: {rule.count} players do not fill "
                                      f"whole tables of {size}")
        last = self.rounds[-1].advance
        if last is not None and last.kind == "overall" and last.count != size:
            raise TournamentError(f"the last stage before the final must leave one table: "
                                  f"the top {size} overall, or a per-table rule")


#: RULES.md §10.1 ``quick`` (快速赛, seed 001): 3 deals per table, the top 1 of each table
#: through (with byes), until one table is left; final 6 deals.
QUICK = TournamentPreset(
    "quick",
    rounds=(Stage(FixedDeals(3), advance=Advance("per_table", 1)),),
    final=Stage(FixedDeals(6)),
)
#: RULES.md §10.1 ``classic`` (seed 000 初赛/复赛/决赛): 10 deals per table, the top 9
#: overall, then the top 3; final 10 deals; a tie for first plays 3 extra deals, then one at
#: a time. Every stage starts from seed 000's base of 30 points (每人基础积分30分, 复赛每人初赛积分
#: 清零, 决赛每人复赛积分清零).
CLASSIC = TournamentPreset(
    "classic",
    rounds=(Stage(FixedDeals(10), Start.with_base(30), Advance("overall", 9)),
            Stage(FixedDeals(10), Start.with_base(30), Advance("overall", 3))),
    final=Stage(FixedDeals(10), Start.with_base(30)),
    extra_deals=3,
)
#: RULES.md §10.1 ``qualifier`` (seed 003, JJ style): chips qualifiers (打立出局 with §10's
#: defaults: 20 chips, 2 chips a point, out below 1, and the JJ-style rising base: the chip base
#: doubles every 5 deals, as a ``/knockout``'s), the top 1 of each table through, until one
#: table is left; a fixed-deal final (§10's 9 deals) with carry-over 带分 (50 %, cap 100). The
#: rising base is what ends a chips table whose seats are all on auto-play: the seeds' rule
#: (lead the smallest single, pass when following) lets every landlord play out, the chips go
#: round the table and nobody would ever fall below the threshold at a fixed base.
QUALIFIER = TournamentPreset(
    "qualifier",
    rounds=(Stage(Chips(rise_every=5), advance=Advance("per_table", 1)),),
    final=Stage(FixedDeals(9), Start.carry(50, 100)),
)

PRESETS: dict[str, TournamentPreset] = {p.name: p for p in (QUICK, CLASSIC, QUALIFIER)}


def tournament_preset(name: str, *, table_size: int | None = None) -> TournamentPreset:
    """The preset called ``name``, for tables of ``table_size`` (default 3; 4 for the
    four-player game: ``classic``'s overall counts become whole tables of 4, 12 then 4).

    Raises:
        TournamentError: an unknown name or table size.
    """
    preset = PRESETS.get(name)
    if preset is None:
        raise TournamentError(f"unknown tournament preset {name!r}; "
                              f"expected one of {', '.join(PRESETS)}")
    if table_size is None or table_size == preset.table_size:
        return preset
    size = _whole("table_size", table_size, MIN_TABLE_SIZE, MAX_TABLE_SIZE)
    rounds = []
    for stage in preset.rounds:
        rule = stage.advance
        if rule is not None and rule.kind == "overall":
            rule = replace(rule, count=rule.count // preset.table_size * size)
        rounds.append(replace(stage, advance=rule))
    return replace(preset, rounds=tuple(rounds), table_size=size)


def advancing(rule: Advance, field_size: int, table_size: int) -> int:
    """How many players the next stage holds (byes included) after a stage of ``field_size``
    players under ``rule`` (RULES.md §10.1): always whole tables, at least one, fewer than the
    field.

    ``overall``: the count. ``per_table``: the top ``count`` of each table plus the byes,
    rounded up to whole tables (the best runners-up fill it); if that would keep the whole
    field (e.g. the top 2 of two tables of 3), rounded down instead (the weakest of the
    qualifiers drop, by the order of :func:`engine.tournament.advance`), and never below one
    table.

    >>> advancing(Advance("per_table", 1), 10, 3), advancing(Advance("per_table", 2), 6, 3)
    (6, 3)
    """
    if rule.kind == "overall":
        return rule.count
    tables, byes = divmod(field_size, table_size)
    qualifiers = tables * rule.count + byes
    up = -(-qualifiers // table_size) * table_size
    if up < field_size:
        return max(table_size, up)
    return max(table_size, qualifiers // table_size * table_size)


@dataclass(frozen=True, slots=True)
class PlannedStage:
    """A stage as a field of a given size plays it: its ``number`` (1-based, the draw's),
    the ``stage`` rules, the ``field`` (players, byes included), ``tables`` and ``byes``, the
    players the next stage holds (``advancing``, ``None`` for the final), the ``table_size``
    and the preset's ``extra_deals``."""

    number: int
    stage: Stage
    field: int
    table_size: int
    tables: int
    byes: int
    advancing: int | None
    extra_deals: int

    @property
    def is_final(self) -> bool:
        """The last stage: one table, its ranking is the tournament's."""
        return self.advancing is None


def plan(preset: TournamentPreset, field_size: int) -> tuple[PlannedStage, ...]:
    """The stages a field of ``field_size`` players plays under ``preset`` (RULES.md §10.1),
    assuming nobody forfeits: rounds that would not make the field smaller are skipped, the
    last round repeats until one table is left, then the final. A field of one table plays the
    final only.

    >>> [(s.field, s.advancing) for s in plan(CLASSIC, 30)]
    [(30, 9), (9, 3), (3, None)]
    >>> [(s.field, s.advancing) for s in plan(CLASSIC, 8)]
    [(8, 3), (3, None)]

    Raises:
        TournamentError: a field smaller than one table or larger than :data:`MAX_FIELD`.
    """
    size = preset.table_size
    _whole("field", field_size, size, MAX_FIELD)
    stages: list[PlannedStage] = []
    index, remaining = 0, field_size
    while remaining > size:
        stage = preset.rounds[min(index, len(preset.rounds) - 1)]
        index += 1
        assert stage.advance is not None  # checked by TournamentPreset
        through = advancing(stage.advance, remaining, size)
        if through >= remaining:
            continue
        stages.append(PlannedStage(len(stages) + 1, stage, remaining, size,
                                   remaining // size, remaining % size, through,
                                   preset.extra_deals))
        remaining = through
    stages.append(PlannedStage(len(stages) + 1, preset.final, remaining, size, 1, 0, None,
                               preset.extra_deals))
    return tuple(stages)
