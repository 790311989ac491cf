"""Webhook workers on PostgreSQL against the single-process SQLite bot (issue 16, "Measured").

    python bench/workers.py [--tables 10,50,200] [--workers 1,2,4] [--deals 1] [--think 0.6]
                            [--seed 9] [--timeout 600] [--no-sqlite] [--worker-env K=V ...]

For every table count it runs the single-process SQLite bot as bench/latency.py does (long
polling, its own process), then for every worker count N: a fresh database on a PostgreSQL server
this script starts (the tests' ``pgserver``, tests/databases.py), N ``ddz-bot`` processes in
webhook worker mode (tests/bot/workers_helpers.py: each on its own port, every other setting at
its default), and a strict fake Bot API (``tests.fakebot.limits``: 20 per group per minute, 30 per
second overall, else 429) that posts the updates to the N workers in turn, as a round-robin proxy
would (tests/fakebot/webhooks.py). The players are bench/latency.py's: three humans per table,
each pressing ``--think`` seconds after their hand message turns to them (bid or pass, call or
decline, Hint then Play or Pass).

One line per run: press → answerCallbackQuery p50 and p95 (ms), presses never answered, deals
settled and settled per minute, 429 answers, Bot API calls per deal, CPU seconds per deal (all the
bot's processes together, from /proc; the PostgreSQL server's own apart), the run's wall seconds,
the requests to chats per second (the token's budget: 30), the CPU cores the bot and the database
used on average (CPU seconds / wall seconds: true also of a run that did not finish) and the
machine's load average when it ended (the machine may be shared), errors. ``--worker-env K=V``
(repeatable) adds a setting to every worker's environment (e.g. ``PYTHONPATH`` with a tracer
of one's own in front); ``--presses FILE`` appends each press (update id, button, monotonic
times pressed and answered) to join with such a trace. A run stopped by
``--timeout`` prints what it got (presses answered so far; deals settled by then). Linux only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.latency import (  # noqa: E402
    TRAILING,
    BotProcess,
    Press,
    Run,
    code_version,
    measure,
    play_table,
)
from tests.bot.workers_helpers import SECRET, WorkerProcess  # noqa: E402
from tests.databases import PostgresServer  # noqa: E402
from tests.fakebot import Call  # noqa: E402
from tests.fakebot.limits import FloodLimits, StrictFakeBotApi  # noqa: E402


@dataclass
class Line:
    setup: str
    tables: int
    answers: list[float]
    unanswered: int
    deals: int
    seconds: float
    limited: int
    calls: int
    cpu: float
    errors: list[str]
    database_cpu: float = 0.0
    chat_calls: int = 0
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    #: press → answer seconds by button payload ("join", "start", "bid3", "hint", ...).
    by_payload: dict[str, list[float]] = field(default_factory=dict)
    #: 429s by window and chat kind ("group window, group chat", ...).
    limited_by: dict[str, int] = field(default_factory=dict)
    #: what is known of each press never answered: payload, seconds after the run's start,
    #: the webhook deliveries of its update (target worker, HTTP status).
    lost: list[str] = field(default_factory=list)
    #: CPU seconds of this process (the players and the fake Bot API, one event loop).
    bench_cpu: float = 0.0
    #: how late this process's event loop woke a timer, seconds, sampled every 0.1 s: what
    #: the harness itself adds to a press's answer (its webhook POST, the answer's arrival).
    loop_lags: list[float] = field(default_factory=list)
    #: answerCallbackQuery calls beyond a press's first (each press must be answered once).
    answered_twice: int = 0


class ServerCpu:
    """CPU seconds of the PostgreSQL server: the postmaster, its children that are gone and the
    live ones (backends, background processes), from /proc."""

    def __init__(self, server: PostgresServer) -> None:
        self.pid = server._server.get_pid()

    @staticmethod
    def _fields(pid: int) -> list[str]:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()

    def cpu_seconds(self) -> float:
        if self.pid is None:
            return 0.0
        ticks = os.sysconf("SC_CLK_TCK")
        own = self._fields(self.pid)
        total = sum(int(own[i]) for i in (11, 12, 13, 14))
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = self._fields(int(entry.name))
            except (OSError, IndexError):
                continue
            if int(fields[1]) == self.pid:
                total += int(fields[11]) + int(fields[12])
        return total / ticks


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q * 100) - 1]


async def play(api: StrictFakeBotApi, tables: int, deals: int, think: float, seed: int,
               timeout: float, cpu: list, setup: str, database: ServerCpu | None = None,
               presses_file: TextIO | None = None) -> Line:
    run = Run(api, think, random.Random(seed))
    update_of: dict[str, int] = {}  # callback query id → update id
    add_update = api.add_update

    def recorded(payload: dict) -> int:
        update_id = add_update(payload)
        query = payload.get("callback_query")
        if query is not None:
            update_of[str(query["id"])] = update_id
        return update_id

    api.add_update = recorded  # type: ignore[method-assign]
    lags: list[float] = []
    sampler = asyncio.get_running_loop().create_task(sample_lag(lags))
    bench_start = own_cpu()
    cpu_start = sum(process.cpu_seconds() for process in cpu)
    database_start = database.cpu_seconds() if database is not None else 0.0
    first_call = len(api.calls)
    started = time.monotonic()

    async def table(i: int) -> None:
        await asyncio.sleep(i * 0.1)
        try:
            await play_table(run, i, "humans", deals)
        except Exception as error:  # noqa: BLE001 - reported, the run goes on
            run.errors.append(f"table {i}: {type(error).__name__}: {error}"[:200])

    try:
        await asyncio.wait_for(asyncio.gather(*(table(i) for i in range(tables))), timeout)
    except TimeoutError:
        run.errors.append(f"stopped after --timeout {timeout:g} s")
    seconds = time.monotonic() - started
    bench_used = own_cpu() - bench_start
    sampler.cancel()
    made = len(run.presses)
    await asyncio.sleep(TRAILING)
    await settle(api, run.presses[:made], LATE)
    del run.presses[made:]  # presses of players not stopped yet, after the run's end
    used = sum(process.cpu_seconds() for process in cpu) - cpu_start
    database_used = database.cpu_seconds() - database_start if database is not None else 0.0
    figures = measure(run, first_call, time.monotonic())
    calls = sum(figures.by_kind.values())
    line = Line(setup, tables, figures.answers, figures.unanswered, run.deals, seconds,
                sum(figures.rate_limited.values()), calls, used, run.errors, database_used,
                figures.by_kind["group"] + figures.by_kind["private"], os.getloadavg())
    line.limited_by = dict(figures.limited_by)
    line.bench_cpu, line.loop_lags = bench_used, lags
    answered: dict[str, Call] = {}  # a press's first answer (as measure() counts it)
    for call in api.calls[first_call:]:
        if call.method == "answerCallbackQuery":
            answered.setdefault(str(call.params.get("callback_query_id")), call)
    line.answered_twice = sum(
        1 for call in api.calls[first_call:] if call.method == "answerCallbackQuery") - len(
        answered)
    delivery = api.webhooks
    for press in run.presses:
        payload = press.payload if press.payload in ("join", "start", "hint", "play", "pass") \
            else "bid/double" if not press.payload.startswith("r") else "select"
        answer = answered.get(press.query_id)
        update_id = update_of.get(press.query_id)
        if presses_file is not None:
            presses_file.write(json.dumps({"u": update_id, "p": payload, "pressed": press.time,
                                           "answered": answer.time if answer else None}) + "\n")
        if answer is not None:
            line.by_payload.setdefault(payload, []).append(answer.time - press.time)
            continue
        posts = [f"w{d.target}:{d.status}" for d in delivery.deliveries
                 if d.update_id == update_id] if delivery is not None else []
        line.lost.append(f"{press.payload} pressed at {press.time - started:.1f} s, update"
                         f" {update_id} POSTed {' '.join(posts) or 'never'}")
    return line


def own_cpu() -> float:
    """CPU seconds (user + system) this process used so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


