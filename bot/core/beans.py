"""Bean arithmetic: settlement, daily check-in, relief, and the calendar (RULES.md §8).

Pure functions over integers, no I/O. The store calls them inside its transactions, so the rules
written here are the rules applied to balances.

Settlement (RULES.md §8, :func:`settle_beans`): a seat owes ``points × stake`` beans; a loser pays
at most their balance, and the winners share what was actually paid in proportion to what they
were owed, rounded by the largest-remainder method (:func:`engine.prizes.largest_remainder`).
The bean changes of a deal sum to exactly zero.

Bot seats (RULES.md is silent; our rule): a bot seat has nothing at stake. It neither pays nor
receives; the human seats settle with each other only. The beans that change hands are the smaller
of what the human losers can pay and what the human winners are owed. A human playing with two bots
therefore neither wins nor loses beans, and beans can never be created by beating the AI.

Escrow (our rule within RULES.md §8): a running deal may take at most what each human
seat held when it started. The store records that balance at deal start; while the deal runs the
player cannot ``/give``, and settlement passes the held balance to :func:`settle_beans` as the
seat's ``balances`` entry (never more than the balance at settlement).

Days: a player's own limits — the daily check-in, relief and the ``/give`` limit — use one day
boundary per player, midnight in :data:`PLAYER_TIMEZONE` (``Asia/Shanghai``, Beijing time)
whatever group they write in, so moving between groups in different time zones never yields two
days in a minute (:func:`player_day`). The leaderboards and the end-of-day post belong to a group
and use the calendar day in the group's time zone (default ``Asia/Shanghai``); see
:func:`local_day` and :func:`period_bounds`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from engine.settlement import settle

DEFAULT_TIMEZONE = "Asia/Shanghai"
#: The time zone of every player's day (check-in, relief, the /give limit): Beijing time, the
#: zone of the game's players, the same for every group.
PLAYER_TIMEZONE = "Asia/Shanghai"

Period = Literal["today", "yesterday", "week", "all"]
PERIODS: tuple[Period, ...] = ("today", "yesterday", "week", "all")


@dataclass(frozen=True, slots=True)
class EconomyRules:
    """The amounts of the bean economy (RULES.md §8), in beans.

    Attributes:
        start_balance: beans granted to a new player (1000).
        daily_bonus: the check-in grant on the first day of a streak (200).
        streak_bonus: extra beans per consecutive day after the first (20).
        streak_cap: the streak day from which the grant stops growing (7: day 7 and later grant
            ``200 + 6 × 20 = 320``).
        relief_below: relief (救济金) may be claimed while the balance is below this (100).
        relief_target: relief tops the balance up to this amount (500).
        give_daily_limit: most beans one player may give away per day with ``/give`` (1000).
    """

    start_balance: int = 1000
    daily_bonus: int = 200
    streak_bonus: int = 20
    streak_cap: int = 7
    relief_below: int = 100
    relief_target: int = 500
    give_daily_limit: int = 1000

    def daily_amount(self, streak: int) -> int:
        """Beans granted by the check-in on day ``streak`` (1 = first day) of a streak.

        >>> EconomyRules().daily_amount(1), EconomyRules().daily_amount(3)
        (200, 240)

        Raises:
            ValueError: ``streak`` < 1.
        """
        if streak < 1:
            raise ValueError("streak starts at 1")
        return self.daily_bonus + (min(streak, self.streak_cap) - 1) * self.streak_bonus

    def relief_amount(self, balance: int) -> int:
        """Beans relief grants at ``balance``; 0 when the balance is not below ``relief_below``.

        >>> EconomyRules().relief_amount(30), EconomyRules().relief_amount(100)
        (470, 0)
        """
        if balance >= self.relief_below:
            return 0
        return self.relief_target - balance


def settle_beans(points: Sequence[int], stake: int, balances: Sequence[int | None]) -> list[int]:
    """Bean change per seat for a finished deal (RULES.md §8).

    Args:
        points: per seat, the deal's points (RULES.md §7), summing to zero.
        stake: beans per point (≥ 1).
        balances: per seat, the beans the deal may take: the store passes the balance the
            player held when the deal started, or the balance now if lower (see the module
            docstring, "Escrow"); ``None`` for a bot seat.

    Returns:
        Per seat, the change in beans: negative for a seat that pays. The changes sum to zero, no
        seat loses more than its balance, bot seats get 0, no loser pays more than
        ``points × stake`` and no winner receives more.

    Rule: human loser ``i`` can pay ``cap_i = min(-points_i × stake, balance_i)``; human winners are
    owed ``owed_j = points_j × stake``. The transfer is ``T = min(Σ cap, Σ owed)`` (bot seats count
    for neither side). Winners split ``T`` in proportion to ``owed_j``; losers split ``T`` in
    proportion to ``cap_i`` (so each pays exactly ``cap_i`` whenever the winners are owed at least
    that much, which is always the case without bot seats). Both splits use
    :func:`~engine.prizes.largest_remainder` (:func:`engine.settlement.settle`, the same rule).

    >>> settle_beans([2, -1, -1], 10, [1000, 5, 1000])
    [15, -5, -10]
    >>> settle_beans([-2, 1, 1], 10, [1000, 1000, None])
    [-10, 10, 0]

    Raises:
        ValueError: lengths differ, points do not sum to zero, stake < 1, or a negative balance.
    """
    if len(points) != len(balances):
        raise ValueError("points and balances must have one entry per seat")
    if stake < 1:
        raise ValueError("stake must be at least 1 bean per point")
    if any(b is not None and b < 0 for b in balances):
        raise ValueError("balances must not be negative")
    return list(settle(points, stake, balances))


def local_day(moment: datetime, tz: str = DEFAULT_TIMEZONE) -> date:
    """The calendar day of the aware datetime ``moment`` in time zone ``tz`` (IANA name).

    >>> local_day(datetime(2024, 5, 1, 16, 0, tzinfo=UTC), "Asia/Shanghai")
    datetime.date(2024, 5, 2)

    Raises:
        ValueError: ``moment`` is naive. ``zoneinfo.ZoneInfoNotFoundError``: unknown ``tz``.
    """
    if moment.tzinfo is None:
        raise ValueError("moment must be timezone-aware")
    return moment.astimezone(ZoneInfo(tz)).date()


def player_day(moment: datetime) -> date:
    """The player's day at the aware datetime ``moment``: the calendar day in
    :data:`PLAYER_TIMEZONE`, for every player and every group (check-in, relief, /give).

    >>> player_day(datetime(2024, 5, 1, 16, 0, tzinfo=UTC))
    datetime.date(2024, 5, 2)
    """
    return local_day(moment, PLAYER_TIMEZONE)


def day_start(day: date, tz: str = DEFAULT_TIMEZONE) -> datetime:
    """The UTC instant at which ``day`` begins in time zone ``tz``.

    >>> day_start(date(2024, 5, 2), "Asia/Shanghai")
    datetime.datetime(2024, 5, 1, 16, 0, tzinfo=datetime.timezone.utc)
    """
    return datetime.combine(day, time(0), tzinfo=ZoneInfo(tz)).astimezone(UTC)


def period_bounds(
    period: Period, moment: datetime, tz: str = DEFAULT_TIMEZONE
) -> tuple[datetime | None, datetime | None]:
    """The UTC interval ``[start, end)`` of the leaderboard period that contains ``moment``.

    Whole local days in time zone ``tz``: ``today`` is the current day, ``yesterday`` the one
    before, ``week`` the calendar week from Monday 00:00 local, ``all`` is unbounded
    (``(None, None)``).

    >>> period_bounds("today", datetime(2024, 5, 1, 16, 0, tzinfo=UTC), "Asia/Shanghai")[0]
    datetime.datetime(2024, 5, 1, 16, 0, tzinfo=datetime.timezone.utc)

    Raises:
        ValueError: unknown period or naive ``moment``.
    """
    if period == "all":
        return None, None
    today = local_day(moment, tz)
    if period == "today":
        first, days = today, 1
    elif period == "yesterday":
        first, days = today - timedelta(days=1), 1
    elif period == "week":
        first, days = today - timedelta(days=today.weekday()), 7
    else:
        raise ValueError(f"unknown period {period!r}")
    return day_start(first, tz), day_start(first + timedelta(days=days), tz)
