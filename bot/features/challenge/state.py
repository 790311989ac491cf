"""The duplicate challenge's rules (复式挑战, RULES.md §10): options, matchpoints,
standings, prizes and the window. Pure values and functions, no I/O; the driver is
:mod:`bot.features.challenge.driver`, the deals come from :mod:`engine.challenge`.

- **Options**: ``deals`` (1–12, default 6), ``days`` (0: until the end of the group's day, in
  its time zone; 1–7: that many days from the opening), ``entry_fee`` (beans, 0–1,000,000),
  ``prizes`` (the prize table: whole percentages by place, at most 10 places, summing to 100;
  default 50/30/20; :mod:`engine.prizes`).
- **A member's result** in a deal is their points (RULES.md §7, after the auto-play and escape
  rules of §9) from the member's seat (:data:`engine.challenge.MEMBER_SEAT`).
- **Matchpoints** (:func:`matchpoints`): per deal, among the members who played it, 2 for every
  other member with a lower result and 1 for every equal one; a deal played by ``n`` members
  hands out ``n(n-1)`` matchpoints. A member's total is the sum over the deals they played.
- **Standings** (:func:`standings`): highest total first; ties broken by more deals won as
  landlord, then the earlier finish (the time of the member's last deal); members tied on all
  three share the place. Members who entered but played no deal are listed last, unplaced.
- **Prizes** (:func:`payout`): the pool (every entrant's fee) is split among the placed members
  as RULES.md §10 by the prize table (default 50 / 30 / 20 %, unused shares to first, shared
  places share;
  :func:`engine.prizes.split_pool`); when nobody played a deal every fee goes back to its payer.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from engine.challenge import MAX_DEALS, MIN_DEALS
from engine.prizes import DEFAULT_PRIZE_TABLE, PrizeTableError, check_prize_table, split_pool

K = TypeVar("K", bound=Hashable)

#: Limits of each option (inclusive); see :class:`ChallengeOptions`.
LIMITS: dict[str, tuple[int, int]] = {
    "deals": (MIN_DEALS, MAX_DEALS),
    "days": (0, 7),
    "entry_fee": (0, 1_000_000),
}
DEFAULT_DEALS = 6


class ChallengeError(ValueError):
    """An option out of its limits."""


@dataclass(frozen=True, slots=True)
class ChallengeOptions:
    """A challenge's options, fixed when it opens (see the module docstring).

    Raises:
        ChallengeError: a value that is not a whole number within :data:`LIMITS`, or a prize
            table :func:`engine.prizes.check_prize_table` refuses.
    """

    deals: int = DEFAULT_DEALS
    days: int = 0
    entry_fee: int = 0
    prizes: tuple[int, ...] = DEFAULT_PRIZE_TABLE

    def __post_init__(self) -> None:
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ChallengeError(f"{name} must be a whole number from {low} to {high}")
        try:
            object.__setattr__(self, "prizes", check_prize_table(self.prizes))
        except PrizeTableError as exc:
            raise ChallengeError(f"prizes: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        return {"deals": self.deals, "days": self.days, "entry_fee": self.entry_fee,
                "prizes": list(self.prizes)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChallengeOptions:
        """Inverse of :meth:`to_dict`; a challenge stored before prize tables existed pays
        50/30/20, as it was opened with."""
        return cls(int(data["deals"]), int(data["days"]), int(data["entry_fee"]),
                   tuple(data.get("prizes", DEFAULT_PRIZE_TABLE)))


def closes_at(opened: datetime, days: int, tz: str) -> datetime:
    """When a window opened at ``opened`` (aware) closes: with ``days`` 0 at the next midnight
    of the group's time zone ``tz`` (the end of its day), else ``days`` × 24 h later."""
    if days:
        return opened + timedelta(days=days)
    local = opened.astimezone(ZoneInfo(tz))
    midnight = datetime.combine(local.date() + timedelta(days=1), datetime.min.time(),
                                tzinfo=local.tzinfo)
    return midnight


