"""Matches (RULES.md §10): the pool of entry fees, the deals of a match, the payout and the
refund."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.store.dialect import Conn
from bot.store.records import (
    LedgerEntry,
    LedgerReason,
    MatchNotRunning,
    MatchPayout,
    MatchRecord,
    MatchRefused,
    MatchStats,
    SeatFacts,
    SeatRecord,
    Settlement,
    UnknownDeal,
    UnknownMatch,
)
from bot.store.rows import ledger_entry, match_record
from bot.store.rows import ms as _ms
from bot.store.sql.deals import Deals


class Matches(Deals):
    """The store's matches part (see the module docstring)."""

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
