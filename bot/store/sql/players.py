"""Players and their beans: players, usernames, groups' settings, supergroup migration, daily
claims and relief, gifts, the ledger and the bean totals (RULES.md §8)."""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

from bot.core import rooms
from bot.core.beans import player_day
from bot.core.names import clean_name
from bot.store.dialect import Conn
from bot.store.records import (
    GRANT_REASONS,
    AlreadyClaimed,
    Claim,
    Gift,
    GiveRefused,
    LedgerEntry,
    LedgerReason,
    NotEligible,
    Player,
    Totals,
    UnknownPlayer,
    UsernameOwner,
    username_key,
)
from bot.store.rows import ledger_entry, player_record
from bot.store.rows import ms as _ms
from bot.store.sql.common import SQLBase


class Players(SQLBase):
    """The store's players part (see the module docstring)."""

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

    async def set_player_hands(self, user_id: int, hands: str | None) -> None:
        if hands not in ("group", "private", None):
            raise ValueError(f"hands must be group, private or None, got {hands!r}")
        async with self._write() as conn:
            await conn.execute("UPDATE players SET hands = $2 WHERE user_id = $1",
                               user_id, hands)

    async def balance(self, user_id: int) -> int:
        async with self._read() as conn:
            balance = await conn.fetchval(
                "SELECT balance FROM players WHERE user_id = $1", user_id
            )
        if balance is None:
            raise UnknownPlayer(f"unknown player {user_id}")
        return int(balance)

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

    async def give(self, giver_id: int, receiver_id: int, amount: int, chat_id: int,
                   request: str | None = None) -> Gift:
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
            raise GiveRefused("give_invalid_amount", "the amount must be a whole number ≥ 1")
        if giver_id == receiver_id:
            raise GiveRefused("give_same_player", "a player cannot give to themselves")
        async with self._write() as conn:
            settings = await self._settings(conn, chat_id)
            if not settings["give_enabled"]:
                raise GiveRefused("give_disabled", "/give is off in this group")
            balances = await self._lock_players(conn, (giver_id, receiver_id))
            now = self.clock()
            day = player_day(now).isoformat()
            if request is not None:
                done = await conn.fetchval(
                    "SELECT amount FROM gives WHERE request = $1", request)
                if done is not None:
                    given = await self._given_on(conn, giver_id, day)
                    return Gift(int(done), balances[giver_id], balances[receiver_id],
                                max(self.economy.give_daily_limit - given, 0))
            if await self._hold(conn, giver_id) is not None:
                raise GiveRefused("give_in_deal", "the giver sits at a running deal")
            given = await self._given_on(conn, giver_id, day)
            remaining = max(self.economy.give_daily_limit - given, 0)
            if amount > balances[giver_id]:  # first: no limit would let it through
                raise GiveRefused("give_insufficient", "not enough beans")
            if amount > remaining:
                raise GiveRefused(
                    "give_limit", f"only {remaining} more beans may be given today", remaining
                )
            await conn.execute(
                "INSERT INTO gives (giver_id, receiver_id, amount, chat_id, day, created_at,"
                " request) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                giver_id, receiver_id, amount, chat_id, day, _ms(now), request,
            )
            giver_balance = await self._move_beans(
                conn, giver_id, -amount, LedgerReason.GIVE, _ms(now), chat_id=chat_id
            )
            receiver_balance = await self._move_beans(
                conn, receiver_id, amount, LedgerReason.GIVE, _ms(now), chat_id=chat_id
            )
        return Gift(amount, giver_balance, receiver_balance, remaining - amount)

    @staticmethod
    async def _given_on(conn: Conn, giver_id: int, day: str) -> int:
        """Beans ``giver_id`` gave on their ``day`` (ISO date)."""
        return int(await conn.fetchval(
            "SELECT COALESCE(SUM(amount), 0)::bigint FROM gives WHERE giver_id = $1 AND day = $2",
            giver_id, day))

    async def ledger(self, user_id: int, limit: int = 20) -> list[LedgerEntry]:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT * FROM ledger WHERE user_id = $1 ORDER BY id DESC LIMIT $2",
                user_id, limit,
            )
        return [ledger_entry(row) for row in rows]

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
