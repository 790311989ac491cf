"""Benchmark of the store at scale (issue 5): leaderboard and /me query times, settlement rate.

    python bench/store.py [--players 100000] [--deals 1000000] [--groups 2000] [--runs 15]
                          [--settle 3000] [--seed 2024] [--db PATH]

Fills a fresh SQLite database (in a temporary directory unless ``--db`` is given) through the
store's own migrations, then with synthetic history written in bulk: ``--players`` players,
``--deals`` settled deals over the past 365 days in ``--groups`` groups whose activity follows a
Zipf law (the busiest group gets about 1/H(groups) of all deals, ~12 % for 2000 groups, and has
~36,000 players), 5 % of deals with a bot seat, beans settled with ``bot.core.beans.settle_beans``
(relief when a player falls below 100 beans), with every ledger row, seat row and statistic the
store itself would write. The engine state of a bulk deal is a placeholder ``{}`` (real states
are a few kB; they are read only for running deals).

Then it opens the database with ``open_store`` and prints the median milliseconds of ``--runs``
calls for ``/top`` (today, week, all) in the busiest group and in a median group, ``/top global``
(all, today, week) and ``/me`` (``player_stats`` with the group rank) for players of the busiest
group. Finally it creates ``--settle`` running deals and times ``settle_deal`` on them: settled
deals per second through the real store (one transaction each, as in the bot).

Targets (issue 5): ≤ 50 ms for ``/top`` and ``/me``, ≥ 500 settled deals per second.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.core.beans import EconomyRules, settle_beans  # noqa: E402
from bot.store import SeatFacts, SeatRecord, open_store  # noqa: E402

DAY_MS = 86_400_000
STAKES = (10, 20, 50)
CHUNK = 50_000


def chat_id_of(group: int) -> int:
    return -1_000_000_000_000 - group


class History:
    """Synthetic players, groups and settled deals, generated in time order."""

    def __init__(self, players: int, groups: int, seed: int, now_ms: int) -> None:
        self.rng = random.Random(seed)
        self.players = players
        self.now_ms = now_ms
        self.start_ms = now_ms - 365 * DAY_MS
        self.economy = EconomyRules()
        weights = [1 / (g + 1) for g in range(groups)]
        self.cum_weights = list(itertools.accumulate(weights))
        order = list(range(1, players + 1))
        self.rng.shuffle(order)
        self.pools = []
        for weight in weights:
            size = min(players, max(6, round(3 * players * weight / self.cum_weights[-1])))
            start = self.rng.randrange(players)
            self.pools.append([order[(start + i) % players] for i in range(size)])
        size = players + 1
        self.balance = [self.economy.start_balance] * size
        self.changed_at = [self.start_ms] * size
        self.stats = [[0] * 11 for _ in range(size)]  # see STAT_COLUMNS
        self.members: dict[tuple[int, int], list[int]] = {}
        self.ledger_id = 0
        self.ledger_rows: list[tuple] = []
        for user_id in range(1, players + 1):
            self._ledger(user_id, self.economy.start_balance, "grant", None, None, self.start_ms)

    def _ledger(self, user_id, amount, reason, deal_id, chat_id, at) -> None:
        self.ledger_id += 1
        balance = self.balance[user_id]
        self.ledger_rows.append(
            (self.ledger_id, user_id, amount, balance, reason, deal_id, chat_id, at)
        )

    def deals(self, count: int, first_id: int):
        """Yield ``(deal_row, seat_rows)`` for ``count`` deals in time order."""
        rng = self.rng
        times = sorted(rng.randrange(self.start_ms, self.now_ms - 60_000) for _ in range(count))
        groups = rng.choices(range(len(self.pools)), cum_weights=self.cum_weights, k=count)
        for offset, (at, group) in enumerate(zip(times, groups, strict=True)):
            yield self._deal(first_id + offset, at, group)

    def _deal(self, deal_id: int, at: int, group: int):
        rng = self.rng
        chat_id = chat_id_of(group)
        stake = STAKES[group % 3]
        seats: list[int | None] = rng.sample(self.pools[group], 3)
        if rng.random() < 0.05:
            seats[2] = None
        landlord = rng.randrange(3)
        bombs = rng.choices((0, 1, 2, 3), (60, 28, 10, 2))[0]
        spring = rng.random() < 0.05
        pair = rng.choice((1, 2, 3)) * 2**bombs * (2 if spring else 1)
        landlord_won = rng.random() < 0.45
        sign = 1 if landlord_won else -1
        points = [-sign * pair] * 3
        points[landlord] = 2 * sign * pair
        for user_id in seats:
            if user_id is not None and self.balance[user_id] < self.economy.relief_below:
                amount = self.economy.relief_amount(self.balance[user_id])
                self.balance[user_id] += amount
                self._ledger(user_id, amount, "relief", None, chat_id, at - 1)
        beans = settle_beans(points, stake, [None if u is None else self.balance[u] for u in seats])
        seat_rows = []
        for seat, user_id in enumerate(seats):
            role = "landlord" if seat == landlord else "farmer"
            won = (seat == landlord) == landlord_won
            seat_bombs = rng.randint(0, bombs)
            seat_rows.append(
                (
                    deal_id,
                    seat,
                    user_id,
                    chat_id,
                    at,
                    role,
                    won,
                    points[seat],
                    beans[seat],
                    seat_bombs,
                    spring and won,
                    False,
                )
            )
            if user_id is None:
                continue
            self._count(user_id, seat == landlord, won, spring and won, seat_bombs, beans[seat])
            if beans[seat]:
                self.balance[user_id] += beans[seat]
                self.changed_at[user_id] = at
                self._ledger(user_id, beans[seat], "deal", deal_id, chat_id, at)
            member = self.members.setdefault((chat_id, user_id), [0, 0, at])
            member[0] += 1
            member[1] += won
            member[2] = at
        seats_json = json.dumps(
            [
                {"user_id": u, "name": "Bot" if u is None else f"player {u}", "is_bot": u is None}
                for u in seats
            ]
        )
        result = json.dumps(
            {
                "stake": stake,
                "points": points,
                "beans": beans,
                "balances": [None if u is None else self.balance[u] for u in seats],
            }
        )
        deal_row = (
            deal_id,
            f"g{chat_id}",
            chat_id,
            seats_json,
            '{"bidding": "score"}',
            stake,
            "settled",
            "{}",
            0,
            result,
            at - 120_000,
            at,
        )
        return deal_row, seat_rows

    def _count(self, user_id, landlord, won, spring, bombs, beans) -> None:
        s = self.stats[user_id]
        s[0] += 1
        s[1] += won
        s[2 if landlord else 4] += 1
        s[3 if landlord else 5] += won
        s[6] += spring
        s[7] += bombs
        s[8] = max(s[8], beans)
        s[9] = s[9] + 1 if won else 0
        s[10] = max(s[10], s[9])


STAT_COLUMNS = (
    "games, wins, landlord_games, landlord_wins, farmer_games, farmer_wins, springs, bombs,"
    " best_win, current_streak, longest_streak"
)


def fill(path: Path, players: int, deals: int, groups: int, seed: int, now_ms: int) -> History:
    """Write the synthetic history into the (migrated, empty) database at ``path``."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -400000")
    indexes = db.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    ).fetchall()
    for name, _ in indexes:
        db.execute(f"DROP INDEX {name}")
    history = History(players, groups, seed, now_ms)
    db.execute("BEGIN")
    batch_deals, batch_seats = [], []

    def flush() -> None:
        db.executemany(
            "INSERT INTO deals (id, table_key, chat_id, seats, rules, stake, status, state,"
            f" version, result, created_at, finished_at) VALUES ({','.join('?' * 12)})",
            batch_deals,
        )
        db.executemany(
            "INSERT INTO deal_seats (deal_id, seat, user_id, chat_id, finished_at, role, won,"
            f" points, beans, bombs, spring, escaped) VALUES ({','.join('?' * 12)})",
            batch_seats,
        )
        db.executemany(
            "INSERT INTO ledger (id, user_id, amount, balance_after, reason, deal_id, chat_id,"
            f" created_at) VALUES ({','.join('?' * 8)})",
            history.ledger_rows,
        )
        batch_deals.clear()
        batch_seats.clear()
        history.ledger_rows.clear()

    for deal_row, seat_rows in history.deals(deals, first_id=1):
        batch_deals.append(deal_row)
        batch_seats.extend(seat_rows)
        if len(batch_deals) >= CHUNK:
            flush()
            print(f"  {deal_row[0]:,} deals", end="\r", flush=True)
    flush()
    print()
    db.executemany(
        "INSERT INTO players (user_id, name, language, balance, balance_changed_at, created_at,"
        f" {STAT_COLUMNS}) VALUES ({','.join('?' * 17)})",
        (
            (
                u,
                f"player {u}",
                None,
                history.balance[u],
                history.changed_at[u],
                history.start_ms,
                *history.stats[u],
            )
            for u in range(1, players + 1)
        ),
    )
    db.executemany(
        "INSERT INTO group_players (chat_id, user_id, games, wins, last_played_at, balance,"
        " balance_changed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            (chat, user, games, wins, at, history.balance[user], history.changed_at[user])
            for (chat, user), (games, wins, at) in history.members.items()
        ),
    )
    db.execute("COMMIT")
    for _, sql in indexes:
        db.execute(sql)
    db.execute("ANALYZE")
    db.execute("PRAGMA journal_mode = WAL")
    db.close()
    return history


