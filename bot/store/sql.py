"""The store, once for both databases: SQLite (one bot process) and PostgreSQL (several workers).

Every statement is written once, in PostgreSQL's syntax; :mod:`bot.store.dialect` runs it on the
backend the store was opened on and holds the few real differences (placeholders, row locks,
arrays, advisory locks). Each method that writes runs in one transaction and first locks the
rows it decides on, with ``SELECT … FOR UPDATE``: the player rows whose balance it reads (always
in user id order, so two transactions never wait for each other in a circle), the deal row it
settles, cancels or advances. On PostgreSQL (READ COMMITTED) a second ``/daily`` press, in this
process or in another worker, waits for the first one's commit and then sees its claim; a
second settlement of a deal waits and then finds it settled. On SQLite the locks are nothing: a
write transaction (``BEGIN IMMEDIATE``) has the whole file to itself, and one ``asyncio.Lock``
lets one read or write of the process run at a time. A refusal raises before the commit and
rolls everything back, and so does cancellation.

The schema is ``bot/store/migrations/`` (the same numbers and tables on both databases); what
the store shares with the tests and benchmarks beyond its SQL is :mod:`bot.store.rows`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

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
from bot.store.dialect import (
    Backend,
    Conflict,
    Conn,
    PostgresBackend,
    SQLiteBackend,
)
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


class SQLStore(Store):
    """:class:`~bot.store.base.Store` on a SQL database (see the module docstring); opened as
    :class:`SQLiteStore` or :class:`PostgresStore`."""

    def __init__(self, backend: Backend, economy: EconomyRules, clock: Clock) -> None:
        self._backend = backend
        self.economy = economy
        self.clock = clock

    async def close(self) -> None:
        await self._backend.close()

    def _read(self) -> AbstractAsyncContextManager[Conn]:
        """A connection for queries."""
        read: AbstractAsyncContextManager[Conn] = self._backend.read()
        return read

    def _write(self) -> AbstractAsyncContextManager[Conn]:
        """One transaction; any error, cancellation included, rolls it back."""
        write: AbstractAsyncContextManager[Conn] = self._backend.write()
        return write

    async def _move_beans(
        self,
        conn: Conn,
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
        balance = await conn.fetchval(
            "UPDATE players SET balance = balance + $2, balance_changed_at = $3"
            " WHERE user_id = $1 RETURNING balance",
            user_id, amount, now,
        )
        if balance is None:
            raise UnknownPlayer(f"unknown player {user_id}")
        await conn.execute(
            "INSERT INTO ledger (user_id, amount, balance_after, reason, deal_id, chat_id,"
            " created_at, match_id, challenge_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            user_id, amount, balance, str(reason), deal_id, chat_id, now, match_id, challenge_id,
        )
        return int(balance)

    @staticmethod
    async def _lock_players(conn: Conn, user_ids: Iterable[int]) -> dict[int, int]:
        """Lock the players' rows (in user id order) for this transaction; their balances.

        Raises:
            UnknownPlayer: one of them does not exist.
        """
        wanted = sorted(set(user_ids))
        if not wanted:
            return {}
        rows = await conn.fetch(
            "SELECT user_id, balance FROM players WHERE user_id = ANY($1::bigint[])"
            " ORDER BY user_id FOR UPDATE",
            wanted,
        )
        balances = {row["user_id"]: row["balance"] for row in rows}
        missing = set(wanted) - set(balances)
        if missing:
            raise UnknownPlayer(f"unknown players {sorted(missing)}")
        return balances

    async def _settings(self, conn: Conn, chat_id: int | None) -> dict[str, Any]:
        if chat_id is None:
            return rooms.with_defaults({})
        text = await conn.fetchval("SELECT settings FROM groups WHERE chat_id = $1", chat_id)
        return rooms.with_defaults(json.loads(text) if text else {})

    # Players

    async def ensure_player(self, user_id: int, name: str, language: str | None = None) -> Player:
        name = clean_name(name) or str(user_id)
        player = await self.get_player(user_id)
        if player and player.name == name and language in (None, player.language):
            return player  # the common case: no write transaction
        async with self._write() as conn:
            now = _ms(self.clock())
            created = await conn.fetchval(
                "INSERT INTO players (user_id, name, language, balance, balance_changed_at,"
                " created_at) VALUES ($1, $2, $3, 0, $4, $4) ON CONFLICT (user_id) DO NOTHING"
                " RETURNING user_id",
                user_id, name, language, now,
            )
            if created is None:
                await conn.execute(
                    "UPDATE players SET name = $2, language = COALESCE($3, language)"
                    " WHERE user_id = $1",
                    user_id, name, language,
                )
            elif self.economy.start_balance:
                await self._move_beans(
                    conn, user_id, self.economy.start_balance, LedgerReason.GRANT, now
                )
            row = await conn.fetchrow("SELECT * FROM players WHERE user_id = $1", user_id)
        return player_record(row)

    async def get_player(self, user_id: int) -> Player | None:
        async with self._read() as conn:
            row = await conn.fetchrow("SELECT * FROM players WHERE user_id = $1", user_id)
        return player_record(row) if row else None

    async def balance(self, user_id: int) -> int:
        async with self._read() as conn:
            balance = await conn.fetchval(
                "SELECT balance FROM players WHERE user_id = $1", user_id
            )
        if balance is None:
            raise UnknownPlayer(f"unknown player {user_id}")
        return int(balance)

    # Usernames

    async def remember_username(self, user_id: int, username: str | None, name: str) -> None:
        key = username_key(username)
        async with self._write() as conn:
            # One change of a user's username at a time (usernames_by_user: two workers each
            # inserting another username of the same user would collide); two users taking
            # the same username meet in the primary key's ON CONFLICT instead.
            await conn.advisory_lock(f"username:{user_id}")
            await conn.execute(
                "DELETE FROM usernames WHERE user_id = $1 AND username IS DISTINCT FROM $2",
                user_id, key,
            )
            if key is not None:
                await conn.execute(
                    "INSERT INTO usernames (username, user_id, name, updated_at)"
                    " VALUES ($1, $2, $3, $4) ON CONFLICT (username) DO UPDATE"
                    " SET user_id = EXCLUDED.user_id, name = EXCLUDED.name,"
                    " updated_at = EXCLUDED.updated_at",
                    key, user_id, clean_name(name) or str(user_id), _ms(self.clock()),
                )

    async def username_owner(self, username: str) -> UsernameOwner | None:
        key = username_key(username)
        if key is None:
            return None
        async with self._read() as conn:
            row = await conn.fetchrow(
                "SELECT user_id, name FROM usernames WHERE username = $1", key
            )
        return UsernameOwner(int(row["user_id"]), row["name"]) if row else None

    # Groups

    async def get_group_settings(self, chat_id: int) -> dict[str, Any]:
        async with self._read() as conn:
            return await self._settings(conn, chat_id)

    async def update_group_settings(self, chat_id: int, **changes: Any) -> dict[str, Any]:
        changes = rooms.validate_changes(changes)
        now = _ms(self.clock())
        async with self._write() as conn:
            # the row exists and is locked before it is read: concurrent changes add up
            await conn.execute(
                "INSERT INTO groups (chat_id, settings, updated_at) VALUES ($1, '{}', $2)"
                " ON CONFLICT (chat_id) DO NOTHING",
                chat_id, now,
            )
            text = await conn.fetchval(
                "SELECT settings FROM groups WHERE chat_id = $1 FOR UPDATE", chat_id
            )
            stored = {**json.loads(text), **changes}
            await conn.execute(
                "UPDATE groups SET settings = $2, updated_at = $3 WHERE chat_id = $1",
                chat_id, json.dumps(stored, sort_keys=True), now,
            )
        return rooms.with_defaults(stored)

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> bool:
        old_prefix, new_prefix = f"{old_chat_id}:", f"{new_chat_id}:"
        keys = (old_prefix, new_prefix, len(old_prefix) + 1)
        ids = (old_chat_id, new_chat_id)
        moved = 0
        async with self._write() as conn:
            # Telegram's two migration messages may reach two workers at once: one moves
            await conn.advisory_lock(f"migrate_chat:{old_chat_id}")
            moved += await self._move_group_settings(conn, old_chat_id, new_chat_id)
            for sql, params in self._chat_moves(conn, keys, ids):
                moved += await conn.execute(sql, *params)
        return moved > 0

    @staticmethod
    def _chat_moves(
        conn: Conn, keys: tuple[str, str, int], ids: tuple[int, int]
    ) -> list[tuple[str, tuple[Any, ...]]]:
        """The statements of :meth:`migrate_chat` after the settings, with their parameters;
        ``keys``: the old key prefix ($1), the new one ($2), where the thread part of a key
        starts ($3); ``ids``: the old and the new chat id."""
        own_key = "substr(table_key, 1, length($1)) = $1"
        return [
            # a table already stored under the new key stays; the old one keeps its old key
            ("UPDATE tables AS t SET table_key = $2 || substr(t.table_key, $3),"
             f" data = {conn.json_set('data', 'chat_id', '$4')}"
             f" WHERE {own_key} AND NOT EXISTS"
             " (SELECT 1 FROM tables u WHERE u.table_key = $2 || substr(t.table_key, $3))",
             (*keys, ids[1])),
            (f"UPDATE deals SET chat_id = $5, table_key = CASE WHEN {own_key}"
             " THEN $2 || substr(table_key, $3) ELSE table_key END WHERE chat_id = $4",
             (*keys, *ids)),
            ("UPDATE deal_seats SET chat_id = $2 WHERE chat_id = $1", ids),
            ("UPDATE deal_holds SET chat_id = $2 WHERE chat_id = $1", ids),
            (f"UPDATE matches SET chat_id = $5, table_key = CASE WHEN {own_key}"
             " THEN $2 || substr(table_key, $3) ELSE table_key END WHERE chat_id = $4",
             (*keys, *ids)),
            ("UPDATE match_places SET chat_id = $2 WHERE chat_id = $1", ids),
            ("UPDATE challenges SET chat_id = $2, message_id = NULL WHERE chat_id = $1", ids),
            ("INSERT INTO group_players (chat_id, user_id, games, wins, last_played_at,"
             " balance, balance_changed_at) SELECT $2, user_id, games, wins, last_played_at,"
             " balance, balance_changed_at FROM group_players WHERE chat_id = $1"
             " ON CONFLICT (user_id, chat_id) DO UPDATE"
             " SET games = group_players.games + excluded.games,"
             " wins = group_players.wins + excluded.wins, last_played_at ="
             " GREATEST(group_players.last_played_at, excluded.last_played_at)", ids),
            ("DELETE FROM group_players WHERE chat_id = $1", ids[:1]),
            ("INSERT INTO posts (chat_id, kind, day, created_at)"
             " SELECT $2, kind, day, created_at FROM posts WHERE chat_id = $1"
             " ON CONFLICT DO NOTHING", ids),
            ("DELETE FROM posts WHERE chat_id = $1", ids[:1]),
        ]

    async def _move_group_settings(self, conn: Conn, old_chat_id: int, new_chat_id: int) -> int:
        """Move the group's settings to its new id (values already set there win); 1 if it
        had settings, else 0."""
        text = await conn.fetchval(
            "SELECT settings FROM groups WHERE chat_id = $1 FOR UPDATE", old_chat_id
        )
        if text is None:
            return 0
        newer = await conn.fetchval(
            "SELECT settings FROM groups WHERE chat_id = $1 FOR UPDATE", new_chat_id
        )
        merged = {**json.loads(text), **(json.loads(newer) if newer else {})}
        await conn.execute(
            "INSERT INTO groups (chat_id, settings, updated_at) VALUES ($1, $2, $3)"
            " ON CONFLICT (chat_id) DO UPDATE SET settings = excluded.settings,"
            " updated_at = excluded.updated_at",
            new_chat_id, json.dumps(merged, sort_keys=True), _ms(self.clock()),
        )
        await conn.execute("DELETE FROM groups WHERE chat_id = $1", old_chat_id)
        return 1

    # Tables

    async def _put_table(self, conn: Conn, key: str, data: dict[str, Any]) -> None:
        await conn.execute(
            "INSERT INTO tables (table_key, data, updated_at) VALUES ($1, $2, $3)"
            " ON CONFLICT (table_key) DO UPDATE SET data = excluded.data,"
            " updated_at = excluded.updated_at",
            key, json.dumps(data), _ms(self.clock()),
        )

    async def save_table(self, table_key: str, data: dict[str, Any]) -> None:
        async with self._write() as conn:
            await self._put_table(conn, table_key, data)

    async def load_tables(self) -> dict[str, dict[str, Any]]:
        async with self._read() as conn:
            rows = await conn.fetch("SELECT table_key, data FROM tables")
        return {row["table_key"]: json.loads(row["data"]) for row in rows}

    async def delete_table(self, table_key: str) -> None:
        async with self._write() as conn:
            await conn.execute("DELETE FROM tables WHERE table_key = $1", table_key)

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
        now = _ms(self.clock())
        async with self._write() as conn:
            if replaces is not None:  # locks in the order deal, players (as settle_deal)
                await self._cancel(conn, replaces, None)
            balances = await self._lock_players(
                conn, (seat.user_id for seat in seats if seat.user_id is not None)
            )
            deal_id = await conn.fetchval(
                "INSERT INTO deals (table_key, chat_id, seats, rules, stake, state, version,"
                " created_at, match_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                table_key, chat_id, seats_text, json.dumps(rules), stake, state_json, version,
                now, match_id,
            )
            await conn.executemany(
                "INSERT INTO deal_holds (deal_id, seat, user_id, chat_id, balance_at_start,"
                " created_at) VALUES ($1, $2, $3, $4, $5, $6)",
                [
                    (deal_id, seat_no, seat.user_id, chat_id, balances[seat.user_id], now)
                    for seat_no, seat in enumerate(seats)
                    if seat.user_id is not None and for_beans and match_id is None
                ],
            )
            if table is not None:
                await self._put_table(conn, table_key, {**table, "deal_id": int(deal_id)})
        return int(deal_id)

    async def deal_hold(self, user_id: int) -> DealHold | None:
        async with self._read() as conn:
            row = await self._hold(conn, user_id)
        if row is None:
            return None
        return DealHold(row["deal_id"], row["chat_id"], row["table_key"], row["seat"],
                        row["balance_at_start"])

    @staticmethod
    async def _hold(conn: Conn, user_id: int) -> Any | None:
        """The player's oldest hold of a running deal, with the deal's table key."""
        return await conn.fetchrow(
            "SELECT h.deal_id, h.chat_id, d.table_key, h.seat, h.balance_at_start"
            " FROM deal_holds h JOIN deals d ON d.id = h.deal_id"
            " WHERE h.user_id = $1 ORDER BY h.deal_id LIMIT 1",
            user_id,
        )

    @staticmethod
    async def _locked_deal(conn: Conn, deal_id: int) -> Any:
        """The deal's row, locked for this transaction. Raises ``UnknownDeal``."""
        row = await conn.fetchrow("SELECT * FROM deals WHERE id = $1 FOR UPDATE", deal_id)
        if row is None:
            raise UnknownDeal(f"unknown deal {deal_id}")
        return row

    async def save_deal_state(
        self, deal_id: int, version: int, state_json: str, table: dict[str, Any] | None = None
    ) -> None:
        async with self._write() as conn:
            row = await self._locked_deal(conn, deal_id)
            if row["status"] != "running":
                raise DealNotRunning(f"deal {deal_id} is {row['status']}")
            if version <= row["version"]:
                raise StaleVersion(
                    f"deal {deal_id}: version {version} is not newer than {row['version']}"
                )
            await conn.execute(
                "UPDATE deals SET state = $2, version = $3 WHERE id = $1",
                deal_id, state_json, version,
            )
            if table is not None:
                await self._put_table(conn, row["table_key"], table)

    async def get_deal(self, deal_id: int) -> DealRecord:
        async with self._read() as conn:
            row = await conn.fetchrow("SELECT * FROM deals WHERE id = $1", deal_id)
        if row is None:
            raise UnknownDeal(f"unknown deal {deal_id}")
        return deal_record(row)

    async def running_deals(self) -> list[DealRecord]:
        async with self._read() as conn:
            rows = await conn.fetch("SELECT * FROM deals WHERE status = 'running' ORDER BY id")
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
        async with self._write() as conn:
            settlement = await self._settle(conn, deal_id, tuple(points), state_json,
                                            facts or None, version, beans_apply=True)
            if table is not None:
                await self._put_table_of(conn, deal_id, table)
        return settlement

    async def _settle(
        self,
        conn: Conn,
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
        row = await self._locked_deal(conn, deal_id)  # a second settlement waits here
        if row["status"] == "settled":
            return repeated_settlement(deal_id, row["result"])
        if row["status"] != "running":
            raise DealNotRunning(f"deal {deal_id} is {row['status']}")
        seats = [SeatRecord(**seat) for seat in json.loads(row["seats"])]
        if len(points) != len(seats) or (facts is not None and len(facts) != len(seats)):
            raise ValueError(f"deal {deal_id} has {len(seats)} seats")
        if version is not None and version < row["version"]:
            raise StaleVersion(f"deal {deal_id}: version {version} < {row['version']}")
        before, holds = await self._lock_seated(
            conn, deal_id, (seat.user_id for seat in seats if seat.user_id is not None)
        )
        balances = [before[s.user_id] if s.user_id is not None else None for s in seats]
        if beans_apply:
            beans = settle_beans(points, row["stake"], at_stake(balances, holds))
        else:
            if sum(points) != 0:
                raise ValueError(f"points must sum to zero, got {list(points)}")
            beans = [0] * len(seats)
        after = tuple(
            b + d if b is not None else None for b, d in zip(balances, beans, strict=True)
        )
        settlement = Settlement(deal_id, row["stake"], points, tuple(beans), after)
        await self._write_settlement(conn, row, seats, settlement, facts, state_json, version)
        return settlement

    @staticmethod
    async def _lock_seated(
        conn: Conn, deal_id: int, user_ids: Iterable[int]
    ) -> tuple[dict[int, int], dict[int, int]]:
        """Lock the deal's players' rows (in user id order, as :meth:`_lock_players`) and read
        their balances and the deal's holds in one round trip: (balance by user id, balance
        at the start by seat).

        Raises:
            UnknownPlayer: one of them does not exist.
        """
        wanted = sorted(set(user_ids))
        rows = await conn.fetch(
            "SELECT p.user_id, p.balance, h.seat, h.balance_at_start FROM players p"
            " LEFT JOIN deal_holds h ON h.deal_id = $2 AND h.user_id = p.user_id"
            " WHERE p.user_id = ANY($1::bigint[]) ORDER BY p.user_id FOR UPDATE OF p",
            wanted, deal_id,
        )
        balances = {row["user_id"]: row["balance"] for row in rows}
        missing = set(wanted) - set(balances)
        if missing:
            raise UnknownPlayer(f"unknown players {sorted(missing)}")
        holds = {row["seat"]: row["balance_at_start"] for row in rows if row["seat"] is not None}
        return balances, holds

    async def _write_settlement(
        self,
        conn: Conn,
        deal: Any,
        seats: Sequence[SeatRecord],
        settlement: Settlement,
        facts: Sequence[SeatFacts] | None,
        state_json: str,
        version: int | None,
    ) -> None:
        now = _ms(self.clock())
        deal_id, chat_id = deal["id"], deal["chat_id"]
        await conn.execute(
            "UPDATE deals SET status = 'settled', state = $2, version = COALESCE($3, version),"
            " result = $4, finished_at = $5 WHERE id = $1",
            deal_id, state_json, version, json.dumps(settlement.to_dict()), now,
        )
        await conn.execute("DELETE FROM deal_holds WHERE deal_id = $1", deal_id)
        rows = settlement_rows(deal_id, chat_id, seats, settlement, facts, now)
        await conn.executemany(
            "INSERT INTO deal_seats (deal_id, seat, user_id, chat_id, finished_at, role, won,"
            " points, beans, bombs, spring, escaped)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            rows.seats,
        )
        await conn.executemany(
            "UPDATE players SET balance = balance + $2::bigint,"
            " balance_changed_at = CASE WHEN $2::bigint <> 0 THEN $3::bigint"
            "     ELSE balance_changed_at END,"
            " games = games + 1, wins = wins + $4::bigint,"
            " landlord_games = landlord_games + $5::bigint,"
            " landlord_wins = landlord_wins + $6::bigint,"
            " farmer_games = farmer_games + $7::bigint,"
            " farmer_wins = farmer_wins + $8::bigint,"
            " springs = springs + $9::bigint, bombs = bombs + $10::bigint,"
            " best_win = GREATEST(best_win, $2::bigint),"
            " current_streak = CASE WHEN $4::bigint = 1 THEN current_streak + 1 ELSE 0 END,"
            " longest_streak = GREATEST(longest_streak,"
            "     CASE WHEN $4::bigint = 1 THEN current_streak + 1 ELSE 0 END)"
            " WHERE user_id = $1",
            [
                (s["user_id"], s["beans"], s["now"], s["won"], s["landlord"], s["landlord_won"],
                 s["farmer"], s["farmer_won"], s["spring"], s["bombs"])
                for s in rows.stats
            ],
        )
        if rows.ledger:
            await conn.executemany(
                "INSERT INTO ledger (user_id, amount, balance_after, reason, deal_id, chat_id,"
                " created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                rows.ledger,
            )
        await conn.executemany(
            "INSERT INTO group_players"
            " (chat_id, user_id, games, wins, last_played_at, balance, balance_changed_at)"
            " SELECT $1, user_id, 1, $2, $3, balance, balance_changed_at FROM players"
            " WHERE user_id = $4 ON CONFLICT (user_id, chat_id) DO UPDATE"
            " SET games = group_players.games + 1, wins = group_players.wins + excluded.wins,"
            " last_played_at = excluded.last_played_at",
            rows.members,
        )

    async def cancel_deal(self, deal_id: int, state_json: str | None = None, *,
                          table: dict[str, Any] | None = None) -> bool:
        async with self._write() as conn:
            cancelled = await self._cancel(conn, deal_id, state_json)
            if table is not None:
                await self._put_table_of(conn, deal_id, table)
        return cancelled

    async def _cancel(self, conn: Conn, deal_id: int,
                      state_json: str | None) -> bool:
        """Cancel a running deal in the caller's transaction (see :meth:`Store.cancel_deal`);
        locks the deal's row."""
        row = await self._locked_deal(conn, deal_id)
        if row["status"] == "cancelled":
            return False
        if row["status"] != "running":
            raise DealNotRunning(f"deal {deal_id} is {row['status']}")
        await conn.execute(
            "UPDATE deals SET status = 'cancelled', state = COALESCE($2, state),"
            " finished_at = $3 WHERE id = $1",
            deal_id, state_json, _ms(self.clock()),
        )
        await conn.execute("DELETE FROM deal_holds WHERE deal_id = $1", deal_id)
        return True

    async def _put_table_of(self, conn: Conn, deal_id: int,
                            table: dict[str, Any]) -> None:
        """Store ``table`` under the key of deal ``deal_id``'s table (its end's transaction);
        call after the deal's row is locked (locks in the order deal, table)."""
        table_key = await conn.fetchval("SELECT table_key FROM deals WHERE id = $1", deal_id)
        if table_key is None:
            raise UnknownDeal(f"unknown deal {deal_id}")
        await self._put_table(conn, table_key, table)

    # Matches (issue 11)

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
        seats_text = json.dumps(
            [{"user_id": s.user_id, "name": s.name, "is_bot": s.is_bot} for s in seats]
        )
        now = _ms(self.clock())
        async with self._write() as conn:
            # locked: no deal can start and hold these players' beans until this commits
            balances = await self._lock_players(conn, humans)
            if entry_fee:
                held = [uid for uid in humans if await self._hold(conn, uid) is not None]
                if held:
                    raise MatchRefused("match_held", "beans held by a running deal", tuple(held))
                short = [uid for uid in humans if balances[uid] < entry_fee]
                if short:
                    raise MatchRefused("match_fee", "not enough beans for the entry fee",
                                       tuple(short))
            match_id = int(await conn.fetchval(
                "INSERT INTO matches (table_key, chat_id, format, options, seats, entry_fee,"
                " pool, state, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
                " RETURNING id",
                table_key, chat_id, format, json.dumps(options), seats_text, entry_fee,
                entry_fee * len(humans), state_json, now,
            ))
            if entry_fee:
                for uid in humans:
                    await self._move_beans(conn, uid, -entry_fee, LedgerReason.MATCH, now,
                                           chat_id=chat_id, match_id=match_id)
        return match_id

    @staticmethod
    async def _locked_match(conn: Conn, match_id: int) -> Any:
        """The match's row, locked for this transaction. Raises ``UnknownMatch``."""
        row = await conn.fetchrow("SELECT * FROM matches WHERE id = $1 FOR UPDATE", match_id)
        if row is None:
            raise UnknownMatch(f"unknown match {match_id}")
        return row

    async def get_match(self, match_id: int) -> MatchRecord:
        async with self._read() as conn:
            row = await conn.fetchrow("SELECT * FROM matches WHERE id = $1", match_id)
        if row is None:
            raise UnknownMatch(f"unknown match {match_id}")
        return match_record(row)

    async def running_matches(self) -> list[MatchRecord]:
        async with self._read() as conn:
            rows = await conn.fetch(
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
        async with self._write() as conn:
            # locks in the order match, deal, players, table (as cancel_match: no circle)
            row = await self._locked_match(conn, match_id)
            deal_match = await conn.fetchrow("SELECT match_id FROM deals WHERE id = $1", deal_id)
            if deal_match is None:
                raise UnknownDeal(f"unknown deal {deal_id}")
            if deal_match[0] != match_id:
                raise ValueError(f"deal {deal_id} is not a deal of match {match_id}")
            settlement = await self._settle(conn, deal_id, tuple(points), state_json,
                                            facts or None, version, beans_apply=False)
            if not settlement.repeated:
                if row["status"] != "running":
                    raise MatchNotRunning(f"match {match_id} is {row['status']}", row["status"])
                await conn.execute("UPDATE matches SET state = $2 WHERE id = $1",
                                   match_id, match_state_json)
            if table is not None:
                await self._put_table_of(conn, deal_id, table)
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
        async with self._write() as conn:
            row = await self._locked_match(conn, match_id)  # a second finish waits here
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
            prizes = {s.user_id: p for s, p in zip(seats, paid, strict=True)
                      if p and s.user_id is not None}
            await self._lock_players(conn, prizes)
            for user_id in prizes:  # seat order
                await self._move_beans(conn, user_id, prizes[user_id], LedgerReason.MATCH, now,
                                       chat_id=row["chat_id"], match_id=match_id)
            await conn.executemany(
                "INSERT INTO match_places (match_id, seat, user_id, chat_id, place, won, prize,"
                " finished_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                [(match_id, n, seat.user_id, row["chat_id"], places[n], int(bool(won[n])),
                  paid[n], now) for n, seat in enumerate(seats) if seat.user_id is not None],
            )
            await conn.execute(
                "UPDATE matches SET status = 'finished', result = $2, finished_at = $3,"
                " state = COALESCE($4, state) WHERE id = $1",
                match_id, json.dumps({**result, "paid": list(paid)}), now, state_json,
            )
        return MatchPayout(match_id, paid)

    async def cancel_match(self, match_id: int) -> MatchPayout:
        async with self._write() as conn:
            row = await self._locked_match(conn, match_id)  # a second cancel waits here
            seats = [SeatRecord(**seat) for seat in json.loads(row["seats"])]
            refunds = tuple(row["entry_fee"] if s.user_id is not None else 0 for s in seats)
            if row["status"] == "cancelled":
                return MatchPayout(match_id, refunds, True)
            if row["status"] != "running":
                raise MatchNotRunning(f"match {match_id} is {row['status']}", row["status"])
            now = _ms(self.clock())
            running = await conn.fetch(
                "SELECT id FROM deals WHERE match_id = $1 AND status = 'running'"
                " ORDER BY id FOR UPDATE",
                match_id,
            )
            humans = [s.user_id for s in seats if s.user_id is not None]
            if row["entry_fee"]:
                await self._lock_players(conn, humans)
                for user_id in humans:
                    await self._move_beans(conn, user_id, row["entry_fee"], LedgerReason.MATCH,
                                           now, chat_id=row["chat_id"], match_id=match_id)
            await conn.execute(
                "UPDATE matches SET status = 'cancelled', finished_at = $2 WHERE id = $1",
                match_id, now,
            )
            deal_ids = [deal["id"] for deal in running]
            await conn.execute(
                "UPDATE deals SET status = 'cancelled', finished_at = $2"
                " WHERE id = ANY($1::bigint[])",
                deal_ids, now,
            )
            await conn.execute(
                "DELETE FROM deal_holds WHERE deal_id = ANY($1::bigint[])", deal_ids
            )
        return MatchPayout(match_id, refunds)

    async def match_ledger(self, match_id: int) -> list[LedgerEntry]:
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT * FROM ledger WHERE match_id = $1 ORDER BY id", match_id
            )
        return [ledger_entry(row) for row in rows]

    async def match_stats(self, user_id: int) -> MatchStats:
        async with self._read() as conn:
            row = await conn.fetchrow(
                "SELECT COUNT(*), COALESCE(SUM(won), 0)::bigint FROM match_places"
                " WHERE user_id = $1",
                user_id,
            )
        return MatchStats(row[0], row[1])

    async def match_leaderboard(
        self, chat_id: int, period: Period = "all", tz: str | None = None, limit: int = 10
    ) -> list[LeaderboardRow]:
        if period not in PERIODS:
            raise ValueError(f"unknown period {period!r}")
        if limit < 1:
            raise ValueError("limit must be at least 1")
        async with self._read() as conn:
            where, params = "m.chat_id = $1", [chat_id]
            if period != "all":
                zone = tz or (await self._settings(conn, chat_id))["timezone"]
                start, end = bounded(period, self.clock(), zone)
                where += " AND m.finished_at >= $2 AND m.finished_at < $3"
                params += [_ms(start), _ms(end)]
            rows = await conn.fetch(
                "SELECT m.user_id, p.name, SUM(m.won)::bigint AS match_wins,"
                " COUNT(*) AS match_games,"
                " MIN(CASE WHEN m.won = 1 THEN m.finished_at END) AS first_win"
                f" FROM match_places m JOIN players p ON p.user_id = m.user_id WHERE {where}"
                " GROUP BY m.user_id, p.name HAVING SUM(m.won) > 0"
                " ORDER BY match_wins DESC, match_games, first_win, m.user_id"
                f" LIMIT ${len(params) + 1}",
                *params, limit,
            )
        return [LeaderboardRow(rank, row[0], row[1], row[2], row[3], row[2])
                for rank, row in enumerate(rows, start=1)]

    # Economy

    # Duplicate challenges (issue 12)

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
        try:
            async with self._write() as conn:
                if daily is not None and await conn.fetchval(
                        "SELECT 1 FROM challenges WHERE chat_id = $1 AND daily = $2",
                        chat_id, daily) is not None:
                    raise ChallengeRefused("challenge_daily", "that day's daily challenge exists")
                if await conn.fetchval("SELECT 1 FROM challenges WHERE chat_id = $1"
                                       " AND status = 'open'", chat_id) is not None:
                    raise ChallengeRefused("challenge_open", "the chat has an open challenge")
                challenge_id = int(await conn.fetchval(
                    "INSERT INTO challenges (chat_id, thread_id, opener_id, options, seed,"
                    " seed_hash, entry_fee, daily, created_at, closes_at)"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
                    chat_id, thread_id, opener_id, json.dumps(options), seed, seed_hash,
                    entry_fee, daily, _ms(self.clock()), _ms(closes_at),
                ))
        except Conflict:  # another worker opened one at the same moment
            code = "challenge_daily" if daily is not None else "challenge_open"
            raise ChallengeRefused(code, "the chat has an open challenge") from None
        return challenge_id

    @staticmethod
    async def _locked_challenge(conn: Conn, challenge_id: int,
                                mode: str = "UPDATE") -> Any:
        """The challenge's row, locked (``FOR UPDATE`` / ``FOR SHARE``) for this transaction."""
        row = await conn.fetchrow(f"SELECT * FROM challenges WHERE id = $1 FOR {mode}",
                                  challenge_id)
        if row is None:
            raise UnknownChallenge(f"unknown challenge {challenge_id}")
        return row

    async def get_challenge(self, challenge_id: int) -> ChallengeRecord:
        async with self._read() as conn:
            row = await conn.fetchrow("SELECT * FROM challenges WHERE id = $1", challenge_id)
        if row is None:
            raise UnknownChallenge(f"unknown challenge {challenge_id}")
        return challenge_record(row)

    async def open_challenges(self) -> list[ChallengeRecord]:
        async with self._read() as conn:
            rows = await conn.fetch("SELECT * FROM challenges WHERE status = 'open' ORDER BY id")
        return [challenge_record(row) for row in rows]

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        async with self._write() as conn:
            status = await conn.execute("UPDATE challenges SET message_id = $2 WHERE id = $1",
                                        challenge_id, message_id)
        if status != 1:
            raise UnknownChallenge(f"unknown challenge {challenge_id}")

    async def enter_challenge(self, challenge_id: int, user_id: int, name: str) -> ChallengeEntry:
        name = clean_name(name) or str(user_id)
        now = _ms(self.clock())
        async with self._write() as conn:
            row = await self._locked_challenge(conn, challenge_id)
            balances = await self._lock_players(conn, [user_id])
            if user_id not in balances:
                raise UnknownPlayer(f"unknown player {user_id}")
            if row["status"] != "open" or now >= row["closes_at"]:
                raise ChallengeRefused("challenge_closed", "the challenge is closed")
            if await conn.fetchval("SELECT 1 FROM challenge_entries WHERE challenge_id = $1"
                                   " AND user_id = $2", challenge_id, user_id) is not None:
                raise ChallengeRefused("challenge_entered", "entered before")
            fee = row["entry_fee"]
            if fee:
                if await self._hold(conn, user_id) is not None:
                    raise ChallengeRefused("challenge_held", "beans held by a running deal")
                if balances[user_id] < fee:
                    raise ChallengeRefused("challenge_fee", "not enough beans for the fee")
                await self._move_beans(conn, user_id, -fee, LedgerReason.CHALLENGE, now,
                                       chat_id=row["chat_id"], challenge_id=challenge_id)
                await conn.execute("UPDATE challenges SET pool = pool + $2 WHERE id = $1",
                                   challenge_id, fee)
            await conn.execute(
                "INSERT INTO challenge_entries (challenge_id, user_id, name, entered_at)"
                " VALUES ($1, $2, $3, $4)", challenge_id, user_id, name, now)
        return ChallengeEntry(user_id, name, dt(now))

    async def challenge_entries(self, challenge_id: int) -> list[ChallengeEntry]:
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT * FROM challenge_entries WHERE challenge_id = $1"
                " ORDER BY entered_at, user_id", challenge_id)
        return [challenge_entry(row) for row in rows]

    async def challenge_plays(self, challenge_id: int) -> list[ChallengePlay]:
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT * FROM challenge_plays WHERE challenge_id = $1"
                " ORDER BY finished_at, deal, user_id", challenge_id)
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
        async with self._write() as conn:
            row = await self._locked_challenge(conn, challenge_id, "SHARE")
            if await conn.fetchval("SELECT 1 FROM challenge_entries WHERE challenge_id = $1"
                                   " AND user_id = $2", challenge_id, user_id) is None:
                raise ValueError(f"user {user_id} did not enter challenge {challenge_id}")
            await self._cancel(conn, deal_id, state_json)
            if table is not None:
                await self._put_table_of(conn, deal_id, table)
            if await conn.fetchval("SELECT 1 FROM challenge_plays WHERE challenge_id = $1"
                                   " AND user_id = $2 AND deal = $3",
                                   challenge_id, user_id, deal) is not None:
                return False
            if row["status"] != "open":
                raise ChallengeNotOpen(f"challenge {challenge_id} is closed")
            await conn.execute(
                "INSERT INTO challenge_plays (challenge_id, user_id, deal, deal_id, points,"
                " landlord_won, finished_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                challenge_id, user_id, deal, deal_id, points, int(landlord_won), now)
        return True

    async def close_challenge(
        self, challenge_id: int, paid: Mapping[int, int], result: dict[str, Any]
    ) -> ChallengePayout:
        paid = {uid: amount for uid, amount in paid.items() if amount}
        async with self._write() as conn:
            row = await self._locked_challenge(conn, challenge_id)
            if row["status"] == "closed":
                stored = json.loads(row["result"])["paid"]
                return ChallengePayout(challenge_id, {int(k): v for k, v in stored.items()},
                                       True)
            entrants = {r[0] for r in await conn.fetch(
                "SELECT user_id FROM challenge_entries WHERE challenge_id = $1", challenge_id)}
            if any(amount < 0 for amount in paid.values()) \
                    or sum(paid.values()) != row["pool"]:
                raise ValueError(f"the payout {paid} is not the pool of {row['pool']}")
            if set(paid) - entrants:
                raise ValueError("only members who entered are paid")
            now = _ms(self.clock())
            await self._lock_players(conn, paid)
            for uid in sorted(paid):
                await self._move_beans(conn, uid, paid[uid], LedgerReason.CHALLENGE, now,
                                       chat_id=row["chat_id"], challenge_id=challenge_id)
            await conn.execute(
                "UPDATE challenges SET status = 'closed', result = $2, closed_at = $3"
                " WHERE id = $1",
                challenge_id, json.dumps({**result, "paid": {str(k): v for k, v in paid.items()}}),
                now)
        return ChallengePayout(challenge_id, paid)

    async def announce_challenge(self, challenge_id: int) -> bool:
        async with self._write() as conn:
            status = await conn.execute(
                "UPDATE challenges SET announced = 1 WHERE id = $1 AND status = 'closed'"
                " AND announced IN (0, 2)", challenge_id)
        return status == 1

    async def claim_announcement(self, challenge_id: int) -> bool:
        async with self._write() as conn:
            status = await conn.execute(
                "UPDATE challenges SET announced = 2 WHERE id = $1 AND status = 'closed'"
                " AND announced = 0", challenge_id)
        return status == 1

    async def release_announcement(self, challenge_id: int) -> None:
        async with self._write() as conn:
            await conn.execute(
                "UPDATE challenges SET announced = 0 WHERE id = $1 AND announced = 2",
                challenge_id)

    async def unannounced_challenges(self) -> list[ChallengeRecord]:
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT * FROM challenges WHERE status = 'closed' AND announced = 0"
                " ORDER BY id")
        return [challenge_record(row) for row in rows]

    async def daily_challenge_groups(self) -> list[int]:
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT chat_id, settings FROM groups WHERE settings LIKE '%daily_challenge%'"
                " ORDER BY chat_id")
        return [row["chat_id"] for row in rows
                if rooms.with_defaults(json.loads(row["settings"]))["daily_challenge"]]

    async def challenge_ledger(self, challenge_id: int) -> list[LedgerEntry]:
        async with self._read() as conn:
            rows = await conn.fetch("SELECT * FROM ledger WHERE challenge_id = $1 ORDER BY id",
                                    challenge_id)
        return [ledger_entry(row) for row in rows]

    async def claim_daily(self, user_id: int, chat_id: int | None = None) -> Claim:
        async with self._write() as conn:
            await self._lock_players(conn, (user_id,))  # a second press waits here
            now = self.clock()
            day = player_day(now)
            last = await self._last_claim(conn, user_id, "daily", day)
            continues = last is not None and last[0] == day - timedelta(days=1)
            streak = last[1] + 1 if last and continues else 1
            amount = self.economy.daily_amount(streak)
            return await self._grant(conn, user_id, "daily", day, amount, streak, chat_id, now)

    async def claim_relief(self, user_id: int, chat_id: int | None = None) -> Claim:
        async with self._write() as conn:
            balance = (await self._lock_players(conn, (user_id,)))[user_id]
            now = self.clock()
            day = player_day(now)
            amount = self.economy.relief_amount(balance)
            if amount <= 0:
                raise NotEligible(f"relief needs a balance below {self.economy.relief_below} beans")
            await self._last_claim(conn, user_id, "relief", day)
            return await self._grant(conn, user_id, "relief", day, amount, 1, chat_id, now)

    @staticmethod
    async def _last_claim(
        conn: Conn, user_id: int, kind: str, day: date
    ) -> tuple[date, int] | None:
        """The last claim of this kind (day, streak); raises ``AlreadyClaimed`` unless ``day`` is
        later."""
        row = await conn.fetchrow(
            "SELECT day, streak FROM claims WHERE user_id = $1 AND kind = $2"
            " ORDER BY day DESC LIMIT 1",
            user_id, kind,
        )
        if row is None:
            return None
        last = date.fromisoformat(row["day"])
        if last >= day:
            raise AlreadyClaimed(f"{kind} already claimed for {last}", last + timedelta(days=1))
        return last, row["streak"]

    async def _grant(
        self,
        conn: Conn,
        user_id: int,
        kind: str,
        day: date,
        amount: int,
        streak: int,
        chat_id: int | None,
        now: Any,
    ) -> Claim:
        await conn.execute(
            "INSERT INTO claims (user_id, kind, day, amount, streak, chat_id, created_at)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7)",
            user_id, kind, day.isoformat(), amount, streak, chat_id, _ms(now),
        )
        balance = await self._move_beans(
            conn, user_id, amount, LedgerReason(kind), _ms(now), chat_id=chat_id
        )
        return Claim(amount, balance, day, streak)

    async def give(self, giver_id: int, receiver_id: int, amount: int, chat_id: int) -> Gift:
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
            raise GiveRefused("give_invalid_amount", "the amount must be a whole number ≥ 1")
        if giver_id == receiver_id:
            raise GiveRefused("give_same_player", "a player cannot give to themselves")
        async with self._write() as conn:
            settings = await self._settings(conn, chat_id)
            if not settings["give_enabled"]:
                raise GiveRefused("give_disabled", "/give is off in this group")
            balances = await self._lock_players(conn, (giver_id, receiver_id))
            if await self._hold(conn, giver_id) is not None:
                raise GiveRefused("give_in_deal", "the giver sits at a running deal")
            now = self.clock()
            day = player_day(now).isoformat()
            given = await conn.fetchval(
                "SELECT COALESCE(SUM(amount), 0)::bigint FROM gives"
                " WHERE giver_id = $1 AND day = $2",
                giver_id, day,
            )
            remaining = max(self.economy.give_daily_limit - given, 0)
            if amount > remaining:
                raise GiveRefused(
                    "give_limit", f"only {remaining} more beans may be given today", remaining
                )
            if amount > balances[giver_id]:
                raise GiveRefused("give_insufficient", "not enough beans")
            await conn.execute(
                "INSERT INTO gives (giver_id, receiver_id, amount, chat_id, day, created_at)"
                " VALUES ($1, $2, $3, $4, $5, $6)",
                giver_id, receiver_id, amount, chat_id, day, _ms(now),
            )
            giver_balance = await self._move_beans(
                conn, giver_id, -amount, LedgerReason.GIVE, _ms(now), chat_id=chat_id
            )
            receiver_balance = await self._move_beans(
                conn, receiver_id, amount, LedgerReason.GIVE, _ms(now), chat_id=chat_id
            )
        return Gift(amount, giver_balance, receiver_balance, remaining - amount)

    async def ledger(self, user_id: int, limit: int = 20) -> list[LedgerEntry]:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT * FROM ledger WHERE user_id = $1 ORDER BY id DESC LIMIT $2",
                user_id, limit,
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
        async with self._read() as conn:
            if period == "all":
                rows = await self._balance_board(conn, chat_id, limit)
            else:
                zone = tz or (await self._settings(conn, chat_id))["timezone"]
                start, end = bounded(period, self.clock(), zone)
                rows = await self._net_board(conn, chat_id, _ms(start), _ms(end), limit)
        return [
            LeaderboardRow(rank, row[0], row[1], row[2], row[3], row[4])
            for rank, row in enumerate(rows, start=1)
        ]

    @staticmethod
    async def _balance_board(
        conn: Conn, chat_id: int | None, limit: int
    ) -> list[Any]:
        if chat_id is None:
            return await conn.fetch(
                "SELECT user_id, name, balance, games, wins FROM players"
                " ORDER BY balance DESC, games, balance_changed_at, user_id LIMIT $1",
                limit,
            )
        return await conn.fetch(
            "SELECT g.user_id, p.name, g.balance, g.games, g.wins FROM group_players g"
            " JOIN players p ON p.user_id = g.user_id WHERE g.chat_id = $1"
            " ORDER BY g.balance DESC, g.games, g.balance_changed_at, g.user_id LIMIT $2",
            chat_id, limit,
        )

    @staticmethod
    async def _net_board(
        conn: Conn, chat_id: int | None, start: int, end: int, limit: int
    ) -> list[Any]:
        where = "s.finished_at >= $1 AND s.finished_at < $2 AND s.user_id IS NOT NULL"
        params: tuple[Any, ...] = (start, end, limit)
        if chat_id is not None:
            where = "s.chat_id = $4 AND " + where
            params = (*params, chat_id)
        return await conn.fetch(
            "SELECT t.user_id, p.name, t.net, t.games, t.wins FROM ("
            "  SELECT s.user_id, SUM(s.beans)::bigint AS net, COUNT(*) AS games,"
            "  SUM(s.won)::bigint AS wins, MAX(s.finished_at) AS last_at FROM deal_seats s"
            f"  WHERE {where} GROUP BY s.user_id"
            "  ORDER BY net DESC, games, last_at, s.user_id LIMIT $3"
            ") t JOIN players p ON p.user_id = t.user_id"
            " ORDER BY t.net DESC, t.games, t.last_at, t.user_id",
            *params,
        )

    async def player_stats(self, user_id: int, chat_id: int | None = None) -> PlayerStats:
        async with self._read() as conn:
            row = await conn.fetchrow("SELECT * FROM players WHERE user_id = $1", user_id)
            if row is None:
                raise UnknownPlayer(f"unknown player {user_id}")
            rank = await self._rank(conn, row, chat_id)
        return player_stats(row, rank)

    @staticmethod
    async def _rank(
        conn: Conn, player: Any, chat_id: int | None
    ) -> int | None:
        """Position by balance with the leaderboard's tie rules (1 = first), in the group's
        players or among all players; ``None`` if the player has not played in the group."""
        if chat_id is None:
            row, table, scope = player, "players", ""
            extra: tuple[int, ...] = ()
        else:
            row = await conn.fetchrow(
                "SELECT balance, games, balance_changed_at, user_id FROM group_players"
                " WHERE chat_id = $1 AND user_id = $2",
                chat_id, player["user_id"],
            )
            if row is None:
                return None
            table, scope, extra = "group_players", "chat_id = $5 AND", (chat_id,)
        ahead = await conn.fetchval(
            f"SELECT (SELECT COUNT(*) FROM {table} WHERE {scope} balance > $1)"
            f" + (SELECT COUNT(*) FROM {table} WHERE {scope} balance = $1"
            "     AND (games, balance_changed_at, user_id) < ($2, $3, $4))",
            row["balance"], row["games"], row["balance_changed_at"], row["user_id"], *extra,
        )
        return int(ahead) + 1

    async def daily_posts_due(self, kind: str = "daily_top") -> list[tuple[int, date]]:
        now = self.clock()
        since = now - DAILY_POST_LOOKBACK
        async with self._read() as conn:
            finished = await conn.fetch(
                "SELECT chat_id, finished_at FROM deals"
                " WHERE status = 'settled' AND finished_at >= $1",
                _ms(since),
            )
            chats = sorted({row["chat_id"] for row in finished})
            stored = await conn.fetch(
                "SELECT chat_id, settings FROM groups WHERE chat_id = ANY($1::bigint[])", chats
            )
            posted = await conn.fetch(
                "SELECT chat_id, day FROM posts WHERE kind = $1 AND day >= $2",
                kind, (since.date() - timedelta(days=1)).isoformat(),
            )
        return posts_due(
            now,
            [(row["chat_id"], row["finished_at"]) for row in finished],
            {row["chat_id"]: row["settings"] for row in stored},
            [(row["chat_id"], row["day"]) for row in posted],
        )

    async def mark_posted(self, chat_id: int, day: date, kind: str = "daily_top") -> bool:
        async with self._write() as conn:
            status = await conn.execute(
                "INSERT INTO posts (chat_id, kind, day, created_at) VALUES ($1, $2, $3, $4)"
                " ON CONFLICT DO NOTHING",
                chat_id, kind, day.isoformat(), _ms(self.clock()),
            )
        return status == 1

    async def totals(self) -> Totals:
        async with self._read() as conn:
            row = await conn.fetchrow(
                "SELECT (SELECT COALESCE(SUM(balance), 0) FROM players)::bigint,"
                " (SELECT COALESCE(SUM(amount), 0) FROM ledger)::bigint,"
                " (SELECT COALESCE(SUM(amount), 0) FROM ledger"
                "  WHERE reason = ANY($1::text[]))::bigint,"
                " (SELECT -COALESCE(SUM(amount), 0) FROM ledger"
                "  WHERE reason IN ('match', 'challenge'))::bigint",
                [str(r) for r in GRANT_REASONS],
            )
        return Totals(row[0], row[1], row[2], row[3])

    # Several workers

    async def schedule_timer(self, key: str, due: datetime, payload: dict[str, Any]) -> int:
        async with self._write() as conn:
            generation = await conn.fetchval(
                "INSERT INTO timers (key, due_at, payload, generation) VALUES ($1, $2, $3, 1)"
                " ON CONFLICT (key) DO UPDATE SET due_at = excluded.due_at,"
                " payload = excluded.payload, generation = timers.generation + 1,"
                " claimed_by = NULL, claimed_until = NULL RETURNING generation",
                key, _ms(due), json.dumps(payload),
            )
        return int(generation)

    async def cancel_timer(self, key: str) -> bool:
        async with self._write() as conn:
            status = await conn.execute("DELETE FROM timers WHERE key = $1", key)
        return status == 1

    async def claim_timers(
        self, worker: str, *, limit: int = 20, lease: float = 30.0
    ) -> list[TimerRecord]:
        if limit < 1 or lease <= 0:
            raise ValueError("limit must be at least 1 and lease positive")
        now = self.clock()
        async with self._write() as conn:
            # rows another worker is claiming right now are skipped, not waited for
            rows = await conn.fetch(
                "UPDATE timers SET claimed_by = $1, claimed_until = $2 WHERE key IN ("
                " SELECT key FROM timers WHERE due_at <= $3"
                " AND (claimed_until IS NULL OR claimed_until <= $3)"
                " ORDER BY due_at, key LIMIT $4 FOR UPDATE SKIP LOCKED) RETURNING *",
                worker, _ms(now + timedelta(seconds=lease)), _ms(now), limit,
            )
        return sorted(map(timer_record, rows), key=lambda t: (t.due_at, t.key))

    async def finish_timer(self, timer: TimerRecord) -> bool:
        async with self._write() as conn:
            status = await conn.execute(
                "DELETE FROM timers WHERE key = $1 AND generation = $2 AND claimed_by = $3",
                timer.key, timer.generation, timer.claimed_by,
            )
        return status == 1