#: Seconds between two samples of the event loop's lag (:func:`sample_lag`).
LAG_PERIOD = 0.1


async def sample_lag(lags: list[float]) -> None:
    """Append how late the event loop wakes a :data:`LAG_PERIOD` sleep, until cancelled."""
    while True:
        before = time.monotonic()
        await asyncio.sleep(LAG_PERIOD)
        lags.append(time.monotonic() - before - LAG_PERIOD)


#: Seconds after a run (and its trailing seconds) that the presses still unanswered are waited
#: for: a press answered that late is counted with its time, not as never answered.
LATE = 60.0


async def settle(api: StrictFakeBotApi, presses: list[Press], seconds: float) -> None:
    """Wait until every one of ``presses`` was answered, at most ``seconds``."""
    def answered() -> bool:
        done = {str(c.params.get("callback_query_id")) for c in api.calls
                if c.method == "answerCallbackQuery"}
        return all(press.query_id in done for press in presses)

    with contextlib.suppress(TimeoutError):
        await api.wait_for(answered, seconds)


def strict_api() -> StrictFakeBotApi:
    return StrictFakeBotApi(limits=FloodLimits(group_per_minute=20, overall_per_second=30))


async def run_sqlite(tables: int, args: argparse.Namespace) -> Line:
    api = strict_api()
    await api.start()
    with tempfile.TemporaryDirectory(prefix="ddz-workers-") as workdir:
        bot = BotProcess(api.token, api.base_url, Path(workdir), None)
        await bot.start()
        try:
            await api.wait_for("deleteWebhook", 60, since=0)
            await asyncio.sleep(0.5)
            return await play(api, tables, args.deals, args.think, args.seed, args.timeout,
                              [bot], "SQLite, 1 process")
        finally:
            await bot.stop()
            await api.stop()


