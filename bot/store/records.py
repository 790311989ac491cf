"""Record types and errors of the store: plain frozen values, no SQL (RULES.md §8).

Beans are ints; times are timezone-aware UTC datetimes; days are ``datetime.date`` in the time zone
named where they are used.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any, Literal

Role = Literal["landlord", "farmer"]


class LedgerReason(StrEnum):
    """Why a balance changed (one ledger row per change, RULES.md §8)."""

    GRANT = "grant"  # start balance of a new player
    DAILY = "daily"  # daily check-in bonus
    RELIEF = "relief"  # relief (救济金) top-up
    DEAL = "deal"  # settlement of a deal
    GIVE = "give"  # /give between players (negative for the giver)
    MATCH = "match"  # a match's entry fee (negative), prize or refund
    CHALLENGE = "challenge"  # a duplicate challenge's entry fee, prize or refund
    TOURNAMENT = "tournament"  # a group tournament's entry fee, prize or refund


#: Reasons that create beans; every other reason moves beans between players.
GRANT_REASONS = (LedgerReason.GRANT, LedgerReason.DAILY, LedgerReason.RELIEF)


@dataclass(frozen=True, slots=True)
class Player:
    """A human player: Telegram user id, display name, language (``None`` = not chosen), beans,
    and where they want their hands shown (``hands``: ``"group"``, ``"private"`` or ``None``,
    the group's setting)."""

    user_id: int
    name: str
    language: str | None
    balance: int
    created_at: datetime
    hands: str | None = None


@dataclass(frozen=True, slots=True)
class UsernameOwner:
    """Who holds an ``@username`` (as last seen): Telegram user id and display name."""

    user_id: int
    name: str


def username_key(username: str | None) -> str | None:
    """The stored form of a Telegram username: without ``@``, lower-cased (Telegram usernames
    are case-insensitive); ``None`` for none.

    >>> username_key("@Bob_W"), username_key(""), username_key(None)
    ('bob_w', None, None)
    """
    key = (username or "").strip().removeprefix("@").lower()
    return key or None


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat of a deal: the player's user id (``None`` for a bot seat), name, whether a bot."""

    user_id: int | None
    name: str
    is_bot: bool = False

    def __post_init__(self) -> None:
        if self.is_bot != (self.user_id is None):
            raise ValueError("a bot seat has no user id and a human seat has one")


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """What a seat did in a settled deal, for statistics (not for beans).

    Attributes:
        role: ``"landlord"`` or ``"farmer"``.
        won: the seat's side won the deal (RULES.md §4.4).
        bombs: bombs and rockets this seat played (RULES.md §7).
        spring: the seat's side won with a spring or an anti-spring (RULES.md §7).
        escaped: the seat left the running deal (逃跑, RULES.md §9).
    """

    role: Role
    won: bool
    bombs: int = 0
    spring: bool = False
    escaped: bool = False

    def __post_init__(self) -> None:
        if self.role not in ("landlord", "farmer"):
            raise ValueError(f"unknown role {self.role!r}")
        if self.bombs < 0:
            raise ValueError("bombs must not be negative")


@dataclass(frozen=True, slots=True)
class DealRecord:
    """A stored deal.

    Attributes:
        deal_id: the deal's id.
        table_key: key of the table the deal was played at.
        chat_id: the group chat.
        seats: the seats in seat order.
        rules: the engine rule options (``Rules.to_dict()``).
        stake: beans per point (RULES.md §8).
        status: ``"running"``, ``"settled"`` or ``"cancelled"``.
        state_json: the engine's latest state (``DealState.to_json()``), for restarts and replays.
        version: the state's version (+1 per applied action).
        result: the settlement as stored (see :meth:`Settlement.to_dict`), ``None`` unless settled.
        created_at, finished_at: UTC; ``finished_at`` is ``None`` while running.
    """

    deal_id: int
    table_key: str
    chat_id: int
    seats: tuple[SeatRecord, ...]
    rules: dict[str, Any]
    stake: int
    status: Literal["running", "settled", "cancelled"]
    state_json: str
    version: int
    result: dict[str, Any] | None
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class DealHold:
    """A human seat of a running deal and what it holds back (RULES.md §8).

    Attributes:
        deal_id: the running deal.
        chat_id: its group.
        table_key: its table.
        seat: the seat number.
        balance_at_start: the player's balance in beans when the deal started: the most the
            deal can take from them (settlement caps the loss there), and beans they cannot
            move away (``/give`` is refused) while the deal runs.
    """

    deal_id: int
    chat_id: int
    table_key: str
    seat: int
    balance_at_start: int


@dataclass(frozen=True, slots=True)
class Settlement:
    """The bean result of a deal (RULES.md §8), per seat in seat order.

    Attributes:
        deal_id: the deal.
        stake: beans per point.
        points: the engine's points (RULES.md §7), summing to zero.
        beans: the change of each balance; sums to zero; 0 for bot seats.
        balances: balances after settling; ``None`` for bot seats.
        repeated: ``True`` when this deal had already been settled and nothing changed now.
    """

    deal_id: int
    stake: int
    points: tuple[int, ...]
    beans: tuple[int, ...]
    balances: tuple[int | None, ...]
    repeated: bool = False

    @property
    def owed(self) -> tuple[int, ...]:
        """``points × stake`` per seat: what each seat would pay or get without limits."""
        return tuple(p * self.stake for p in self.points)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, stored as the deal's result."""
        return {
            "stake": self.stake,
            "points": list(self.points),
            "beans": list(self.beans),
            "balances": list(self.balances),
        }


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One balance change: ``amount`` beans (signed), the balance after it, why, and where."""

    entry_id: int
    user_id: int
    amount: int
    balance_after: int
    reason: LedgerReason
    deal_id: int | None
    chat_id: int | None
    created_at: datetime
    match_id: int | None = None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A stored match (RULES.md §10).

    Attributes:
        match_id: its id. table_key, chat_id: where it is played.
        format: ``"fixed"`` or ``"knockout"``; options: ``MatchOptions.to_dict()``.
        seats: in seat order. entry_fee: beans per human seat; pool: the fees taken.
        status: ``"running"``, ``"finished"`` or ``"cancelled"``.
        state_json: the competition state (``MatchState.to_dict()`` as JSON), with every deal
            played so far; result: final standings and prizes as stored, once finished.
        created_at, finished_at: UTC.
    """

    match_id: int
    table_key: str
    chat_id: int
    format: Literal["fixed", "knockout"]
    options: dict[str, Any]
    seats: tuple[SeatRecord, ...]
    entry_fee: int
    pool: int
    status: Literal["running", "finished", "cancelled"]
    state_json: str
    result: dict[str, Any] | None
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class MatchPayout:
    """What :meth:`Store.finish_match` or :meth:`Store.cancel_match` paid per seat (beans,
    0 for bot seats), and whether that had happened before (``repeated``: nothing paid now)."""

    match_id: int
    paid: tuple[int, ...]
    repeated: bool = False


@dataclass(frozen=True, slots=True)
class MatchStats:
    """A player's matches (all groups): finished matches played, and won (champion)."""

    played: int
    won: int


@dataclass(frozen=True, slots=True)
class Claim:
    """A granted daily check-in or relief.

    Attributes:
        amount: beans granted.
        balance: balance after the grant.
        day: the local calendar day it counts for.
        streak: consecutive check-in days including this one (1 for relief).
    """

    amount: int
    balance: int
    day: date
    streak: int


@dataclass(frozen=True, slots=True)
class Gift:
    """A completed ``/give``: the balances after it and what the giver may still give today."""

    amount: int
    giver_balance: int
    receiver_balance: int
    remaining_today: int


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One leaderboard line: ``value`` is net beans won in the period, or the balance for "all".

    ``games`` and ``wins`` (``0 <= wins <= games``) count the deals played and won that the board
    covers: settled in the period, or every deal for "all"; in the board's group, or in all groups
    for a global board (RULES.md §4.4: a seat wins when its side wins).
    """

    rank: int
    user_id: int
    name: str
    value: int
    games: int
    wins: int


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's statistics for ``/me`` (all groups), with balance and rank.

    ``rank`` is the position by balance among the players of the given group (players who have
    played a deal there), or among all players when no group was given; ``None`` if the player
    has not played in that group.
    """

    user_id: int
    name: str
    balance: int
    games: int
    wins: int
    landlord_games: int
    landlord_wins: int
    farmer_games: int
    farmer_wins: int
    springs: int
    bombs: int
    best_win: int
    current_streak: int
    longest_streak: int
    rank: int | None

    @property
    def landlord_win_rate(self) -> float | None:
        """Wins as landlord / deals as landlord, ``None`` before the first such deal."""
        return self.landlord_wins / self.landlord_games if self.landlord_games else None

    @property
    def farmer_win_rate(self) -> float | None:
        """Wins as farmer / deals as farmer, ``None`` before the first such deal."""
        return self.farmer_wins / self.farmer_games if self.farmer_games else None

    @property
    def win_rate(self) -> float | None:
        """Wins / deals, ``None`` before the first deal."""
        return self.wins / self.games if self.games else None


@dataclass(frozen=True, slots=True)
class Totals:
    """Bean totals over the whole store; conserved beans mean ``balances == ledger == grants``."""

    balances: int
    ledger: int
    grants: int
    pools: int = 0

    @property
    def conserved(self) -> bool:
        """``balances == ledger == grants − pools``: the fees of running matches (``pools``)
        are out of the balances until their payout or refund."""
        return self.balances == self.ledger == self.grants - self.pools


@dataclass(frozen=True, slots=True)
class TimerRecord:
    """A claimed timer: its key, due time, JSON-ready payload, the generation of its
    schedule, and the worker whose lease on it runs until ``claimed_until``."""

    key: str
    due_at: datetime
    payload: dict[str, Any]
    generation: int
    claimed_by: str
    claimed_until: datetime


class StoreError(Exception):
    """Base of the store's refusals; ``code`` is a stable machine code for translated messages.

    When raised, nothing was changed.
    """

    code = "store_error"


class UnknownPlayer(StoreError):
    """No player with that user id (call ``ensure_player`` first)."""

    code = "unknown_player"


class UnknownDeal(StoreError):
    """No deal with that id."""

    code = "unknown_deal"


class DealNotRunning(StoreError):
    """The deal was already settled or cancelled."""

    code = "deal_not_running"


class StaleVersion(StoreError):
    """A deal state older than (or as old as) the stored one was refused."""

    code = "stale_version"


class AlreadyClaimed(StoreError):
    """Daily check-in or relief was already claimed for this day (``next_day`` is the next)."""

    code = "already_claimed"

    def __init__(self, message: str, next_day: date) -> None:
        super().__init__(message)
        self.next_day = next_day


class NotEligible(StoreError):
    """Relief refused: the balance is not below the relief threshold."""

    code = "not_eligible"


class MatchRefused(StoreError):
    """A match cannot start; ``code`` says why and ``user_ids`` who.

    Codes: ``match_fee`` (a human seat's balance is below the entry fee), ``match_held`` (a
    human seat's beans are held by a running deal elsewhere, RULES.md §8).
    """

    def __init__(self, code: str, message: str, user_ids: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.user_ids = user_ids


class MatchNotRunning(StoreError):
    """The match was already finished or cancelled (``status`` says which)."""

    code = "match_not_running"

    def __init__(self, message: str, status: str) -> None:
        super().__init__(message)
        self.status = status


class UnknownMatch(StoreError):
    """No match with that id."""

    code = "unknown_match"


class GiveRefused(StoreError):
    """``/give`` refused; ``code`` says why.

    Codes: ``give_disabled`` (the group's ``give_enabled`` is off), ``give_invalid_amount``
    (amount < 1), ``give_same_player``, ``give_insufficient`` (giver's balance too low),
    ``give_limit`` (over the daily limit; ``remaining`` beans may still be given today),
    ``give_in_deal`` (the giver sits at a running deal, which may still take their beans).
    """

    def __init__(self, code: str, message: str, remaining: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.remaining = remaining
