"""One tournament table's standings in a stage (RULES.md §10.1): pure values, no I/O.

A table plays its stage's format: fixed deals (定局积分, ``deals`` deals, the score is the
starting score plus the points of §7) or chips (打立出局, the score is the chips left; the
table's match ends when a player is out), reusing the match rules of
:mod:`engine.match`.
When the stage's advancement asks for extra deals at the table (加赛, a tie at the line,
:class:`engine.tournament.ExtraDeals`) they are played after the table's deals and count only
to break the tie (:attr:`engine.tournament.Seat.extra`: points, or deals won when the stage
ranks by wins). A player who leaves (逃跑) forfeits: ranked last, never through, the seat played
by the AI to the stage's end.

A stage's time limit (RULES.md §10.1 "Time", seed 001 时间一到，每桌把手中的牌打完) ends a table
after the deal it is playing when the time runs out (:meth:`TableStandings.with_time_up`): its
standings count the deals it played. Extra deals asked for afterwards are still played.

In a four-player stage (RULES.md §11) a player who lost three deals as landlord at the table,
extra deals included, may only pass in its later biddings (:meth:`TableStandings.barred`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.knockout import PER_POINT
from engine.match import FIXED, KNOCKOUT, LANDLORD_LOSSES_BAR, MatchOptions, MatchState
from engine.tournament import Chips, PlannedStage, Seat, TableResult

#: Version of the dict shape written by :meth:`TableStandings.to_dict`.
DICT_VERSION = 1
#: Extra deals at a table after which a tie still unbroken goes to the earlier sign-up
#: (RULES.md §10.1: the sign-up order breaks the last ties, seed 003 先报名者晋级): auto-played
#: seats can score alike deal after deal (two farmers always tie), so play-offs end.
MAX_EXTRA_DEALS = 5


@dataclass(frozen=True, slots=True)
class TableStandings:
    """A table's standings: its players (user ids in seat order), the stage's format
    (``deals`` to play in a fixed-deal stage, 0 in a chips stage), each seat's starting score,
    the deals played (:class:`MatchState`), deals won in them (``wins``: the stage's deals, never
    an extra deal, RULES.md §10.1: the cross-table tie-break counts the stage's deals won, and
    a stage ranked by wins is ranked by them), the extra deals' sums (``extra``), the
    extra deals still to play now (``extra_due``) and played so far (``extra_played``), and who
    left during the extra deals (``left``)."""

    players: tuple[int, ...]
    deals: int
    start: tuple[int, ...]
    match: MatchState
    rank_by_wins: bool = False
    wins: tuple[int, ...] = ()
    extra: tuple[int, ...] = ()
    extra_due: int = 0
    extra_played: int = 0
    left: tuple[bool, ...] = ()
    #: The stage's time ran out (RULES.md §10.1): no deal after the one being played.
    time_up: bool = False
    #: Per seat, extra deals lost as landlord (the stage's deals' are in ``match``).
    extra_losses: tuple[int, ...] = ()

    @classmethod
    def new(cls, planned: PlannedStage, players: Sequence[int], start: Sequence[int],
            now: float) -> TableStandings:
        """A table of ``players`` starting stage ``planned`` with scores ``start``."""
        fmt = planned.stage.format
        n = len(players)
        if isinstance(fmt, Chips):
            # chips = points × chip base (RULES.md §10, "2 chips per point"): per point
            options = MatchOptions(KNOCKOUT, chips=fmt.chips, chip_base=fmt.chip_base,
                                   threshold=fmt.threshold, rise_every=fmt.rise_every,
                                   base_per=PER_POINT)
            deals = 0
        else:
            deals = fmt.deals
            options = MatchOptions(FIXED, deals=min(18, max(3, deals)))
        rule = planned.stage.advance
        return cls(tuple(players), deals, tuple(start),
                   MatchState(options, (True,) * n, now), rule is not None
                   and rule.rank_by == "wins", (0,) * n, (0,) * n, 0, 0, (False,) * n)

    @property
    def chips(self) -> bool:
        """A chips stage (打立出局)."""
        return self.match.knockout

    @property
    def played(self) -> int:
        """Deals played at the table, extra deals included."""
        return self.match.played + self.extra_played

    @property
    def forfeited(self) -> tuple[bool, ...]:
        """Per seat, left the tournament at this table."""
        return tuple(a or b for a, b in zip(self.match.forfeited, self.left, strict=True))

    def _main_over(self) -> bool:
        if all(self.forfeited) or self.time_up:
            return True
        if self.chips:
            return any(self.match.out())
        return self.match.played >= self.deals

    @property
    def done(self) -> bool:
        """No deal is left to play at the table now (its deals, or its chips match, and any
        extra deals asked for)."""
        return self._main_over() and (self.extra_due == 0 or all(self.forfeited))

    @property
    def in_extra(self) -> bool:
        """The next deal is an extra deal (加赛)."""
        return self._main_over() and self.extra_due > 0

    def scores(self) -> list[int]:
        """Per seat, the stage score: starting score plus points, or chips left."""
        scores = self.match.scores()
        if self.chips:
            return scores
        return [s + p for s, p in zip(self.start, scores, strict=True)]

    def record(self, deal_id: int, points: Sequence[int], left: Sequence[int] = (), *,
               bid: int = 1, landlord: int | None = None) -> TableStandings:
        """The standings after a finished deal (points per seat, RULES.md §7; seats in
        ``left`` left during it and forfeit)."""
        won = [1 if p > 0 else 0 for p in points]
        if self.in_extra:  # counted in ``extra`` only: the stage's wins are its deals'
            unit = won if self.rank_by_wins else list(points)
            extra = tuple(e + d for e, d in zip(self.extra, unit, strict=True))
            gone = tuple(g or i in left for i, g in enumerate(self.left))
            losses = list(self.extra_losses or (0,) * len(self.players))
            if landlord is not None and 0 <= landlord < len(losses) and points[landlord] < 0:
                losses[landlord] += 1
            return replace(self, extra=extra, extra_due=self.extra_due - 1,
                           extra_played=self.extra_played + 1, left=gone,
                           extra_losses=tuple(losses))
        if self._main_over():
            return self
        match = self.match.record(deal_id, points, left, bid=bid, landlord=landlord)
        wins = tuple(w + d for w, d in zip(self.wins, won, strict=True))
        return replace(self, match=match, wins=wins)

    def with_time_up(self) -> TableStandings:
        """The stage's time has run out (RULES.md §10.1 "Time"): the deal being played was
        the table's last, its deals so far count. Extra deals (加赛) a tie asks for later are
        still played (:meth:`with_extra`): a tie at the line is broken at the table."""
        return replace(self, time_up=True)

    def landlord_losses(self) -> list[int]:
        """Per seat, the deals of the stage at this table it lost as landlord (a forced 逼打
        landlord's too), extra deals included (RULES.md §11)."""
        extra = self.extra_losses or (0,) * len(self.players)
        return [a + b for a, b in zip(self.match.landlord_losses(), extra, strict=True)]

    def barred(self) -> tuple[bool, ...]:
        """Per seat, may only pass in the table's later biddings: it lost
        :data:`engine.match.LANDLORD_LOSSES_BAR` (3) deals as landlord in the stage (RULES.md
        §11, seed 004 rule 5: 以后不得再争叫地主，逼打除外; applied to four-player deals only by
        :meth:`bot.game.deal.DealDriver.start`)."""
        return tuple(n >= LANDLORD_LOSSES_BAR for n in self.landlord_losses())

    def with_extra(self, deals: int) -> TableStandings:
        """The table plays ``deals`` extra deals now (a tie at the line)."""
        return replace(self, extra_due=self.extra_due + deals)

    def result(self, signup: Sequence[int] = ()) -> TableResult[int]:
        """The table's result for :func:`engine.tournament.advance`. After
        :data:`MAX_EXTRA_DEALS` extra deals, equal extra sums are told apart by ``signup``
        (the sign-up order, earlier first)."""
        extra = list(self.extra)
        if self.extra_played >= MAX_EXTRA_DEALS and signup:
            rank = {p: len(signup) - i for i, p in enumerate(signup)}
            extra = [e * (len(signup) + 1) + rank.get(p, 0)
                     for p, e in zip(self.players, extra, strict=True)]
        seats = tuple(Seat(p, s, w, e, f) for p, s, w, e, f in zip(
            self.players, self.scores(), self.wins, extra, self.forfeited, strict=True))
        return TableResult(seats, self.extra_played)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, read back by :meth:`from_dict`."""
        return {"v": DICT_VERSION, "players": list(self.players), "deals": self.deals,
                "start": list(self.start), "match": self.match.to_dict(),
                "rank_by_wins": self.rank_by_wins, "wins": list(self.wins),
                "extra": list(self.extra), "extra_due": self.extra_due,
                "extra_played": self.extra_played, "left": list(self.left),
                "time_up": self.time_up, "extra_losses": list(self.extra_losses)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableStandings:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: an unknown version or a malformed dict.
        """
        if data.get("v") != DICT_VERSION:
            raise ValueError(f"unknown table standings version {data.get('v')!r}")
        try:
            return cls(tuple(data["players"]), int(data["deals"]), tuple(data["start"]),
                       MatchState.from_dict(data["match"]), bool(data["rank_by_wins"]),
                       tuple(data["wins"]), tuple(data["extra"]), int(data["extra_due"]),
                       int(data["extra_played"]), tuple(bool(x) for x in data["left"]),
                       bool(data.get("time_up", False)),
                       tuple(int(x) for x in data.get("extra_losses", ())))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed table standings: {exc}") from None