@dataclass(frozen=True, slots=True)
class DealPlay:
    """One member's finished challenge deal: ``user_id``, ``deal`` (1-based), ``points`` from
    the member's seat, ``landlord_won`` (the member was landlord and won), ``finished_at``
    (UTC seconds)."""

    user_id: int
    deal: int
    points: int
    landlord_won: bool
    finished_at: float


@dataclass(frozen=True, slots=True)
class Entrant:
    """A member who entered: ``user_id``, ``name`` as shown on the board."""

    user_id: int
    name: str


@dataclass(frozen=True, slots=True)
class Standing:
    """A line of the board: ``place`` (``None``: no deal played yet), the member, their
    ``matchpoints``, ``deals`` played, deals won as ``landlord_wins``, ``finished_at`` (UTC
    seconds of their last deal, ``None`` before the first)."""

    place: int | None
    user_id: int
    name: str
    matchpoints: int
    deals: int
    landlord_wins: int
    finished_at: float | None


def matchpoints(results: Mapping[K, int]) -> dict[K, int]:
    """Matchpoints of one deal (RULES.md §10): per member 2 for every other member with a lower
    result and 1 for every equal one. ``results``: member → points.

    >>> matchpoints({"a": 4, "b": -2, "c": 4})
    {'a': 3, 'b': 0, 'c': 3}
    """
    values = list(results.values())
    return {member: sum(2 if other < mine else 1 if other == mine else 0 for other in values)
            - 1  # the member's own result counts as one equal
            for member, mine in results.items()}


def by_deal(plays: Iterable[DealPlay]) -> dict[int, dict[int, int]]:
    """Deal number → member → points."""
    deals: dict[int, dict[int, int]] = defaultdict(dict)
    for play in plays:
        deals[play.deal][play.user_id] = play.points
    return dict(deals)


def standings(entrants: Sequence[Entrant], plays: Sequence[DealPlay]) -> list[Standing]:
    """The board (see the module docstring): every entrant once, in entering order among equals
    of the unplaced."""
    totals: dict[int, int] = defaultdict(int)
    for results in by_deal(plays).values():
        for user_id, points in matchpoints(results).items():
            totals[user_id] += points
    played: dict[int, int] = defaultdict(int)
    won: dict[int, int] = defaultdict(int)
    last: dict[int, float] = {}
    for play in plays:
        played[play.user_id] += 1
        won[play.user_id] += play.landlord_won
        last[play.user_id] = max(last.get(play.user_id, play.finished_at), play.finished_at)

    def key(entrant: Entrant) -> tuple[int, int, float]:
        uid = entrant.user_id
        return (-totals[uid], -won[uid], last[uid])

    ranked = sorted((e for e in entrants if played[e.user_id]), key=key)
    lines: list[Standing] = []
    for i, entrant in enumerate(ranked):
        uid = entrant.user_id
        place = lines[-1].place if lines and key(ranked[i - 1]) == key(entrant) else i + 1
        lines.append(Standing(place, uid, entrant.name, totals[uid], played[uid], won[uid],
                              last[uid]))
    lines.extend(Standing(None, e.user_id, e.name, 0, 0, 0, None)
                 for e in entrants if not played[e.user_id])
    return lines


def payout(entry_fee: int, board: Sequence[Standing],
           table: Sequence[int] = DEFAULT_PRIZE_TABLE) -> dict[int, int]:
    """Beans each entrant receives when the window closes: the pool (``entry_fee`` × entrants)
    split by place by the prize table ``table`` (:func:`engine.prizes.split_pool`), or every fee
    back when nobody played. Sums to the pool."""
    places = [line.place for line in board]
    if all(p is None for p in places):
        return {line.user_id: entry_fee for line in board}
    paid = split_pool(entry_fee * len(board), places, table)
    return {line.user_id: amount for line, amount in zip(board, paid, strict=True)}
