"""The SQLite store: one aiosqlite connection in WAL mode for one bot process.

Every method runs under one ``asyncio.Lock``; methods that write open a ``BEGIN IMMEDIATE``
transaction inside it, so concurrent presses (two ``/daily`` taps, a settlement racing a check-in)
are applied one after the other and a refusal rolls everything back. ``BEGIN IMMEDIATE`` also
serialises writers in other processes that open the same file (waiting up to ``busy_timeout``).

``synchronous=NORMAL`` with WAL: a crash of the bot never loses a committed transaction; a power
loss may lose the last ones, never half of one. The WAL is checkpointed into the database file
(with an fsync) every 4000 pages.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import aiosqlite

from bot import rooms
from bot.economy import PERIODS, EconomyRules, Period, player_day, settle_beans
from bot.names import clean_name
from bot.store.base import Clock, Store
from bot.store.challenge_records import (
    ChallengeEntry,
    ChallengeNotOpen,
    ChallengePayout,
    ChallengePlay,
    ChallengeRecord,
    ChallengeRefused,
    UnknownChallenge,
    challenge_entry,
    challenge_play,
    challenge_record,
)
from bot.store.migrate import migrate
from bot.store.records import (
    GRANT_REASONS,
    AlreadyClaimed,
    Claim,
    DealHold,
    DealNotRunning,
    DealRecord,
    Gift,
    GiveRefused,
    LeaderboardRow,
    LedgerEntry,
    LedgerReason,
    MatchNotRunning,
    MatchPayout,
    MatchRecord,
    MatchRefused,
    MatchStats,
    NotEligible,
    Player,
    PlayerStats,
    SeatFacts,
    SeatRecord,
    Settlement,
    StaleVersion,
    TimerRecord,
    Totals,
    UnknownDeal,
    UnknownMatch,
    UnknownPlayer,
    UsernameOwner,
    username_key,
)
from bot.store.rows import (
    DAILY_POST_LOOKBACK,
    at_stake,
    bounded,
    deal_record,
    dt,
    ledger_entry,
    match_record,
    player_record,
    player_stats,
    posts_due,
    repeated_settlement,
    seats_json,
    settlement_rows,
    timer_record,
    utc_now,
)
from bot.store.rows import ms as _ms


async def _enable_wal(db: aiosqlite.Connection, wait: float = 10.0) -> None:
    """Switch the file to WAL mode. While another process or connection opens the same new
    file, SQLite answers "database is locked" at once instead of waiting ``busy_timeout``, so
    the switch is tried again for up to ``wait`` seconds (several workers starting together)."""
    deadline = asyncio.get_running_loop().time() + wait
    while True:
        try:
            await db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.02)


class SQLiteStore(Store):
    """:class:`~bot.store.base.Store` on one SQLite file (see the module docstring)."""

    def __init__(self, db: aiosqlite.Connection, economy: EconomyRules, clock: Clock) -> None:
        self._db = db
        self._lock = asyncio.Lock()
        self._open = True
        self.economy = economy
        self.clock = clock

    @staticmethod
    async def open(
        path: str | Path,
        *,
        economy: EconomyRules | None = None,
        clock: Clock | None = None,
    ) -> SQLiteStore:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(path, isolation_level=None)
        try:
            db.row_factory = aiosqlite.Row
            await db.execute("PRAGMA busy_timeout = 10000")
            await _enable_wal(db)
            await db.execute("PRAGMA synchronous = NORMAL")
            # checkpoint every 16 MB of WAL instead of 4 MB: pages changed by many settlements
            # (index tails, a busy group's board) are copied back once; +30 % settlements/s
            await db.execute("PRAGMA wal_autocheckpoint = 4000")
            await db.execute("PRAGMA foreign_keys = ON")
            await migrate(db)
        except BaseException:
            await db.close()
            raise
        return SQLiteStore(db, economy or EconomyRules(), clock or utc_now)

    async def close(self) -> None:
        async with self._lock:
            if self._open:
                self._open = False
                await self._db.execute("PRAGMA optimize")  # refresh the planner's statistics
                await self._db.close()

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            yield self._db

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction. On any error, cancellation included, it is rolled back.

        aiosqlite runs statements in order on its own thread, and a statement whose ``await`` was
        cancelled still runs; so the ROLLBACK queued here always comes after it. A cancelled
        COMMIT still commits (the ROLLBACK then finds no transaction).
        """
        async with self._lock:
            try:
                await self._db.execute("BEGIN IMMEDIATE")
                yield self._db
                await self._db.execute("COMMIT")
            except BaseException:
                try:
                    await self._db.execute("ROLLBACK")
                except sqlite3.OperationalError as error:
                    if "no transaction is active" not in str(error):
                        raise
                raise

    @staticmethod
    async def _one(
        db: aiosqlite.Connection, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()
    ) -> Any:
        """The first row of a statement, or ``None`` (one round trip to the database thread)."""
        rows = await db.execute_fetchall(sql, params)
        return next(iter(rows), None)

    async def _move_beans(
        self,
        db: aiosqlite.Connection,
        user_id: int,
        amount: int,
        reason: LedgerReason,
        now: int,
        *,
        chat_id: int | None = None,
        deal_id: int | None = None,
        match_id: int | None = None,
        challenge_id: int | None = None,
    ) -> int:
        """Change one balance with its ledger row; returns the new balance."""
        row = await self._one(
            db,
            "UPDATE players SET balance = balance + ?, balance_changed_at = ?"
            " WHERE user_id = ? RETURNING balance",
            (amount, now, user_id),
        )
        if row is None:
            raise UnknownPlayer(f"unknown player {user_id}")
        await db.execute(
            "INSERT INTO ledger (user_id, amount, balance_after, reason, deal_id, chat_id,"
            " created_at, match_id, challenge_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (user_id, amount, row[0], str(reason), deal_id, chat_id, now, match_id,
             challenge_id),
        )
        return row[0]

    async def _settings(self, db: aiosqlite.Connection, chat_id: int | None) -> dict[str, Any]:
        if chat_id is None:
            return rooms.with_defaults({})
        row = await self._one(db, "SELECT settings FROM groups WHERE chat_id = ?", (chat_id,))
        return rooms.with_defaults(json.loads(row[0]) if row else {})

    async def _timezone(self, db: aiosqlite.Connection, chat_id: int | None) -> str:
        return (await self._settings(db, chat_id))["timezone"]

    # Players

    async def ensure_player(self, user_id: int, name: str, language: str | None = None) -> Player:
        name = clean_name(name) or str(user_id)
        player = await self.get_player(user_id)
        if player and player.name == name and language in (None, player.language):
            return player  # the common case: no write transaction
        async with self._write() as db:
            row = await self._one(db, "SELECT * FROM players WHERE user_id = ?", (user_id,))
            if row is None:
                now = _ms(self.clock())
                await db.execute(
                    "INSERT INTO players (user_id, name, language, balance, balance_changed_at,"
                    " created_at) VALUES (?, ?, ?, 0, ?, ?)",
                    (user_id, name, language, now, now),
                )
                if self.economy.start_balance:
                    await self._move_beans(
                        db, user_id, self.economy.start_balance, LedgerReason.GRANT, now
                    )
            else:
                await db.execute(
                    "UPDATE players SET name = ?, language = COALESCE(?, language)"
                    " WHERE user_id = ?",
                    (name, language, user_id),
                )
            row = await self._one(db, "SELECT * FROM players WHERE user_id = ?", (user_id,))
        return player_record(row)

    async def get_player(self, user_id: int) -> Player | None:
        async with self._read() as db:
            row = await self._one(db, "SELECT * FROM players WHERE user_id = ?", (user_id,))
        return player_record(row) if row else None

    async def balance(self, user_id: int) -> int:
        async with self._read() as db:
            row = await self._one(db, "SELECT balance FROM players WHERE user_id = ?", (user_id,))
        if row is None:
            raise UnknownPlayer(f"unknown player {user_id}")
        return row[0]

    # Usernames

    async def remember_username(self, user_id: int, username: str | None, name: str) -> None:
        key = username_key(username)
        async with self._write() as db:
            await db.execute("DELETE FROM usernames WHERE user_id = ? OR username = ?",
                             (user_id, key))
            if key is not None:
                await db.execute(
                    "INSERT INTO usernames (username, user_id, name, updated_at)"
                    " VALUES (?, ?, ?, ?)",
                    (key, user_id, clean_name(name) or str(user_id), _ms(self.clock())),
                )

    async def username_owner(self, username: str) -> UsernameOwner | None:
        key = username_key(username)
        if key is None:
            return None
        async with self._read() as db:
            row = await self._one(db, "SELECT user_id, name FROM usernames WHERE username = ?",
                                  (key,))
        return UsernameOwner(row[0], row[1]) if row else None

    # Groups

    async def get_group_settings(self, chat_id: int) -> dict[str, Any]:
        async with self._read() as db:
            return await self._settings(db, chat_id)

    async def update_group_settings(self, chat_id: int, **changes: Any) -> dict[str, Any]:
        changes = rooms.validate_changes(changes)
        async with self._write() as db:
            row = await self._one(db, "SELECT settings FROM groups WHERE chat_id = ?", (chat_id,))
            stored = {**(json.loads(row[0]) if row else {}), **changes}
            await db.execute(
                "INSERT INTO groups (chat_id, settings, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET settings = excluded.settings,"
                " updated_at = excluded.updated_at",
                (chat_id, json.dumps(stored, sort_keys=True), _ms(self.clock())),
            )
        return rooms.with_defaults(stored)

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> bool:
        old_prefix, new_prefix = f"{old_chat_id}:", f"{new_chat_id}:"
        key_sql = "? || substr(table_key, ?)"  # the new prefix and the thread part of the key
        rekey = (new_prefix, len(old_prefix) + 1)
        own_key = "substr(table_key, 1, ?) = ?"
        owned = (len(old_prefix), old_prefix)
        moved = 0
        async with self._write() as db:
            row = await self._one(db, "SELECT settings FROM groups WHERE chat_id = ?",
                                  (old_chat_id,))
            if row is not None:
                newer = await self._one(db, "SELECT settings FROM groups WHERE chat_id = ?",
                                        (new_chat_id,))
                merged = {**json.loads(row[0]), **(json.loads(newer[0]) if newer else {})}
                await db.execute(
                    "INSERT INTO groups (chat_id, settings, updated_at) VALUES (?, ?, ?)"
                    " ON CONFLICT (chat_id) DO UPDATE SET settings = excluded.settings,"
                    " updated_at = excluded.updated_at",
                    (new_chat_id, json.dumps(merged, sort_keys=True), _ms(self.clock())),
                )
                await db.execute("DELETE FROM groups WHERE chat_id = ?", (old_chat_id,))
                moved += 1
            statements: list[tuple[str, tuple[Any, ...]]] = [
                (f"UPDATE OR IGNORE tables SET table_key = {key_sql},"
                 " data = json_set(data, '$.chat_id', ?) WHERE " + own_key,
                 (*rekey, new_chat_id, *owned)),
                (f"UPDATE deals SET chat_id = ?, table_key = CASE WHEN {own_key}"
                 f" THEN {key_sql} ELSE table_key END WHERE chat_id = ?",
                 (new_chat_id, *owned, *rekey, old_chat_id)),
                ("UPDATE deal_seats SET chat_id = ? WHERE chat_id = ?",
                 (new_chat_id, old_chat_id)),
                ("UPDATE deal_holds SET chat_id = ? WHERE chat_id = ?",
                 (new_chat_id, old_chat_id)),
                (f"UPDATE matches SET chat_id = ?, table_key = CASE WHEN {own_key}"
                 f" THEN {key_sql} ELSE table_key END WHERE chat_id = ?",
                 (new_chat_id, *owned, *rekey, old_chat_id)),
                ("UPDATE match_places SET chat_id = ? WHERE chat_id = ?",
                 (new_chat_id, old_chat_id)),
                # its message stays behind: the board is posted again in the supergroup
                ("UPDATE challenges SET chat_id = ?, message_id = NULL WHERE chat_id = ?",
                 (new_chat_id, old_chat_id)),
                ("INSERT INTO group_players (chat_id, user_id, games, wins, last_played_at,"
                 " balance, balance_changed_at) SELECT ?, user_id, games, wins, last_played_at,"
                 " balance, balance_changed_at FROM group_players WHERE chat_id = ?"
                 " ON CONFLICT (user_id, chat_id) DO UPDATE SET games = games + excluded.games,"
                 " wins = wins + excluded.wins,"
                 " last_played_at = MAX(last_played_at, excluded.last_played_at)",
                 (new_chat_id, old_chat_id)),
                ("DELETE FROM group_players WHERE chat_id = ?", (old_chat_id,)),
                ("INSERT OR IGNORE INTO posts (chat_id, kind, day, created_at)"
                 " SELECT ?, kind, day, created_at FROM posts WHERE chat_id = ?",
                 (new_chat_id, old_chat_id)),
                ("DELETE FROM posts WHERE chat_id = ?", (old_chat_id,)),
            ]
            for sql, params in statements:
                cursor = await db.execute(sql, params)
                moved += max(cursor.rowcount, 0)
        return moved > 0

    # Tables

    async def _put_table(self, db: aiosqlite.Connection, key: str, data: dict[str, Any]) -> None:
        await db.execute(
            "INSERT INTO tables (table_key, data, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (table_key) DO UPDATE SET data = excluded.data,"
            " updated_at = excluded.updated_at",
            (key, json.dumps(data), _ms(self.clock())),
        )

    async def save_table(self, table_key: str, data: dict[str, Any]) -> None:
        async with self._write() as db:
            await self._put_table(db, table_key, data)

    async def load_tables(self) -> dict[str, dict[str, Any]]:
        async with self._read() as db:
            rows = await db.execute_fetchall("SELECT table_key, data FROM tables")
        return {row[0]: json.loads(row[1]) for row in rows}

    async def delete_table(self, table_key: str) -> None:
        async with self._write() as db:
            await db.execute("DELETE FROM tables WHERE table_key = ?", (table_key,))

    # Deals

    async def create_deal(
        self,
        table_key: str,
        chat_id: int,
        seats: Sequence[SeatRecord],
        rules: dict[str, Any],
        stake: int,
        state_json: str,
        version: int = 0,
        *,
        match_id: int | None = None,
        replaces: int | None = None,
        table: dict[str, Any] | None = None,
        for_beans: bool = True,
    ) -> int:
        if stake < 1:
            raise ValueError("stake must be at least 1 bean per point")
        seats_text = seats_json(seats)
        humans = [seat.user_id for seat in seats if seat.user_id is not None]
        now = _ms(self.clock())
        async with self._write() as db:
            await self._require_players(db, humans)
            if replaces is not None:
                await self._cancel(db, replaces, None)
            row = await self._one(
                db,
                "INSERT INTO deals (table_key, chat_id, seats, rules, stake, state, version,"
                " created_at, match_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    table_key,
                    chat_id,
                    seats_text,
                    json.dumps(rules),
                    stake,
                    state_json,
                    version,
                    now,
                    match_id,
                ),
            )
            await db.executemany(
                "INSERT INTO deal_holds (deal_id, seat, user_id, chat_id, balance_at_start,"
                " created_at) SELECT ?, ?, user_id, ?, balance, ? FROM players WHERE user_id = ?",
                [
                    (row[0], seat_no, chat_id, now, seat.user_id)
                    for seat_no, seat in enumerate(seats)
                    if seat.user_id is not None and for_beans and match_id is None
                ],
            )
            if table is not None:
                await self._put_table(db, table_key, {**table, "deal_id": row[0]})
        return row[0]

    async def deal_hold(self, user_id: int) -> DealHold | None:
        async with self._read() as db:
            row = await self._hold(db, user_id)
        if row is None:
            return None
        return DealHold(row["deal_id"], row["chat_id"], row["table_key"], row["seat"],
                        row["balance_at_start"])

    async def _hold(self, db: aiosqlite.Connection, user_id: int) -> aiosqlite.Row | None:
        """The player's oldest hold of a running deal, with the deal's table key."""
        row: aiosqlite.Row | None = await self._one(
            db,
            "SELECT h.deal_id, h.chat_id, d.table_key, h.seat, h.balance_at_start"
            " FROM deal_holds h JOIN deals d ON d.id = h.deal_id"
            " WHERE h.user_id = ? ORDER BY h.deal_id LIMIT 1",
            (user_id,),
        )
        return row

    @staticmethod
    async def _release_holds(db: aiosqlite.Connection, deal_id: int) -> None:
        """Forget what a deal held back: call in the transaction that ends it."""
        await db.execute("DELETE FROM deal_holds WHERE deal_id = ?", (deal_id,))

    async def _require_players(self, db: aiosqlite.Connection, user_ids: Iterable[int]) -> None:
        wanted = set(user_ids)
        if not wanted:
            return
        marks = ",".join("?" * len(wanted))
        rows = await db.execute_fetchall(
            f"SELECT user_id FROM players WHERE user_id IN ({marks})", tuple(wanted)
        )
        missing = wanted - {row[0] for row in rows}
        if missing:
            raise UnknownPlayer(f"unknown players {sorted(missing)}")

    async def _running_deal(self, db: aiosqlite.Connection, deal_id: int) -> aiosqlite.Row:
        row = await self._one(db, "SELECT * FROM deals WHERE id = ?", (deal_id,))
        if row is None:
            raise UnknownDeal(f"unknown deal {deal_id}")
        if row["status"] != "running":
            raise DealNotRunning(f"deal {deal_id} is {row['status']}")
        return row

    async def save_deal_state(
        self, deal_id: int, version: int, state_json: str, table: dict[str, Any] | None = None
    ) -> None:
        async with self._write() as db:
            row = await self._running_deal(db, deal_id)
            if version <= row["version"]:
                raise StaleVersion(
                    f"deal {deal_id}: version {version} is not newer than {row['version']}"
                )
            await db.execute(
                "UPDATE deals SET state = ?, version = ? WHERE id = ?",
                (state_json, version, deal_id),
            )
            if table is not None:
                await self._put_table(db, row["table_key"], table)

    async def get_deal(self, deal_id: int) -> DealRecord:
        async with self._read() as db:
            row = await self._one(db, "SELECT * FROM deals WHERE id = ?", (deal_id,))
        if row is None:
            raise UnknownDeal(f"unknown deal {deal_id}")
        return deal_record(row)

    async def running_deals(self) -> list[DealRecord]:
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT * FROM deals WHERE status = 'running' ORDER BY id"
            )
        return [deal_record(row) for row in rows]

    async def settle_deal(
        self,
        deal_id: int,
        points: Sequence[int],
        state_json: str,
        facts: Sequence[SeatFacts] | None = None,
        *,
        version: int | None = None,
        table: dict[str, Any] | None = None,
    ) -> Settlement:
        async with self._write() as db:
            if table is not None:
                await self._put_table_of(db, deal_id, table)
            return await self._settle(db, deal_id, tuple(points), state_json, facts or None,
                                      version, beans_apply=True)

    async def _settle(
        self,
        db: aiosqlite.Connection,
        deal_id: int,
        points: tuple[int, ...],
        state_json: str,
        facts: Sequence[SeatFacts] | None,
        version: int | None,
        *,
        beans_apply: bool,
    ) -> Settlement:
        """Settle a deal inside a write transaction (see :meth:`Store.settle_deal`);
        ``beans_apply=False``: a match deal, every bean change is 0."""
        # the deal and its players' balances in one round trip: {"user id": balance}
        row = await self._one(
            db,
            "SELECT d.id, d.chat_id, d.seats, d.stake, d.status, d.version, d.result,"
            " (SELECT json_group_object(p.user_id, p.balance) FROM players p"
            "  WHERE p.user_id IN (SELECT value ->> 'user_id' FROM json_each(d.seats)))"
            " AS balances,"
            " (SELECT json_group_object(h.seat, h.balance_at_start) FROM deal_holds h"
            "  WHERE h.deal_id = d.id) AS holds"
            " FROM deals d WHERE d.id = ?",
            (deal_id,),
        )
        if row is None:
            raise UnknownDeal(f"unknown deal {deal_id}")
        if row["status"] == "settled":
            return repeated_settlement(deal_id, row["result"])
        if row["status"] != "running":
            raise DealNotRunning(f"deal {deal_id} is {row['status']}")
        seats = [SeatRecord(**seat) for seat in json.loads(row["seats"])]
        if len(points) != len(seats) or (facts is not None and len(facts) != len(seats)):
            raise ValueError(f"deal {deal_id} has {len(seats)} seats")
        if version is not None and version < row["version"]:
            raise StaleVersion(f"deal {deal_id}: version {version} < {row['version']}")
        humans = {seat.user_id for seat in seats if seat.user_id is not None}
        before = {int(user): balance for user, balance in json.loads(row["balances"]).items()}
        if len(before) != len(humans):
            raise UnknownPlayer(f"unknown players {sorted(humans - set(before))}")
        balances = [before[s.user_id] if s.user_id is not None else None for s in seats]
        if beans_apply:
            holds = {int(seat): held for seat, held in json.loads(row["holds"]).items()}
            beans = settle_beans(points, row["stake"], at_stake(balances, holds))
        else:
            if sum(points) != 0:
                raise ValueError(f"points must sum to zero, got {list(points)}")
            beans = [0] * len(seats)
        after = tuple(
            b + d if b is not None else None for b, d in zip(balances, beans, strict=True)
        )
        settlement = Settlement(deal_id, row["stake"], points, tuple(beans), after)
        await self._write_settlement(db, row, seats, settlement, facts, state_json, version)
        return settlement

    async def _write_settlement(
        self,
        db: aiosqlite.Connection,
        deal: aiosqlite.Row,
        seats: Sequence[SeatRecord],
        settlement: Settlement,
        facts: Sequence[SeatFacts] | None,
        state_json: str,
        version: int | None,
    ) -> None:
        now = _ms(self.clock())
        deal_id, chat_id = deal["id"], deal["chat_id"]
        await db.execute(
            "UPDATE deals SET status = 'settled', state = ?, version = COALESCE(?, version),"
            " result = ?, finished_at = ? WHERE id = ?",
            (state_json, version, json.dumps(settlement.to_dict()), now, deal_id),
        )
        await self._release_holds(db, deal_id)
        rows = settlement_rows(deal_id, chat_id, seats, settlement, facts, now)
        await db.executemany(
            "INSERT INTO deal_seats (deal_id, seat, user_id, chat_id, finished_at, role, won,"
            " points, beans, bombs, spring, escaped) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows.seats,
        )
        await db.executemany(
            "UPDATE players SET balance = balance + :beans,"
            " balance_changed_at = CASE WHEN :beans <> 0 THEN :now ELSE balance_changed_at END,"
            " games = games + 1, wins = wins + :won,"
            " landlord_games = landlord_games + :landlord,"
            " landlord_wins = landlord_wins + :landlord_won,"
            " farmer_games = farmer_games + :farmer,"
            " farmer_wins = farmer_wins + :farmer_won,"
            " springs = springs + :spring, bombs = bombs + :bombs,"
            " best_win = MAX(best_win, :beans),"
            " current_streak = CASE WHEN :won THEN current_streak + 1 ELSE 0 END,"
            " longest_streak = MAX(longest_streak,"
            "     CASE WHEN :won THEN current_streak + 1 ELSE 0 END)"
            " WHERE user_id = :user_id",
            rows.stats,
        )
        if rows.ledger:
            await db.executemany(
                "INSERT INTO ledger (user_id, amount, balance_after, reason, deal_id, chat_id,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows.ledger,
            )
        await db.executemany(
            "INSERT INTO group_players"
            " (chat_id, user_id, games, wins, last_played_at, balance, balance_changed_at)"
            " SELECT ?, user_id, 1, ?, ?, balance, balance_changed_at FROM players"
            " WHERE user_id = ? ON CONFLICT (user_id, chat_id) DO UPDATE"
            " SET games = games + 1, wins = wins + excluded.wins,"
            " last_played_at = excluded.last_played_at",
            rows.members,
        )

    async def cancel_deal(self, deal_id: int, state_json: str | None = None, *,
                          table: dict[str, Any] | None = None) -> bool:
        async with self._write() as db:
            cancelled = await self._cancel(db, deal_id, state_json)
            if table is not None:
                await self._put_table_of(db, deal_id, table)
        return cancelled

    async def _cancel(self, db: aiosqlite.Connection, deal_id: int,
                      state_json: str | None) -> bool:
        """Cancel a running deal in the caller's transaction (see :meth:`Store.cancel_deal`)."""
        row = await self._one(db, "SELECT status FROM deals WHERE id = ?", (deal_id,))
        if row is None:
            raise UnknownDeal(f"unknown deal {deal_id}")
        if row[0] == "cancelled":
            return False
        if row[0] != "running":
            raise DealNotRunning(f"deal {deal_id} is {row[0]}")
        await db.execute(
            "UPDATE deals SET status = 'cancelled', state = COALESCE(?, state),"
            " finished_at = ? WHERE id = ?",
            (state_json, _ms(self.clock()), deal_id),
        )
        await self._release_holds(db, deal_id)
        return True

    async def _put_table_of(self, db: aiosqlite.Connection, deal_id: int,
                            table: dict[str, Any]) -> None:
        """Store ``table`` under the key of deal ``deal_id``'s table (its end's transaction)."""
        row = await self._one(db, "SELECT table_key FROM deals WHERE id = ?", (deal_id,))
        if row is None:
            raise UnknownDeal(f"unknown deal {deal_id}")
        await self._put_table(db, row[0], table)

    # Matches

    async def start_match(
        self,
        table_key: str,
        chat_id: int,
        format: str,
        options: dict[str, Any],
        seats: Sequence[SeatRecord],
        entry_fee: int,
        state_json: str,
    ) -> int:
        if isinstance(entry_fee, bool) or not isinstance(entry_fee, int) or entry_fee < 0:
            raise ValueError("the entry fee must be a whole number of beans ≥ 0")
        if len(seats) < 2:
            raise ValueError("a match needs at least two seats")
        humans = [seat.user_id for seat in seats if seat.user_id is not None]
        if len(set(humans)) != len(humans):
            raise ValueError("a player may hold only one seat of a match")
        seats_json = json.dumps(
            [{"user_id": s.user_id, "name": s.name, "is_bot": s.is_bot} for s in seats]
        )
        now = _ms(self.clock())
        async with self._write() as db:
            await self._require_players(db, humans)
            if entry_fee:
                held = [uid for uid in humans if await self._hold(db, uid) is not None]
                if held:
                    raise MatchRefused("match_held", "beans held by a running deal", tuple(held))
                short = [uid for uid in humans if await self._balance(db, uid) < entry_fee]
                if short:
                    raise MatchRefused("match_fee", "not enough beans for the entry fee",
                                       tuple(short))
            row = await self._one(
                db,
                "INSERT INTO matches (table_key, chat_id, format, options, seats, entry_fee,"
                " pool, state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (table_key, chat_id, format, json.dumps(options), seats_json, entry_fee,
                 entry_fee * len(humans), state_json, now),
            )
            match_id: int = row[0]
            if entry_fee:
                for uid in humans:
                    await self._move_beans(db, uid, -entry_fee, LedgerReason.MATCH, now,
                                           chat_id=chat_id, match_id=match_id)
        return match_id

    async def _match_row(self, db: aiosqlite.Connection, match_id: int) -> aiosqlite.Row:
        row = await self._one(db, "SELECT * FROM matches WHERE id = ?", (match_id,))
        if row is None:
            raise UnknownMatch(f"unknown match {match_id}")
        return row

    async def get_match(self, match_id: int) -> MatchRecord:
        async with self._read() as db:
            return match_record(await self._match_row(db, match_id))

    async def running_matches(self) -> list[MatchRecord]:
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT * FROM matches WHERE status = 'running' ORDER BY id"
            )
        return [match_record(row) for row in rows]

    async def settle_match_deal(
        self,
        match_id: int,
        deal_id: int,
        points: Sequence[int],
        state_json: str,
        match_state_json: str,
        facts: Sequence[SeatFacts] | None = None,
        *,
        version: int | None = None,
        table: dict[str, Any] | None = None,
    ) -> Settlement:
        async with self._write() as db:
            row = await self._match_row(db, match_id)
            deal = await self._one(db, "SELECT match_id FROM deals WHERE id = ?", (deal_id,))
            if deal is None:
                raise UnknownDeal(f"unknown deal {deal_id}")
            if deal[0] != match_id:
                raise ValueError(f"deal {deal_id} is not a deal of match {match_id}")
            if table is not None:
                await self._put_table_of(db, deal_id, table)
            settlement = await self._settle(db, deal_id, tuple(points), state_json,
                                            facts or None, version, beans_apply=False)
            if not settlement.repeated:
                if row["status"] != "running":
                    raise MatchNotRunning(f"match {match_id} is {row['status']}", row["status"])
                await db.execute("UPDATE matches SET state = ? WHERE id = ?",
                                 (match_state_json, match_id))
        return settlement

    async def finish_match(
        self,
        match_id: int,
        paid: Sequence[int],
        places: Sequence[int],
        won: Sequence[bool],
        result: dict[str, Any],
        state_json: str | None = None,
    ) -> MatchPayout:
        paid = tuple(paid)
        async with self._write() as db:
            row = await self._match_row(db, match_id)
            if row["status"] == "finished":
                return MatchPayout(match_id, tuple(json.loads(row["result"])["paid"]), True)
            if row["status"] != "running":
                raise MatchNotRunning(f"match {match_id} is {row['status']}", row["status"])
            seats = [SeatRecord(**seat) for seat in json.loads(row["seats"])]
            if not len(paid) == len(places) == len(won) == len(seats):
                raise ValueError(f"match {match_id} has {len(seats)} seats")
            if any(p < 0 for p in paid) or sum(paid) != row["pool"]:
                raise ValueError(f"the payout {list(paid)} is not the pool of {row['pool']}")
            if any(p and s.user_id is None for p, s in zip(paid, seats, strict=True)):
                raise ValueError("a bot seat wins no prize")
            now = _ms(self.clock())
            for seat, amount in zip(seats, paid, strict=True):
                if amount and seat.user_id is not None:
                    await self._move_beans(db, seat.user_id, amount, LedgerReason.MATCH, now,
                                           chat_id=row["chat_id"], match_id=match_id)
            await db.executemany(
                "INSERT INTO match_places (match_id, seat, user_id, chat_id, place, won, prize,"
                " finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(match_id, n, seat.user_id, row["chat_id"], places[n], bool(won[n]), paid[n],
                  now) for n, seat in enumerate(seats) if seat.user_id is not None],
            )
            await db.execute(
                "UPDATE matches SET status = 'finished', result = ?, finished_at = ?,"
                " state = COALESCE(?, state) WHERE id = ?",
                (json.dumps({**result, "paid": list(paid)}), now, state_json, match_id),
            )
        return MatchPayout(match_id, paid)

    async def cancel_match(self, match_id: int) -> MatchPayout:
        async with self._write() as db:
            row = await self._match_row(db, match_id)
            seats = [SeatRecord(**seat) for seat in json.loads(row["seats"])]
            refunds = tuple(row["entry_fee"] if s.user_id is not None else 0 for s in seats)
            if row["status"] == "cancelled":
                return MatchPayout(match_id, refunds, True)
            if row["status"] != "running":
                raise MatchNotRunning(f"match {match_id} is {row['status']}", row["status"])
            now = _ms(self.clock())
            for seat, amount in zip(seats, refunds, strict=True):
                if amount and seat.user_id is not None:
                    await self._move_beans(db, seat.user_id, amount, LedgerReason.MATCH, now,
                                           chat_id=row["chat_id"], match_id=match_id)
            await db.execute(
                "UPDATE matches SET status = 'cancelled', finished_at = ? WHERE id = ?",
                (now, match_id),
            )
            running = await db.execute_fetchall(
                "SELECT id FROM deals WHERE match_id = ? AND status = 'running'", (match_id,))
            for (deal_id,) in running:
                await db.execute(
                    "UPDATE deals SET status = 'cancelled', finished_at = ? WHERE id = ?",
                    (now, deal_id))
                await self._release_holds(db, deal_id)
        return MatchPayout(match_id, refunds)

    async def match_ledger(self, match_id: int) -> list[LedgerEntry]:
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT * FROM ledger WHERE match_id = ? ORDER BY id", (match_id,))
        return [ledger_entry(row) for row in rows]

    async def match_stats(self, user_id: int) -> MatchStats:
        async with self._read() as db:
            row = await self._one(
                db, "SELECT COUNT(*), COALESCE(SUM(won), 0) FROM match_places WHERE user_id = ?",
                (user_id,))
        return MatchStats(row[0], row[1])

    async def match_leaderboard(
        self, chat_id: int, period: Period = "all", tz: str | None = None, limit: int = 10
    ) -> list[LeaderboardRow]:
        if period not in PERIODS:
            raise ValueError(f"unknown period {period!r}")
        if limit < 1:
            raise ValueError("limit must be at least 1")
        async with self._read() as db:
            where, params = "m.chat_id = ?", [chat_id]
            if period != "all":
                zone = tz or await self._timezone(db, chat_id)
                start, end = bounded(period, self.clock(), zone)
                where += " AND m.finished_at >= ? AND m.finished_at < ?"
                params += [_ms(start), _ms(end)]
            rows = await db.execute_fetchall(
                "SELECT m.user_id, p.name, SUM(m.won) AS match_wins, COUNT(*) AS match_games,"
                " MIN(CASE WHEN m.won THEN m.finished_at END) AS first_win"
                f" FROM match_places m JOIN players p ON p.user_id = m.user_id WHERE {where}"
                " GROUP BY m.user_id HAVING SUM(m.won) > 0"
                " ORDER BY match_wins DESC, match_games, first_win, m.user_id LIMIT ?",
                (*params, limit),
            )
        return [LeaderboardRow(rank, row[0], row[1], row[2], row[3], row[2])
                for rank, row in enumerate(rows, start=1)]

    # Economy

    # Duplicate challenges

    async def open_challenge(
        self,
        chat_id: int,
        thread_id: int | None,
        opener_id: int,
        options: dict[str, Any],
        entry_fee: int,
        seed: str,
        seed_hash: str,
        closes_at: datetime,
        *,
        daily: str | None = None,
    ) -> int:
        if isinstance(entry_fee, bool) or not isinstance(entry_fee, int) or entry_fee < 0:
            raise ValueError("the entry fee must be a whole number of beans ≥ 0")
        async with self._write() as db:
            if await self._one(db, "SELECT 1 FROM challenges WHERE chat_id = ?"
                               " AND status = 'open'", (chat_id,)) is not None:
                raise ChallengeRefused("challenge_open", "the chat has an open challenge")
            if daily is not None and await self._one(
                    db, "SELECT 1 FROM challenges WHERE chat_id = ? AND daily = ?",
                    (chat_id, daily)) is not None:
                raise ChallengeRefused("challenge_daily", "that day's daily challenge exists")
            row = await self._one(
                db,
                "INSERT INTO challenges (chat_id, thread_id, opener_id, options, seed, seed_hash,"
                " entry_fee, daily, created_at, closes_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " RETURNING id",
                (chat_id, thread_id, opener_id, json.dumps(options), seed, seed_hash, entry_fee,
                 daily, _ms(self.clock()), _ms(closes_at)),
            )
        challenge_id: int = row[0]
        return challenge_id

    async def _challenge_row(self, db: aiosqlite.Connection,
                             challenge_id: int) -> aiosqlite.Row:
        row = await self._one(db, "SELECT * FROM challenges WHERE id = ?", (challenge_id,))
        if row is None:
            raise UnknownChallenge(f"unknown challenge {challenge_id}")
        return row

    async def get_challenge(self, challenge_id: int) -> ChallengeRecord:
        async with self._read() as db:
            return challenge_record(await self._challenge_row(db, challenge_id))

    async def open_challenges(self) -> list[ChallengeRecord]:
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT * FROM challenges WHERE status = 'open' ORDER BY id")
        return [challenge_record(row) for row in rows]

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        async with self._write() as db:
            await self._challenge_row(db, challenge_id)
            await db.execute("UPDATE challenges SET message_id = ? WHERE id = ?",
                             (message_id, challenge_id))

    async def enter_challenge(self, challenge_id: int, user_id: int, name: str) -> ChallengeEntry:
        name = clean_name(name) or str(user_id)
        now = _ms(self.clock())
        async with self._write() as db:
            row = await self._challenge_row(db, challenge_id)
            await self._require_players(db, [user_id])
            if row["status"] != "open" or now >= row["closes_at"]:
                raise ChallengeRefused("challenge_closed", "the challenge is closed")
            if await self._one(db, "SELECT 1 FROM challenge_entries WHERE challenge_id = ?"
                               " AND user_id = ?", (challenge_id, user_id)) is not None:
                raise ChallengeRefused("challenge_entered", "entered before")
            fee = row["entry_fee"]
            if fee:
                if await self._hold(db, user_id) is not None:
                    raise ChallengeRefused("challenge_held", "beans held by a running deal")
                if await self._balance(db, user_id) < fee:
                    raise ChallengeRefused("challenge_fee", "not enough beans for the fee")
                await self._move_beans(db, user_id, -fee, LedgerReason.CHALLENGE, now,
                                       chat_id=row["chat_id"], challenge_id=challenge_id)
                await db.execute("UPDATE challenges SET pool = pool + ? WHERE id = ?",
                                 (fee, challenge_id))
            await db.execute(
                "INSERT INTO challenge_entries (challenge_id, user_id, name, entered_at)"
                " VALUES (?, ?, ?, ?)", (challenge_id, user_id, name, now))
        return ChallengeEntry(user_id, name, dt(now))

    async def challenge_entries(self, challenge_id: int) -> list[ChallengeEntry]:
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT * FROM challenge_entries WHERE challenge_id = ?"
                " ORDER BY entered_at, user_id", (challenge_id,))
        return [challenge_entry(row) for row in rows]

    async def challenge_plays(self, challenge_id: int) -> list[ChallengePlay]:
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT * FROM challenge_plays WHERE challenge_id = ?"
                " ORDER BY finished_at, deal, user_id", (challenge_id,))
        return [challenge_play(row) for row in rows]

    async def finish_challenge_deal(
        self,
        challenge_id: int,
        user_id: int,
        deal: int,
        deal_id: int,
        points: int,
        landlord_won: bool,
        state_json: str,
        *,
        table: dict[str, Any] | None = None,
    ) -> bool:
        now = _ms(self.clock())
        async with self._write() as db:
            row = await self._challenge_row(db, challenge_id)
            if await self._one(db, "SELECT 1 FROM challenge_entries WHERE challenge_id = ?"
                               " AND user_id = ?", (challenge_id, user_id)) is None:
                raise ValueError(f"user {user_id} did not enter challenge {challenge_id}")
            if table is not None:
                await self._put_table_of(db, deal_id, table)
            await self._cancel(db, deal_id, state_json)
            if await self._one(db, "SELECT 1 FROM challenge_plays WHERE challenge_id = ?"
                               " AND user_id = ? AND deal = ?",
                               (challenge_id, user_id, deal)) is not None:
                return False
            if row["status"] != "open":
                raise ChallengeNotOpen(f"challenge {challenge_id} is closed")
            await db.execute(
                "INSERT INTO challenge_plays (challenge_id, user_id, deal, deal_id, points,"
                " landlord_won, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (challenge_id, user_id, deal, deal_id, points, int(landlord_won), now))
        return True

    async def close_challenge(
        self, challenge_id: int, paid: Mapping[int, int], result: dict[str, Any]
    ) -> ChallengePayout:
        paid = {uid: amount for uid, amount in paid.items() if amount}
        async with self._write() as db:
            row = await self._challenge_row(db, challenge_id)
            if row["status"] == "closed":
                stored = json.loads(row["result"])["paid"]
                return ChallengePayout(challenge_id, {int(k): v for k, v in stored.items()},
                                       True)
            entrants = {r[0] for r in await db.execute_fetchall(
                "SELECT user_id FROM challenge_entries WHERE challenge_id = ?",
                (challenge_id,))}
            if any(amount < 0 for amount in paid.values()) \
                    or sum(paid.values()) != row["pool"]:
                raise ValueError(f"the payout {paid} is not the pool of {row['pool']}")
            if set(paid) - entrants:
                raise ValueError("only members who entered are paid")
            now = _ms(self.clock())
            for uid in sorted(paid):
                await self._move_beans(db, uid, paid[uid], LedgerReason.CHALLENGE, now,
                                       chat_id=row["chat_id"], challenge_id=challenge_id)
            await db.execute(
                "UPDATE challenges SET status = 'closed', result = ?, closed_at = ?"
                " WHERE id = ?",
                (json.dumps({**result, "paid": {str(k): v for k, v in paid.items()}}), now,
                 challenge_id))
        return ChallengePayout(challenge_id, paid)

    async def announce_challenge(self, challenge_id: int) -> bool:
        async with self._write() as db:
            cursor = await db.execute(
                "UPDATE challenges SET announced = 1 WHERE id = ? AND status = 'closed'"
                " AND announced IN (0, 2)", (challenge_id,))
        return cursor.rowcount == 1

    async def claim_announcement(self, challenge_id: int, seconds: float = 120.0) -> bool:
        now = self.clock()
        async with self._write() as db:
            cursor = await db.execute(
                "UPDATE challenges SET announced = 2, announce_until = ? WHERE id = ?"
                " AND status = 'closed' AND (announced = 0"
                " OR (announced = 2 AND coalesce(announce_until, 0) <= ?))",
                (_ms(now + timedelta(seconds=seconds)), challenge_id, _ms(now)))
        return cursor.rowcount == 1

    async def release_announcement(self, challenge_id: int) -> None:
        async with self._write() as db:
            await db.execute(
                "UPDATE challenges SET announced = 0 WHERE id = ? AND announced = 2",
                (challenge_id,))

    async def unannounced_challenges(self, *, claimed: bool = False) -> list[ChallengeRecord]:
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT * FROM challenges WHERE status = 'closed' AND (announced = 0"
                " OR (announced = 2 AND (? OR coalesce(announce_until, 0) <= ?))) ORDER BY id",
                (claimed, _ms(self.clock())))
        return [challenge_record(row) for row in rows]

    async def daily_challenge_groups(self) -> list[int]:
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT chat_id, settings FROM groups WHERE settings LIKE '%daily_challenge%'"
                " ORDER BY chat_id")
        return [chat_id for chat_id, text in rows
                if rooms.with_defaults(json.loads(text))["daily_challenge"]]

    async def challenge_ledger(self, challenge_id: int) -> list[LedgerEntry]:
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT * FROM ledger WHERE challenge_id = ? ORDER BY id", (challenge_id,))
        return [ledger_entry(row) for row in rows]

    async def claim_daily(self, user_id: int, chat_id: int | None = None) -> Claim:
        async with self._write() as db:
            now = self.clock()
            day = player_day(now)
            await self._balance(db, user_id)
            last = await self._last_claim(db, user_id, "daily", day)
            continues = last is not None and last[0] == day - timedelta(days=1)
            streak = last[1] + 1 if last and continues else 1
            amount = self.economy.daily_amount(streak)
            return await self._grant(db, user_id, "daily", day, amount, streak, chat_id, now)

    async def claim_relief(self, user_id: int, chat_id: int | None = None) -> Claim:
        async with self._write() as db:
            now = self.clock()
            day = player_day(now)
            amount = self.economy.relief_amount(await self._balance(db, user_id))
            if amount <= 0:
                raise NotEligible(f"relief needs a balance below {self.economy.relief_below} beans")
            await self._last_claim(db, user_id, "relief", day)
            return await self._grant(db, user_id, "relief", day, amount, 1, chat_id, now)

    async def _balance(self, db: aiosqlite.Connection, user_id: int) -> int:
        row = await self._one(db, "SELECT balance FROM players WHERE user_id = ?", (user_id,))
        if row is None:
            raise UnknownPlayer(f"unknown player {user_id}")
        return row[0]

    async def _last_claim(
        self, db: aiosqlite.Connection, user_id: int, kind: str, day: date
    ) -> tuple[date, int] | None:
        """The last claim of this kind (day, streak); raises ``AlreadyClaimed`` unless ``day`` is
        later."""
        row = await self._one(
            db,
            "SELECT day, streak FROM claims WHERE user_id = ? AND kind = ?"
            " ORDER BY day DESC LIMIT 1",
            (user_id, kind),
        )
        if row is None:
            return None
        last = date.fromisoformat(row[0])
        if last >= day:
            raise AlreadyClaimed(f"{kind} already claimed for {last}", last + timedelta(days=1))
        return last, row[1]

    async def _grant(
        self,
        db: aiosqlite.Connection,
        user_id: int,
        kind: str,
        day: date,
        amount: int,
        streak: int,
        chat_id: int | None,
        now: datetime,
    ) -> Claim:
        await db.execute(
            "INSERT INTO claims (user_id, kind, day, amount, streak, chat_id, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (user_id, kind, day.isoformat(), amount, streak, chat_id, _ms(now)),
        )
        balance = await self._move_beans(
            db, user_id, amount, LedgerReason(kind), _ms(now), chat_id=chat_id
        )
        return Claim(amount, balance, day, streak)

    async def give(self, giver_id: int, receiver_id: int, amount: int, chat_id: int) -> Gift:
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
            raise GiveRefused("give_invalid_amount", "the amount must be a whole number ≥ 1")
        if giver_id == receiver_id:
            raise GiveRefused("give_same_player", "a player cannot give to themselves")
        async with self._write() as db:
            settings = await self._settings(db, chat_id)
            if not settings["give_enabled"]:
                raise GiveRefused("give_disabled", "/give is off in this group")
            await self._require_players(db, (giver_id, receiver_id))
            if await self._hold(db, giver_id) is not None:
                raise GiveRefused("give_in_deal", "the giver sits at a running deal")
            now = self.clock()
            day = player_day(now).isoformat()
            given = await self._one(
                db,
                "SELECT COALESCE(SUM(amount), 0) FROM gives WHERE giver_id = ? AND day = ?",
                (giver_id, day),
            )
            remaining = max(self.economy.give_daily_limit - given[0], 0)
            if amount > await self._balance(db, giver_id):  # first: no limit would let it through
                raise GiveRefused("give_insufficient", "not enough beans")
            if amount > remaining:
                raise GiveRefused(
                    "give_limit", f"only {remaining} more beans may be given today", remaining
                )
            await db.execute(
                "INSERT INTO gives (giver_id, receiver_id, amount, chat_id, day, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (giver_id, receiver_id, amount, chat_id, day, _ms(now)),
            )
            giver_balance = await self._move_beans(
                db, giver_id, -amount, LedgerReason.GIVE, _ms(now), chat_id=chat_id
            )
            receiver_balance = await self._move_beans(
                db, receiver_id, amount, LedgerReason.GIVE, _ms(now), chat_id=chat_id
            )
        return Gift(amount, giver_balance, receiver_balance, remaining - amount)

    async def ledger(self, user_id: int, limit: int = 20) -> list[LedgerEntry]:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT * FROM ledger WHERE user_id = ? ORDER BY id DESC LIMIT ?",
                (user_id, limit),
            )
        return [ledger_entry(row) for row in rows]

    async def leaderboard(
        self,
        chat_id: int | None,
        period: Period = "today",
        tz: str | None = None,
        limit: int = 10,
    ) -> list[LeaderboardRow]:
        if period not in PERIODS:
            raise ValueError(f"unknown period {period!r}")
        if limit < 1:
            raise ValueError("limit must be at least 1")
        async with self._read() as db:
            if period == "all":
                rows = await self._balance_board(db, chat_id, limit)
            else:
                zone = tz or await self._timezone(db, chat_id)
                start, end = bounded(period, self.clock(), zone)
                rows = await self._net_board(db, chat_id, _ms(start), _ms(end), limit)
        return [
            LeaderboardRow(rank, row[0], row[1], row[2], row[3], row[4])
            for rank, row in enumerate(rows, start=1)
        ]

    @staticmethod
    async def _balance_board(
        db: aiosqlite.Connection, chat_id: int | None, limit: int
    ) -> Iterable[aiosqlite.Row]:
        if chat_id is None:
            return await db.execute_fetchall(
                "SELECT user_id, name, balance, games, wins FROM players"
                " ORDER BY balance DESC, games, balance_changed_at, user_id LIMIT ?",
                (limit,),
            )
        return await db.execute_fetchall(
            "SELECT g.user_id, p.name, g.balance, g.games, g.wins FROM group_players g"
            " JOIN players p ON p.user_id = g.user_id WHERE g.chat_id = ?"
            " ORDER BY g.balance DESC, g.games, g.balance_changed_at, g.user_id LIMIT ?",
            (chat_id, limit),
        )

    @staticmethod
    async def _net_board(
        db: aiosqlite.Connection, chat_id: int | None, start: int, end: int, limit: int
    ) -> Iterable[aiosqlite.Row]:
        where = "s.finished_at >= ? AND s.finished_at < ? AND s.user_id IS NOT NULL"
        params: tuple[Any, ...] = (start, end, limit)
        if chat_id is not None:
            where = "s.chat_id = ? AND " + where
            params = (chat_id, *params)
        return await db.execute_fetchall(
            "SELECT t.user_id, p.name, t.net, t.games, t.wins FROM ("
            "  SELECT s.user_id, SUM(s.beans) AS net, COUNT(*) AS games, SUM(s.won) AS wins,"
            "  MAX(s.finished_at) AS last_at FROM deal_seats s"
            f"  WHERE {where} GROUP BY s.user_id"
            "  ORDER BY net DESC, games, last_at, s.user_id LIMIT ?"
            ") t JOIN players p ON p.user_id = t.user_id"
            " ORDER BY t.net DESC, t.games, t.last_at, t.user_id",
            params,
        )

    async def player_stats(self, user_id: int, chat_id: int | None = None) -> PlayerStats:
        async with self._read() as db:
            row = await self._one(db, "SELECT * FROM players WHERE user_id = ?", (user_id,))
            if row is None:
                raise UnknownPlayer(f"unknown player {user_id}")
            rank = await self._rank(db, row, chat_id)
        return player_stats(row, rank)

    async def _rank(
        self, db: aiosqlite.Connection, player: aiosqlite.Row, chat_id: int | None
    ) -> int | None:
        """Position by balance with the leaderboard's tie rules (1 = first), in the group's
        players or among all players; ``None`` if the player has not played in the group.

        Two index range counts (higher balance; same balance and ahead on the tie rules) are
        much faster in SQLite than one count with ``OR``."""
        if chat_id is None:
            row, table, scope = player, "players", ""
        else:
            row = await self._one(
                db,
                "SELECT balance, games, balance_changed_at, user_id FROM group_players"
                " WHERE chat_id = ? AND user_id = ?",
                (chat_id, player["user_id"]),
            )
            if row is None:
                return None
            table, scope = "group_players", "chat_id = :chat_id AND"
        count = await self._one(
            db,
            f"SELECT (SELECT COUNT(*) FROM {table} WHERE {scope} balance > :balance)"
            f" + (SELECT COUNT(*) FROM {table} WHERE {scope} balance = :balance"
            "     AND (games, balance_changed_at, user_id) < (:games, :changed, :user_id))",
            {
                "chat_id": chat_id,
                "balance": row["balance"],
                "games": row["games"],
                "changed": row["balance_changed_at"],
                "user_id": row["user_id"],
            },
        )
        return count[0] + 1

    async def daily_posts_due(self, kind: str = "daily_top") -> list[tuple[int, date]]:
        now = self.clock()
        since = now - DAILY_POST_LOOKBACK
        async with self._read() as db:
            finished = await db.execute_fetchall(
                "SELECT chat_id, finished_at FROM deals"
                " WHERE status = 'settled' AND finished_at >= ?",
                (_ms(since),),
            )
            chats = {chat_id for chat_id, _ in finished}
            marks = ",".join("?" * len(chats))
            stored = await db.execute_fetchall(
                f"SELECT chat_id, settings FROM groups WHERE chat_id IN ({marks})", tuple(chats)
            )
            posted = await db.execute_fetchall(
                "SELECT chat_id, day FROM posts WHERE kind = ? AND day >= ?",
                (kind, (since.date() - timedelta(days=1)).isoformat()),
            )
        return posts_due(
            now,
            [(chat_id, at) for chat_id, at in finished],
            {chat_id: text for chat_id, text in stored},
            [(chat_id, day) for chat_id, day in posted],
        )

    async def mark_posted(self, chat_id: int, day: date, kind: str = "daily_top") -> bool:
        async with self._write() as db:
            cursor = await db.execute(
                "INSERT OR IGNORE INTO posts (chat_id, kind, day, created_at) VALUES (?, ?, ?, ?)",
                (chat_id, kind, day.isoformat(), _ms(self.clock())),
            )
            return cursor.rowcount == 1

    async def totals(self) -> Totals:
        marks = ",".join("?" * len(GRANT_REASONS))
        async with self._read() as db:
            row = await self._one(
                db,
                "SELECT (SELECT COALESCE(SUM(balance), 0) FROM players),"
                " (SELECT COALESCE(SUM(amount), 0) FROM ledger),"
                f" (SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE reason IN ({marks})),"
                " (SELECT -COALESCE(SUM(amount), 0) FROM ledger"
                " WHERE reason IN ('match', 'challenge'))",
                tuple(str(r) for r in GRANT_REASONS),
            )
        return Totals(row[0], row[1], row[2], row[3])

    # Several workers

    async def schedule_timer(self, key: str, due: datetime, payload: dict[str, Any]) -> int:
        async with self._write() as db:
            row = await self._one(
                db,
                "INSERT INTO timers (key, due_at, payload, generation) VALUES (?, ?, ?, 1)"
                " ON CONFLICT (key) DO UPDATE SET due_at = excluded.due_at,"
                " payload = excluded.payload, generation = timers.generation + 1,"
                " claimed_by = NULL, claimed_until = NULL RETURNING generation",
                (key, _ms(due), json.dumps(payload)),
            )
        return int(row[0])

    async def cancel_timer(self, key: str) -> bool:
        async with self._write() as db:
            cursor = await db.execute("DELETE FROM timers WHERE key = ?", (key,))
            return cursor.rowcount == 1

    async def claim_timers(
        self, worker: str, *, limit: int = 20, lease: float = 30.0
    ) -> list[TimerRecord]:
        if limit < 1 or lease <= 0:
            raise ValueError("limit must be at least 1 and lease positive")
        now = self.clock()
        async with self._write() as db:  # one writer at a time: claims never overlap
            rows = await db.execute_fetchall(
                "UPDATE timers SET claimed_by = ?, claimed_until = ? WHERE key IN ("
                " SELECT key FROM timers WHERE due_at <= ?"
                " AND (claimed_until IS NULL OR claimed_until <= ?)"
                " ORDER BY due_at, key LIMIT ?) RETURNING *",
                (worker, _ms(now + timedelta(seconds=lease)), _ms(now), _ms(now), limit),
            )
        return sorted(map(timer_record, rows), key=lambda t: (t.due_at, t.key))

    async def finish_timer(self, timer: TimerRecord) -> bool:
        async with self._write() as db:
            cursor = await db.execute(
                "DELETE FROM timers WHERE key = ? AND generation = ? AND claimed_by = ?",
                (timer.key, timer.generation, timer.claimed_by),
            )
            return cursor.rowcount == 1

    async def store_update(self, update_id: int, body: str) -> bool:
        now = _ms(self.clock())
        async with self._write() as db:
            cursor = await db.execute(
                "INSERT INTO inbox (update_id, body, received_at, claimed_by, claimed_until)"
                " VALUES (?, ?, ?, 'polling', ?) ON CONFLICT DO NOTHING",
                (update_id, body, now, now))
            return cursor.rowcount == 1

    async def finish_update(self, update_id: int) -> None:
        async with self._write() as db:
            await db.execute("UPDATE inbox SET done_at = ? WHERE update_id = ?",
                             (_ms(self.clock()), update_id))

    async def pending_updates(self) -> list[tuple[int, str]]:
        async with self._read() as db:
            rows = await db.execute_fetchall(
                "SELECT update_id, body FROM inbox WHERE done_at IS NULL ORDER BY update_id")
        return [(int(row[0]), str(row[1])) for row in rows]

    async def forget_done_updates(self, before: datetime) -> int:
        async with self._write() as db:
            cursor = await db.execute("DELETE FROM inbox WHERE done_at < ?", (_ms(before),))
            return cursor.rowcount
