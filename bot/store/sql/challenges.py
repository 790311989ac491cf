"""Duplicate challenges (RULES.md §10): opening, entering with the fee, each member's deal, the
payout and the final ranking's post."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from bot.core import rooms
from bot.core.names import clean_name
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
from bot.store.dialect import Conflict, Conn
from bot.store.records import LedgerEntry, LedgerReason, UnknownPlayer
from bot.store.rows import dt, ledger_entry
from bot.store.rows import ms as _ms
from bot.store.sql.common import SQLBase


class Challenges(SQLBase):
    """The store's challenges part (see the module docstring)."""

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

    async def claim_announcement(self, challenge_id: int, seconds: float = 120.0) -> bool:
        now = self.clock()
        async with self._write() as conn:
            status = await conn.execute(
                "UPDATE challenges SET announced = 2, announce_until = $2 WHERE id = $1"
                " AND status = 'closed' AND (announced = 0"
                " OR (announced = 2 AND coalesce(announce_until, 0) <= $3))",
                challenge_id, _ms(now + timedelta(seconds=seconds)), _ms(now))
        return status == 1

    async def release_announcement(self, challenge_id: int) -> None:
        async with self._write() as conn:
            await conn.execute(
                "UPDATE challenges SET announced = 0 WHERE id = $1 AND announced = 2",
                challenge_id)

    async def unannounced_challenges(self, *, claimed: bool = False) -> list[ChallengeRecord]:
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT * FROM challenges WHERE status = 'closed' AND (announced = 0"
                " OR (announced = 2 AND ($1 OR coalesce(announce_until, 0) <= $2))) ORDER BY id",
                claimed, _ms(self.clock()))
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
