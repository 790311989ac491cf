"""Group tournaments (锦标赛, RULES.md §10.1): opening, sign-up, the fees taken at the start, the
drawn tables of each stage with their standings, the payout or the refunds."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from bot.core.beans import Period
from bot.core.names import clean_name
from bot.store.dialect import Conflict, Conn
from bot.store.records import LeaderboardRow, LedgerEntry, LedgerReason, UnknownPlayer
from bot.store.rows import ledger_entry
from bot.store.rows import ms as _ms
from bot.store.sql.common import SQLBase
from bot.store.tournament_records import (
    TournamentEntry,
    TournamentRecord,
    TournamentRefused,
    TournamentStart,
    TournamentTable,
    UnknownTournament,
    tournament_entry,
    tournament_record,
    tournament_table,
)


class Tournaments(SQLBase):
    """The store's tournaments part (see :class:`bot.store.tournament_records.TournamentStore`)."""

    async def open_tournament(self, chat_id: int, thread_id: int | None, opener_id: int,
                              preset: str, options: dict[str, Any], entry_fee: int, seed: str,
                              seed_hash: str) -> int:
        if isinstance(entry_fee, bool) or not isinstance(entry_fee, int) or entry_fee < 0:
            raise ValueError("the entry fee must be a whole number of beans ≥ 0")
        try:
            async with self._write() as conn:
                if await conn.fetchval("SELECT 1 FROM tournaments WHERE chat_id = $1"
                                       " AND status IN ('open', 'running')", chat_id) is not None:
                    raise TournamentRefused("tournament_live", "the group has a tournament")
                return int(await conn.fetchval(
                    "INSERT INTO tournaments (chat_id, thread_id, opener_id, preset, options,"
                    " seed, seed_hash, entry_fee, created_at)"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                    chat_id, thread_id, opener_id, preset, json.dumps(options), seed, seed_hash,
                    entry_fee, _ms(self.clock())))
        except Conflict:  # another worker opened one at the same moment
            raise TournamentRefused("tournament_live", "the group has a tournament") from None

    @staticmethod
    async def _locked_tournament(conn: Conn, tournament_id: int) -> Any:
        row = await conn.fetchrow("SELECT * FROM tournaments WHERE id = $1 FOR UPDATE",
                                  tournament_id)
        if row is None:
            raise UnknownTournament(f"unknown tournament {tournament_id}")
        return row

    async def get_tournament(self, tournament_id: int) -> TournamentRecord:
        async with self._read() as conn:
            row = await conn.fetchrow("SELECT * FROM tournaments WHERE id = $1", tournament_id)
        if row is None:
            raise UnknownTournament(f"unknown tournament {tournament_id}")
        return tournament_record(row)

    async def live_tournaments(self) -> list[TournamentRecord]:
        async with self._read() as conn:
            rows = await conn.fetch("SELECT * FROM tournaments"
                                    " WHERE status IN ('open', 'running') ORDER BY id")
        return [tournament_record(row) for row in rows]

    async def set_tournament_messages(self, tournament_id: int, *,
                                      message_id: int | None = None,
                                      board_id: int | None = None) -> None:
        async with self._write() as conn:
            await conn.execute(
                "UPDATE tournaments SET message_id = COALESCE($2, message_id),"
                " board_id = COALESCE($3, board_id) WHERE id = $1",
                tournament_id, message_id, board_id)

    async def sign_up(self, tournament_id: int, user_id: int, name: str,
                      maximum: int) -> bool:
        name = clean_name(name) or str(user_id)
        async with self._write() as conn:
            row = await self._locked_tournament(conn, tournament_id)
            if await conn.fetchval("SELECT 1 FROM players WHERE user_id = $1", user_id) is None:
                raise UnknownPlayer(f"unknown player {user_id}")
            if row["status"] != "open":
                raise TournamentRefused("tournament_closed", "sign-up is over")
            if await conn.fetchval("SELECT 1 FROM tournament_entries WHERE tournament_id = $1"
                                   " AND user_id = $2", tournament_id, user_id) is not None:
                return False
            count, last = await conn.fetchrow(
                "SELECT count(*), coalesce(max(seq), 0) FROM tournament_entries"
                " WHERE tournament_id = $1", tournament_id)
            if count >= maximum:
                raise TournamentRefused("tournament_full", "the field is full")
            await conn.execute(
                "INSERT INTO tournament_entries (tournament_id, user_id, name, seq)"
                " VALUES ($1, $2, $3, $4)", tournament_id, user_id, name, int(last) + 1)
        return True

    async def withdraw(self, tournament_id: int, user_id: int) -> bool:
        async with self._write() as conn:
            row = await self._locked_tournament(conn, tournament_id)
            if row["status"] != "open":
                raise TournamentRefused("tournament_closed", "sign-up is over")
            status = await conn.execute(
                "DELETE FROM tournament_entries WHERE tournament_id = $1 AND user_id = $2",
                tournament_id, user_id)
        return bool(status)

    async def tournament_entries(self, tournament_id: int) -> list[TournamentEntry]:
        async with self._read() as conn:
            rows = await conn.fetch("SELECT * FROM tournament_entries WHERE tournament_id = $1"
                                    " ORDER BY seq", tournament_id)
        return [tournament_entry(row) for row in rows]

    async def take_tournament_fees(self, tournament_id: int) -> TournamentStart:
        async with self._write() as conn:
            row = await self._locked_tournament(conn, tournament_id)
            rows = await conn.fetch("SELECT * FROM tournament_entries WHERE tournament_id = $1"
                                    " ORDER BY seq", tournament_id)
            entries = [tournament_entry(r) for r in rows]
            if row["status"] == "running":  # taken before: its field and who was dropped
                kept = json.loads(row["state"]).get("dropped") or []
                return TournamentStart(tuple(entries), tuple(TournamentEntry(
                    int(d[0]), str(d[1]), int(d[2]), 0) for d in kept), row["pool"])
            if row["status"] != "open":
                raise TournamentRefused("tournament_state", f"the tournament is {row['status']}")
            fee = row["entry_fee"]
            balances = await self._lock_players(conn, [e.user_id for e in entries])
            now = _ms(self.clock())
            field: list[TournamentEntry] = []
            dropped: list[TournamentEntry] = []
            for entry in entries:
                if fee and (balances[entry.user_id] < fee
                            or await self._hold(conn, entry.user_id) is not None):
                    dropped.append(entry)
                    await conn.execute("DELETE FROM tournament_entries WHERE tournament_id = $1"
                                       " AND user_id = $2", tournament_id, entry.user_id)
                    continue
                if fee:
                    await self._move_beans(conn, entry.user_id, -fee, LedgerReason.TOURNAMENT,
                                           now, chat_id=row["chat_id"],
                                           tournament_id=tournament_id)
                    await conn.execute("UPDATE tournament_entries SET paid = $3"
                                       " WHERE tournament_id = $1 AND user_id = $2",
                                       tournament_id, entry.user_id, fee)
                field.append(TournamentEntry(entry.user_id, entry.name, entry.seq, fee))
            pool = fee * len(field)
            # the dropped are kept with the start: a start finished by another worker names them
            state = {**json.loads(row["state"]),
                     "dropped": [[e.user_id, e.name, e.seq] for e in dropped]}
            await conn.execute("UPDATE tournaments SET status = 'running', pool = $2, state = $3"
                               " WHERE id = $1", tournament_id, pool, json.dumps(state))
        return TournamentStart(tuple(field), tuple(dropped), pool)

    async def put_tournament_stage(self, tournament_id: int, stage: int,
                                   tables: Sequence[tuple[Sequence[int], dict[str, Any]]],
                                   state: dict[str, Any],
                                   posts: Sequence[tuple[str, str]] = ()) -> bool:
        async with self._write() as conn:
            row = await self._locked_tournament(conn, tournament_id)
            if await conn.fetchval("SELECT 1 FROM tournament_tables WHERE tournament_id = $1"
                                   " AND stage = $2", tournament_id, stage) is not None:
                return False
            for number, (players, table_state) in enumerate(tables, start=1):
                await conn.execute(
                    "INSERT INTO tournament_tables (tournament_id, stage, number, players, state)"
                    " VALUES ($1, $2, $3, $4, $5)", tournament_id, stage, number,
                    json.dumps(list(players)), json.dumps(table_state))
            await conn.execute("UPDATE tournaments SET state = $2 WHERE id = $1",
                               tournament_id, json.dumps(state))
            await self._add_posts(conn, row, posts)
        return True

    @staticmethod
    async def _add_posts(conn: Conn, row: Any, posts: Sequence[tuple[str, str]]) -> None:
        """Append ``posts`` to the locked tournament ``row``'s due messages (a key already
        due is not added twice)."""
        if not posts:
            return
        due = json.loads(row["posts"] or "[]")
        keys = {p["key"] for p in due}
        due += [{"key": key, "text": text, "until": 0} for key, text in posts if key not in keys]
        await conn.execute("UPDATE tournaments SET posts = $2 WHERE id = $1", row["id"],
                           json.dumps(due))

    async def claim_tournament_post(self, tournament_id: int, key: str,
                                    seconds: float = 120.0) -> bool:
        now = self.clock()
        async with self._write() as conn:
            row = await self._locked_tournament(conn, tournament_id)
            due = json.loads(row["posts"] or "[]")
            post = next((p for p in due if p["key"] == key), None)
            if post is None or int(post.get("until") or 0) > _ms(now):
                return False
            post["until"] = _ms(now + timedelta(seconds=seconds))
            await conn.execute("UPDATE tournaments SET posts = $2 WHERE id = $1",
                               tournament_id, json.dumps(due))
        return True

    async def release_tournament_post(self, tournament_id: int, key: str | None = None) -> None:
        async with self._write() as conn:
            row = await self._locked_tournament(conn, tournament_id)
            due = json.loads(row["posts"] or "[]")
            for post in due:
                if key is None or post["key"] == key:
                    post["until"] = 0
            await conn.execute("UPDATE tournaments SET posts = $2 WHERE id = $1",
                               tournament_id, json.dumps(due))

    async def clear_tournament_post(self, tournament_id: int, key: str) -> None:
        async with self._write() as conn:
            row = await self._locked_tournament(conn, tournament_id)
            due = [p for p in json.loads(row["posts"] or "[]") if p["key"] != key]
            await conn.execute("UPDATE tournaments SET posts = $2 WHERE id = $1",
                               tournament_id, json.dumps(due))

    async def due_tournament_posts(self) -> list[TournamentRecord]:
        async with self._read() as conn:
            rows = await conn.fetch("SELECT * FROM tournaments WHERE posts <> '[]' ORDER BY id")
        return [tournament_record(row) for row in rows]

    async def put_tournament_state(self, tournament_id: int, state: dict[str, Any]) -> None:
        async with self._write() as conn:
            await conn.execute("UPDATE tournaments SET state = $2 WHERE id = $1",
                               tournament_id, json.dumps(state))

    async def tournament_tables(self, tournament_id: int,
                                stage: int | None = None) -> list[TournamentTable]:
        async with self._read() as conn:
            if stage is None:
                rows = await conn.fetch("SELECT * FROM tournament_tables WHERE tournament_id = $1"
                                        " ORDER BY stage, number", tournament_id)
            else:
                rows = await conn.fetch("SELECT * FROM tournament_tables WHERE tournament_id = $1"
                                        " AND stage = $2 ORDER BY number", tournament_id, stage)
        return [tournament_table(row) for row in rows]

    async def settle_tournament_deal(self, tournament_id: int, stage: int, number: int,
                                     deal_id: int, deal_state_json: str,
                                     table_state: dict[str, Any], done: bool, *,
                                     table: dict[str, Any] | None = None) -> None:
        async with self._write() as conn:
            await self._cancel(conn, deal_id, deal_state_json)
            if table is not None:
                await self._put_table_of(conn, deal_id, table)
            await conn.execute(
                "UPDATE tournament_tables SET state = $4, status = $5"
                " WHERE tournament_id = $1 AND stage = $2 AND number = $3",
                tournament_id, stage, number, json.dumps(table_state),
                "done" if done else "playing")

    async def reopen_tournament_table(self, tournament_id: int, stage: int, number: int,
                                      table_state: dict[str, Any],
                                      posts: Sequence[tuple[str, str]] = ()) -> None:
        async with self._write() as conn:
            row = await self._locked_tournament(conn, tournament_id)
            await self._add_posts(conn, row, posts)
            await conn.execute(
                "UPDATE tournament_tables SET state = $4, status = 'playing'"
                " WHERE tournament_id = $1 AND stage = $2 AND number = $3",
                tournament_id, stage, number, json.dumps(table_state))

    async def finish_tournament(self, tournament_id: int, paid: Mapping[int, int],
                                result: dict[str, Any],
                                posts: Sequence[tuple[str, str]] = ()) -> dict[int, int]:
        paid = {uid: amount for uid, amount in paid.items() if amount}
        async with self._write() as conn:
            row = await self._locked_tournament(conn, tournament_id)
            if row["status"] == "finished":
                stored = json.loads(row["result"])["paid"]
                return {int(k): v for k, v in stored.items()}
            if row["status"] != "running":
                raise TournamentRefused("tournament_state", f"the tournament is {row['status']}")
            entrants = {r[0] for r in await conn.fetch(
                "SELECT user_id FROM tournament_entries WHERE tournament_id = $1", tournament_id)}
            if any(amount < 0 for amount in paid.values()) or sum(paid.values()) != row["pool"]:
                raise ValueError(f"the payout {paid} is not the pool of {row['pool']}")
            if set(paid) - entrants:
                raise ValueError("only members who played are paid")
            now = _ms(self.clock())
            await self._lock_players(conn, paid)
            for uid in sorted(paid):
                await self._move_beans(conn, uid, paid[uid], LedgerReason.TOURNAMENT, now,
                                       chat_id=row["chat_id"], tournament_id=tournament_id)
            await conn.execute(
                "UPDATE tournaments SET status = 'finished', result = $2, finished_at = $3"
                " WHERE id = $1", tournament_id,
                json.dumps({**result, "paid": {str(k): v for k, v in paid.items()}}), now)
            await self._add_posts(conn, row, posts)
        return paid

    async def announce_tournament(self, tournament_id: int) -> bool:
        async with self._write() as conn:
            status = await conn.execute(
                "UPDATE tournaments SET announced = 1 WHERE id = $1 AND status = 'finished'"
                " AND announced IN (0, 2)", tournament_id)
        return status == 1

    async def claim_tournament_announcement(self, tournament_id: int,
                                            seconds: float = 120.0) -> bool:
        now = self.clock()
        async with self._write() as conn:
            status = await conn.execute(
                "UPDATE tournaments SET announced = 2, announce_until = $2 WHERE id = $1"
                " AND status = 'finished' AND (announced = 0"
                " OR (announced = 2 AND coalesce(announce_until, 0) <= $3))",
                tournament_id, _ms(now + timedelta(seconds=seconds)), _ms(now))
        return status == 1

    async def release_tournament_announcement(self, tournament_id: int) -> None:
        async with self._write() as conn:
            await conn.execute(
                "UPDATE tournaments SET announced = 0 WHERE id = $1 AND announced = 2",
                tournament_id)

    async def unannounced_tournaments(self, *, claimed: bool = False
                                      ) -> list[TournamentRecord]:
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT * FROM tournaments WHERE status = 'finished' AND (announced = 0"
                " OR (announced = 2 AND ($1 OR coalesce(announce_until, 0) <= $2))) ORDER BY id",
                claimed, _ms(self.clock()))
        return [tournament_record(row) for row in rows]

    async def cancel_tournament(self, tournament_id: int,
                                posts: Sequence[tuple[str, str]] = ()) -> dict[int, int] | None:
        async with self._write() as conn:
            row = await self._locked_tournament(conn, tournament_id)
            if row["status"] not in ("open", "running"):
                return None
            rows = await conn.fetch("SELECT user_id, paid FROM tournament_entries"
                                    " WHERE tournament_id = $1 AND paid > 0", tournament_id)
            refunds = {r["user_id"]: r["paid"] for r in rows}
            now = _ms(self.clock())
            await self._lock_players(conn, refunds)
            for uid in sorted(refunds):
                await self._move_beans(conn, uid, refunds[uid], LedgerReason.TOURNAMENT, now,
                                       chat_id=row["chat_id"], tournament_id=tournament_id)
            await conn.execute(
                "UPDATE tournaments SET status = 'cancelled', pool = 0, result = $2,"
                " finished_at = $3 WHERE id = $1", tournament_id,
                json.dumps({"refunded": {str(k): v for k, v in refunds.items()}}), now)
            await self._add_posts(conn, row, posts)
        return refunds

    async def tournament_ledger(self, tournament_id: int) -> list[LedgerEntry]:
        async with self._read() as conn:
            rows = await conn.fetch("SELECT * FROM ledger WHERE tournament_id = $1 ORDER BY id",
                                    tournament_id)
        return [ledger_entry(row) for row in rows]

    async def tournament_stats(self, user_id: int) -> tuple[int, int]:
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT t.result FROM tournaments t JOIN tournament_entries e"
                " ON e.tournament_id = t.id WHERE e.user_id = $1 AND t.status = 'finished'",
                user_id)
        played = won = 0
        for row in rows:
            places = json.loads(row[0] or "{}").get("places") or {}
            if str(user_id) in places:
                played += 1
                won += places[str(user_id)] == 1
        return played, won

    async def tournament_leaderboard(self, chat_id: int, period: Period = "all",
                                     tz: str | None = None, limit: int = 10
                                     ) -> list[LeaderboardRow]:
        async with self._read() as conn:
            where, params = await self._competition_period(conn, chat_id, period, tz,
                                                           "t.finished_at", limit)
            where += " AND t.status = 'finished'"
            rows = await conn.fetch(
                "SELECT t.result, t.finished_at, e.user_id, p.name FROM tournaments t"
                " JOIN tournament_entries e ON e.tournament_id = t.id"
                f" JOIN players p ON p.user_id = e.user_id WHERE {where}", *params)
        played: dict[int, int] = {}
        won: dict[int, int] = {}
        first: dict[int, int] = {}
        names: dict[int, str] = {}
        for result, finished_at, user_id, name in rows:
            places = json.loads(result or "{}").get("places") or {}
            if str(user_id) not in places:
                continue
            names[user_id] = name
            played[user_id] = played.get(user_id, 0) + 1
            if places[str(user_id)] == 1:
                won[user_id] = won.get(user_id, 0) + 1
                first[user_id] = min(first.get(user_id, finished_at), finished_at)
        ranked = sorted(won, key=lambda u: (-won[u], played[u], first[u], u))[:limit]
        return [LeaderboardRow(rank, u, names[u], won[u], played[u], won[u])
                for rank, u in enumerate(ranked, start=1)]