class SQLiteStore(SQLStore):
    """The store on one SQLite file in WAL mode, for one bot process."""

    @staticmethod
    async def open(
        path: str | Path,
        *,
        economy: EconomyRules | None = None,
        clock: Clock | None = None,
    ) -> SQLiteStore:
        """Open (create, with its directory) the file at ``path`` and run its pending
        migrations.

        Raises:
            sqlite3.Error: the file cannot be opened or migrated.
        """
        backend = await SQLiteBackend.open(path)
        return SQLiteStore(backend, economy or EconomyRules(), clock or utc_now)


class PostgresStore(SQLStore):
    """The store on a PostgreSQL database, for several bot processes."""

    @staticmethod
    async def open(
        url: str,
        *,
        economy: EconomyRules | None = None,
        clock: Clock | None = None,
    ) -> PostgresStore:
        """Connect to the database at ``url`` (``postgresql://user:password@host:port/name``,
        asyncpg's URL syntax, ``?host=/socket/dir`` for a Unix socket) and run the numbered
        migrations not yet recorded in ``schema_version``.

        Raises:
            OSError, asyncpg.PostgresError: the server cannot be reached or refuses the login.
        """
        backend = await PostgresBackend.open(url)
        return PostgresStore(backend, economy or EconomyRules(), clock or utc_now)
