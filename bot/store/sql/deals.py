"""Tables and deals: stored tables, running deals with their holds, settlement (RULES.md §8) and
cancelling."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from bot.core.beans import settle_beans
from bot.store.dialect import Conn
from bot.store.records import (
    DealHold,
    DealNotRunning,
    DealRecord,
    SeatFacts,
    SeatRecord,
    Settlement,
    StaleVersion,
    UnknownDeal,
    UnknownPlayer,
)
from bot.store.rows import at_stake, deal_record, repeated_settlement, seats_json, settlement_rows
from bot.store.rows import ms as _ms
from bot.store.sql.common import SQLBase


class Deals(SQLBase):
    """The store's deals part (see the module docstring)."""

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