async def median_ms(call: Callable[[], Awaitable[object]], runs: int) -> float:
    """Median wall time of ``runs`` calls, in milliseconds (after one warm-up call)."""
    await call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def measure(path: Path, history: History, args: argparse.Namespace) -> None:
    store = await open_store(path)
    try:
        busy, median_group = chat_id_of(0), chat_id_of(len(history.pools) // 2)
        members = {
            name: sum(1 for (chat, _) in history.members if chat == chat_id)
            for name, chat_id in (("busiest", busy), ("median", median_group))
        }
        print(f"groups: busiest has {members['busiest']:,} players, median {members['median']:,}")
        queries: list[tuple[str, Callable[[], Awaitable[object]]]] = []
        for name, chat_id in (("busiest", busy), ("median", median_group)):
            for period in ("today", "week", "all"):
                queries.append(
                    (
                        f"/top {period:<5} {name} group",
                        lambda c=chat_id, p=period: store.leaderboard(c, p),
                    )
                )
        for period in ("all", "today", "week"):
            queries.append((f"/top global {period}", lambda p=period: store.leaderboard(None, p)))
        rng = random.Random(args.seed)
        sample = rng.sample(history.pools[0], 5)
        for user_id in sample:
            queries.append(
                (
                    f"/me player {user_id} busiest group",
                    lambda u=user_id: store.player_stats(u, busy),
                )
            )
        queries.append(
            (f"/me player {sample[0]} global rank", lambda: store.player_stats(sample[0]))
        )
        for label, call in queries:
            print(f"{label:<40} {await median_ms(call, args.runs):8.2f} ms")

        seats = []
        for _ in range(args.settle):
            users = rng.sample(history.pools[rng.randrange(len(history.pools))], 3)
            seats.append([SeatRecord(u, f"player {u}") for u in users])
        deal_ids = [
            await store.create_deal(f"bench{i}", busy, s, {"bidding": "score"}, 20, "{}")
            for i, s in enumerate(seats)
        ]
        facts = [
            SeatFacts("landlord", True),
            SeatFacts("farmer", False),
            SeatFacts("farmer", False),
        ]
        start, start_cpu = time.perf_counter(), time.process_time()
        for deal_id in deal_ids:
            await store.settle_deal(deal_id, [4, -2, -2], "{}", facts)
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - start_cpu
        print(
            f"{'settle_deal':<40} {len(deal_ids) / elapsed:8.0f} deals/s"
            f" ({elapsed * 1000 / len(deal_ids):.2f} ms each,"
            f" {cpu * 1000 / len(deal_ids):.2f} ms CPU; load average {os.getloadavg()[0]:.1f})"
        )
        totals = await store.totals()
        print(
            f"conservation: balances {totals.balances:,} = ledger {totals.ledger:,}"
            f" = grants {totals.grants:,}: {totals.balances == totals.ledger == totals.grants}"
        )
    finally:
        await store.close()


async def create_schema(path: Path) -> None:
    """Create the database with the store's own migrations."""
    store = await open_store(path)
    await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--groups", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--settle", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--db", type=Path, help="database file to create (must not exist)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "bench.sqlite3"
        if path.exists():
            parser.error(f"{path} exists")
        asyncio.run(create_schema(path))
        started = time.perf_counter()
        now_ms = int(datetime.now(UTC).timestamp() * 1000)
        history = fill(path, args.players, args.deals, args.groups, args.seed, now_ms)
        size = path.stat().st_size / 2**20
        print(
            f"filled {args.players:,} players, {args.deals:,} deals, {args.groups:,} groups"
            f" in {time.perf_counter() - started:.0f} s ({size:,.0f} MiB)"
        )
        asyncio.run(measure(path, history, args))


if __name__ == "__main__":
    main()