async def run_workers(server: PostgresServer, tables: int, workers: int,
                      args: argparse.Namespace) -> Line:
    api = strict_api()
    await api.start()
    url = await server.create_database()
    workdir = tempfile.mkdtemp(prefix="ddz-workers-")  # kept: the workers' logs
    processes = [WorkerProcess(api.token, api.base_url, url, Path(workdir), f"w{i}",
                               {"LOG_LEVEL": args.log_level, "WORKER_LEASE": "10",
                                **dict(pair.split("=", 1) for pair in args.worker_env)})
                 for i in range(workers)]
    try:
        for process in processes:
            await process.start()
        await asyncio.gather(*(process.ready() for process in processes))
        await api.deliver_webhooks([p.url for p in processes], SECRET, parallel=40)
        line = await play(api, tables, args.deals, args.think, args.seed, args.timeout,
                          processes, f"PostgreSQL, {workers} worker{'s' * (workers > 1)}",
                          ServerCpu(server), args.presses)
        for process in processes:
            line.errors.extend(f"{process.name}: {p}"[:200] for p in process.problems()[:3])
        if line.errors:
            line.errors.append(f"the workers' logs: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
        return line
    finally:
        for process in processes:
            await process.stop()
        await api.stop()
        await server.drop_database(url)


def print_line(line: Line) -> None:
    p50, p95 = quantile(line.answers, 0.5), quantile(line.answers, 0.95)
    per_minute = line.deals / line.seconds * 60 if line.seconds else 0.0
    deals = max(1, line.deals)
    print(f"{line.setup:<24} {line.tables:>6} {p50 * 1000:>8.0f} {p95 * 1000:>8.0f}"
          f" {line.unanswered:>6} {line.deals:>6} {per_minute:>8.1f} {line.limited:>5}"
          f" {line.calls / deals:>8.0f} {line.cpu / deals:>8.2f}"
          f" {line.database_cpu / deals:>7.2f} {line.seconds:>6.0f}"
          f" {line.chat_calls / line.seconds if line.seconds else 0.0:>6.1f}"
          f" {(line.cpu + line.database_cpu) / line.seconds if line.seconds else 0.0:>5.2f}"
          f"  {' '.join(f'{x:.2f}' for x in line.load)}", flush=True)
    lags = line.loop_lags
    print(f"    harness (players + fake Bot API, one process): {line.bench_cpu / line.seconds:.2f}"
          f" cores; its event loop late by p50/p95/max {quantile(lags, 0.5) * 1000:.0f}/"
          f"{quantile(lags, 0.95) * 1000:.0f}/{max(lags, default=0) * 1000:.0f} ms;"
          f" bot {line.cpu / line.seconds:.2f}, PostgreSQL {line.database_cpu / line.seconds:.2f}"
          f" cores", flush=True)
    print("    answer p50/p95/max ms by button: " + ", ".join(
        f"{name} {quantile(times, 0.5) * 1000:.0f}/{quantile(times, 0.95) * 1000:.0f}"
        f"/{max(times) * 1000:.0f} ({len(times)})"
        for name, times in sorted(line.by_payload.items())), flush=True)
    if line.answered_twice:
        print(f"    ! {line.answered_twice} presses answered more than once", flush=True)
    if line.limited_by:
        print("    429s: " + ", ".join(f"{n} {window}" for window, n in
                                     sorted(line.limited_by.items())), flush=True)
    for lost in line.lost[:10]:
        print(f"    never answered: {lost}", flush=True)
    for error in line.errors[:5]:
        print(f"    ! {error}", flush=True)


async def main_async(args: argparse.Namespace) -> int:
    tables = [int(n) for n in args.tables.split(",")]
    counts = [int(n) for n in args.workers.split(",")]
    print(f"bench/workers.py on {code_version()}: {args.deals} deal(s) per table, think "
          f"{args.think:g} s, strict fake Bot API (20/group/min, 30/s)")
    print(f"{'setup':<24} {'tables':>6} {'p50 ms':>8} {'p95 ms':>8} {'unans':>6} {'deals':>6}"
          f" {'per min':>8} {'429s':>5} {'calls/d':>8} {'CPU s/d':>8} {'pg s/d':>7} {'wall s':>6}"
          f" {'chat/s':>6} {'cores':>5}"
          f"  load (1, 5, 15 min, at the end)", flush=True)
    server = PostgresServer()
    failed = False
    try:
        for n in tables:
            if not args.no_sqlite:
                line = await run_sqlite(n, args)
                print_line(line)
                failed |= bool(line.errors)
            for workers in counts:
                line = await run_workers(server, n, workers, args)
                print_line(line)
                failed |= bool(line.errors)
    finally:
        server.stop()
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="10,50,200")
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--deals", type=int, default=1)
    parser.add_argument("--think", type=float, default=0.6)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--no-sqlite", action="store_true", help="skip the SQLite baseline")
    parser.add_argument("--log-level", default="WARNING", help="the workers' LOG_LEVEL")
    parser.add_argument("--worker-env", action="append", default=[], metavar="K=V",
                        help="a setting added to every worker's environment (repeatable)")
    parser.add_argument("--presses", type=argparse.FileType("a"), metavar="FILE",
                        help="append one JSON line per press of the worker runs: its update id,"
                        " button, and the monotonic times it was pressed and answered")
    return asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
