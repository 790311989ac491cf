"""What every part of the store uses: its backend, the balance and ledger move, the row locks
of players and deals, a group's settings, a deal's holds, cancelling a deal and storing a table."""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any

from bot.core import rooms
from bot.core.beans import PERIODS, EconomyRules, Period
from bot.store.base import Clock, Store
from bot.store.dialect import Backend, Conn
from bot.store.records import DealNotRunning, LedgerReason, UnknownDeal, UnknownPlayer
from bot.store.rows import bounded
from bot.store.rows import ms as _ms


class SQLBase(Store):
    """The store's shared state and helpers; the methods of :class:`~bot.store.base.Store`
    are in the feature classes of this package, joined in :class:`SQLStore`."""

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
        tournament_id: int | None = None,
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
            " created_at, match_id, challenge_id, tournament_id)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            user_id, amount, balance, str(reason), deal_id, chat_id, now, match_id, challenge_id,
            tournament_id,
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

    async def _competition_period(self, conn: Conn, chat_id: int, period: Period, tz: str | None,
                                  column: str, limit: int) -> tuple[str, list[Any]]:
        """The filter of a group's competition board (matches, tournaments) for ``period``:
        ``{alias}.chat_id = $1`` and, but for ``"all"``, ``column`` (ms) within the period in
        ``tz`` (default: the group's time zone), with its parameters.

        Raises:
            ValueError: an unknown period, or ``limit`` below 1.
        """
        if period not in PERIODS:
            raise ValueError(f"unknown period {period!r}")
        if limit < 1:
            raise ValueError("limit must be at least 1")
        alias = column.split(".")[0]
        where, params = f"{alias}.chat_id = $1", [chat_id]
        if period != "all":
            zone = tz or (await self._settings(conn, chat_id))["timezone"]
            start, end = bounded(period, self.clock(), zone)
            where += f" AND {column} >= $2 AND {column} < $3"
            params += [_ms(start), _ms(end)]
        return where, params

    async def _settings(self, conn: Conn, chat_id: int | None) -> dict[str, Any]:
        if chat_id is None:
            return rooms.with_defaults({})
        text = await conn.fetchval("SELECT settings FROM groups WHERE chat_id = $1", chat_id)
        return rooms.with_defaults(json.loads(text) if text else {})

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

    async def _put_table(self, conn: Conn, key: str, data: dict[str, Any]) -> None:
        await conn.execute(
            "INSERT INTO tables (table_key, data, updated_at) VALUES ($1, $2, $3)"
            " ON CONFLICT (table_key) DO UPDATE SET data = excluded.data,"
            " updated_at = excluded.updated_at",
            key, json.dumps(data), _ms(self.clock()),
        )

    async def _put_table_of(self, conn: Conn, deal_id: int,
                            table: dict[str, Any]) -> None:
        """Store ``table`` under the key of deal ``deal_id``'s table (its end's transaction);
        call after the deal's row is locked (locks in the order deal, table)."""
        table_key = await conn.fetchval("SELECT table_key FROM deals WHERE id = $1", deal_id)
        if table_key is None:
            raise UnknownDeal(f"unknown deal {deal_id}")
        await self._put_table(conn, table_key, table)
