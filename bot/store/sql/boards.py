"""Leaderboards and statistics: the bean and match boards, /me with its rank, the end-of-day
posts."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from bot.core.beans import PERIODS, Period
from bot.store.dialect import Conn
from bot.store.records import LeaderboardRow, PlayerStats, UnknownPlayer
from bot.store.rows import DAILY_POST_LOOKBACK, bounded, player_stats, posts_due
from bot.store.rows import ms as _ms
from bot.store.sql.common import SQLBase


class Boards(SQLBase):
    """The store's leaderboards part (see the module docstring)."""

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

    async def match_leaderboard(
        self, chat_id: int, period: Period = "all", tz: str | None = None, limit: int = 10
    ) -> list[LeaderboardRow]:
        async with self._read() as conn:
            where, params = await self._competition_period(conn, chat_id, period, tz,
                                                           "m.finished_at", limit)
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
