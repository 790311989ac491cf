"""What the SQL backends share: conversions between rows and records, and the pure parts of
settlement and of the end-of-day posts, kept apart from the store's SQL (:mod:`bot.store.sql`).

Rows are anything indexable by column name (``aiosqlite.Row``, ``asyncpg.Record``). Times are
stored as int milliseconds since the Unix epoch, UTC.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol

from bot.core import rooms
from bot.core.beans import Period, local_day, period_bounds
from bot.store.records import (
    DealRecord,
    LedgerEntry,
    LedgerReason,
    MatchRecord,
    Player,
    PlayerStats,
    SeatFacts,
    SeatRecord,
    Settlement,
    TimerRecord,
)


class Row(Protocol):
    """A result row read by column name (``aiosqlite.Row``, ``asyncpg.Record``)."""

    def __getitem__(self, key: str, /) -> Any: ...


DAILY_POST_LOOKBACK = timedelta(hours=50)  # covers "yesterday" in every time zone, DST included


def ms(moment: datetime) -> int:
    """``moment`` as stored: int milliseconds since the epoch."""
    return int(moment.timestamp() * 1000)


def dt(stored: int) -> datetime:
    """A stored time as an aware UTC datetime."""
    return datetime.fromtimestamp(stored / 1000, UTC)


def utc_now() -> datetime:
    """The default clock: the current aware UTC datetime."""
    return datetime.now(UTC)


def bounded(period: Period, moment: datetime, tz: str) -> tuple[datetime, datetime]:
    """:func:`bot.core.beans.period_bounds` of a period with both ends (not ``all``)."""
    start, end = period_bounds(period, moment, tz)
    if start is None or end is None:
        raise ValueError(f"period {period!r} has no bounds")
    return start, end


def seats_json(seats: Sequence[SeatRecord]) -> str:
    """The ``deals.seats`` column of a new deal.

    Raises:
        ValueError: no seats, or a player in two seats.
    """
    if not seats:
        raise ValueError("a deal needs seats")
    humans = [seat.user_id for seat in seats if seat.user_id is not None]
    if len(set(humans)) != len(humans):
        raise ValueError("a player may hold only one seat of a deal")
    return json.dumps([{"user_id": s.user_id, "name": s.name, "is_bot": s.is_bot} for s in seats])


def player_record(row: Row) -> Player:
    return Player(
        row["user_id"], row["name"], row["language"], row["balance"], dt(row["created_at"]),
        row["hands"],
    )


def deal_record(row: Row) -> DealRecord:
    return DealRecord(
        deal_id=row["id"],
        table_key=row["table_key"],
        chat_id=row["chat_id"],
        seats=tuple(SeatRecord(**seat) for seat in json.loads(row["seats"])),
        rules=json.loads(row["rules"]),
        stake=row["stake"],
        status=row["status"],
        state_json=row["state"],
        version=row["version"],
        result=json.loads(row["result"]) if row["result"] else None,
        created_at=dt(row["created_at"]),
        finished_at=dt(row["finished_at"]) if row["finished_at"] is not None else None,
    )


def ledger_entry(row: Row) -> LedgerEntry:
    return LedgerEntry(
        row["id"],
        row["user_id"],
        row["amount"],
        row["balance_after"],
        LedgerReason(row["reason"]),
        row["deal_id"],
        row["chat_id"],
        dt(row["created_at"]),
        row["match_id"],
    )


def match_record(row: Row) -> MatchRecord:
    return MatchRecord(
        match_id=row["id"],
        table_key=row["table_key"],
        chat_id=row["chat_id"],
        format=row["format"],
        options=json.loads(row["options"]),
        seats=tuple(SeatRecord(**seat) for seat in json.loads(row["seats"])),
        entry_fee=row["entry_fee"],
        pool=row["pool"],
        status=row["status"],
        state_json=row["state"],
        result=json.loads(row["result"]) if row["result"] else None,
        created_at=dt(row["created_at"]),
        finished_at=dt(row["finished_at"]) if row["finished_at"] is not None else None,
    )


def player_stats(row: Row, rank: int | None) -> PlayerStats:
    return PlayerStats(
        user_id=row["user_id"],
        name=row["name"],
        balance=row["balance"],
        games=row["games"],
        wins=row["wins"],
        landlord_games=row["landlord_games"],
        landlord_wins=row["landlord_wins"],
        farmer_games=row["farmer_games"],
        farmer_wins=row["farmer_wins"],
        springs=row["springs"],
        bombs=row["bombs"],
        best_win=row["best_win"],
        current_streak=row["current_streak"],
        longest_streak=row["longest_streak"],
        rank=rank,
    )


def timer_record(row: Row) -> TimerRecord:
    return TimerRecord(
        row["key"],
        dt(row["due_at"]),
        json.loads(row["payload"]),
        row["generation"],
        row["claimed_by"],
        dt(row["claimed_until"]),
    )


def repeated_settlement(deal_id: int, result_json: str) -> Settlement:
    """The stored settlement of a deal settled before, marked ``repeated``."""
    result = json.loads(result_json)
    return Settlement(
        deal_id,
        result["stake"],
        tuple(result["points"]),
        tuple(result["beans"]),
        tuple(result["balances"]),
        repeated=True,
    )


def at_stake(balances: Sequence[int | None], holds: Mapping[int, int]) -> list[int | None]:
    """Per seat, the beans the deal may take (see :meth:`Store.settle_deal`): the balance held at
    the deal's start (``holds`` by seat number), never more than the balance now (which only a
    second deal of the same player could have lowered); the balance now for a deal stored before
    holds existed."""
    return [
        None if balance is None else min(balance, holds.get(seat_no, balance))
        for seat_no, balance in enumerate(balances)
    ]


@dataclass
class SettlementRows:
    """The rows a settlement writes, as plain values (booleans as 0/1).

    ``seats``: deal_seats rows (deal, seat, user, chat, finished_at, role, won, points, beans,
    bombs, spring, escaped); ``stats``: per human seat, the players' statistic changes;
    ``ledger``: (user, amount, balance after, reason, deal, chat, created_at) for seats whose
    beans changed; ``members``: (chat, won, now, user) for group_players.
    """

    seats: list[tuple[Any, ...]] = field(default_factory=list)
    stats: list[dict[str, int]] = field(default_factory=list)
    ledger: list[tuple[Any, ...]] = field(default_factory=list)
    members: list[tuple[int, int, int, int]] = field(default_factory=list)


def settlement_rows(
    deal_id: int,
    chat_id: int,
    seats: Sequence[SeatRecord],
    settlement: Settlement,
    facts: Sequence[SeatFacts] | None,
    now: int,
) -> SettlementRows:
    """What settling writes, per seat: without facts, a seat has won when its points are
    positive and no role, bomb or spring is counted."""
    rows = SettlementRows()
    for seat_no, seat in enumerate(seats):
        points, beans = settlement.points[seat_no], settlement.beans[seat_no]
        fact = facts[seat_no] if facts is not None else None
        role = fact.role if fact else None
        won = int(fact.won if fact else points > 0)
        bombs = fact.bombs if fact else 0
        spring = int(bool(fact and fact.spring))
        escaped = int(bool(fact and fact.escaped))
        rows.seats.append(
            (deal_id, seat_no, seat.user_id, chat_id, now, role, won, points, beans, bombs,
             spring, escaped)
        )
        if seat.user_id is None:
            continue
        landlord, farmer = int(role == "landlord"), int(role == "farmer")
        rows.stats.append(
            {
                "user_id": seat.user_id,
                "beans": beans,
                "now": now,
                "won": won,
                "landlord": landlord,
                "landlord_won": landlord & won,
                "farmer": farmer,
                "farmer_won": farmer & won,
                "spring": spring & won,
                "bombs": bombs,
            }
        )
        if beans:
            balance = settlement.balances[seat_no]
            rows.ledger.append(
                (seat.user_id, beans, balance, LedgerReason.DEAL.value, deal_id, chat_id, now)
            )
        rows.members.append((chat_id, won, now, seat.user_id))
    return rows


def posts_due(
    now: datetime,
    finished: Iterable[tuple[int, int]],
    stored_settings: Mapping[int, str],
    posted: Iterable[tuple[int, str]],
) -> list[tuple[int, date]]:
    """:meth:`Store.daily_posts_due` from its three reads: ``finished`` (chat, finished_at) of the
    deals settled in the last :data:`DAILY_POST_LOOKBACK`, the stored settings JSON of those
    groups, and the (chat, ISO day) posts already marked."""
    finished = list(finished)
    done = set(posted)
    yesterday = {}  # chat id → (start ms, end ms, day) of its local yesterday, if due
    for chat_id in {chat_id for chat_id, _ in finished}:
        stored = stored_settings.get(chat_id)
        group = rooms.with_defaults(json.loads(stored) if stored else {})
        start, end = bounded("yesterday", now, group["timezone"])
        day = local_day(start, group["timezone"])
        if group["daily_post"] and (chat_id, day.isoformat()) not in done:
            yesterday[chat_id] = (ms(start), ms(end), day)
    due = set()
    for chat_id, finished_at in finished:
        window = yesterday.get(chat_id)
        if window and window[0] <= finished_at < window[1]:
            due.add((chat_id, window[2]))
    return sorted(due)
