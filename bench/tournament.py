"""A whole group's tournament (锦标赛, RULES.md §10.1) against the strict fake Bot API: press
latency, the token's busiest minute, the group board's pace, the bot's cost per deal.

    python bench/tournament.py [--members 30,12] [--preset quick,classic] [--stages 0]
                               [--think 0.6] [--seed 9] [--timeout 3600]

For every (members, preset) pair in turn (``--members 30,12 --preset quick,classic``: 30 members
play ``quick``, 12 play ``classic``; one preset serves every field) it starts the strict fake Bot
API and the real bot in its own process as bench/latency.py does (``tests.fakebot.limits``: 20
sends/edits/deletes per group in any sliding 60 s, 30 requests naming a chat in any second,
beyond that 429; ``ddz-bot`` with ``BOT_API_BASE_URL``, a fresh SQLite file, every setting at its
default, hands in private chats). In one group an admin opens ``/tournament <preset>`` (no
entry fee), every member presses Sign up ``--think`` seconds after the one before, the opener
presses Start (a full field of 30 starts by itself), and the tournament plays: each stage's
tables at once, each in its three players' private chats, where every member plays
bench/latency.py's human: ``--think`` seconds after their hand shows their turn they bid or
pass, call or decline, rarely double, and play with Hint then Play (Pass when Hint finds
nothing). A member out of the tournament waits for its end. The run ends with the final
ranking in the group, or, with ``--stages N``, once stage N + 1 is drawn (its tables are not
played: a shorter run that still measures whole stages); then the bot gets 5 s for trailing
edits and is stopped; ``--timeout`` seconds bound the whole.

Printed per run:

- the stages played: tables finished of those drawn (from the bot's SQLite file, read after it
  stopped) and each stage's seconds, from its draw in the group to the next one (or the end);
- press → ``answerCallbackQuery`` and press → own hand edit (the first edit of the presser's
  hand message in their private chat, or a new hand message, after the press): n, p50, p95,
  max in ms, and the answers by button; presses never answered, hand edits missing;
- 429s the fake answered;
- Bot API calls by kind (group, private, answers, other) in all and per deal;
- the token's requests per second at its busiest minute: the requests naming a chat (what
  Telegram's 30 a second counts; answers not) in the sliding 60 s that holds the most, / 60;
  also with the answers, and the busiest single second; the answers split by how busy the
  token was in the second before the press (fewer than 25 requests naming a chat, or more);
- the group: its sends/edits/deletes in its busiest minute (the budget: 20) and the board's
  draws: how many, and the shortest gap between two draws that show the same stage (the board
  is redrawn at most once a minute, and at once for a new stage or the end);
- the bot process's CPU seconds per deal played (user + system, /proc) and its peak RSS;
- PASS/FAIL: answer p95 ≤ 100 ms, every press answered, own hand edit p95 ≤ 250 ms, zero
  429s, every table of every stage drawn (up to ``--stages``) finished and the tournament
  over (without ``--stages``), the board within its budget (no two paced draws less than
  57 s apart: a draw may wait up to 3 s for a group slot; the group's busiest minute ≤ 20),
  the busiest minute ≤ 28 requests a second.

A 30-member ``quick`` tournament is 15 deals one after another (three stages of 3, a final of
6) and takes about a quarter of an hour; a 12-member ``classic`` one is 30 (three stages of
10). Linux only (/proc).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import itertools
import os
import random
import sqlite3
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this repo's bench, bot, tests

from bench.latency import (  # noqa: E402
    ANSWER_P95_10,
    EDITS,
    HAND_EDIT_P95,
    SENDS,
    TOKEN_RATE,
    BotProcess,
    Figures,
    Run,
    Usage,
    code_version,
    measure,
    measured,
    payloads,
    play_seat,
    quantiles,
    verdict,
)
from bot.core.i18n import t  # noqa: E402
from engine.tournament import plan, tournament_preset  # noqa: E402
from tests.bot.flow_helpers import LANG, call_text  # noqa: E402
from tests.fakebot import Chat, FakeMessage, User  # noqa: E402
from tests.fakebot.limits import FloodLimits, StrictFakeBotApi  # noqa: E402

#: The issue's ceiling for the token's busiest minute, requests a second (of Telegram's 30).
BUSIEST_RATE = 28.0
#: A group's budget: sends, edits and deletes in any 60 s.
GROUP_PER_MINUTE = 20
#: The board is drawn at most once a minute (``driver.BOARD_INTERVAL``) by the bot's schedule;
#: a draw that waited for a slot in the group's minute (one every 3 s at 20 a minute) arrives
#: that much later, so the next one may arrive that much less than a minute after it.
BOARD_INTERVAL, BOARD_SLACK = 60.0, 3.0
#: Put in a text's placeholder to cut the text there (:func:`prefix`).
MARK = "\x00"
#: Requests naming a chat in one second from which the token counts as busy (of its 30).
FULL_SECOND = 25


def prefix(key: str, **values: object) -> str:
    """The start of text ``key`` (in the bench's language) before the placeholder given
    :data:`MARK` (the whole text when none is)."""
    return t(key, LANG, **values).split(MARK)[0]


@dataclass
class Tournament:
    """One tournament the bench plays: its group, members and texts to look for."""

    api: StrictFakeBotApi
    group: Chat
    members: list[User]
    tournament_id: int = 0
    #: How many stages to play (0: all); the run ends when stage ``stages + 1`` is drawn.
    stages: int = 0

    def texts(self, key: str, **values: object) -> list[FakeMessage]:
        """The group's messages that start with text ``key`` of this tournament."""
        start = prefix(key, id=self.tournament_id, **values)
        return [m for m in self.api.messages_in(self.group) if m.content.startswith(start)]

    def finished(self) -> bool:
        """The final ranking or a cancel is in the group, or stage ``stages + 1`` was drawn."""
        if self.texts("tour.final_title") or self.texts("tour.cancelled", by=MARK, n=0, beans=0):
            return True
        return bool(self.stages) and len(self.texts("tour.draw_title", stage=MARK)) > \
            self.stages


def signup_message(api: StrictFakeBotApi, group: Chat) -> FakeMessage | None:
    """The group's sign-up message while it has its Sign up button."""
    for message in reversed(api.messages_in(group)):
        if "join" in payloads(message) and payloads(message)["join"].startswith("T:"):
            return message
    return None


async def play_tournament(run: Run, tour: Tournament, preset: str, timeout: float) -> None:
    """Open the tournament, sign every member up, start it and play every member's turns
    until it is over (see the module docstring)."""
    api = run.api
    opener = tour.members[0]
    api.make_admin(tour.group, opener)
    for user in tour.members:
        api.open_private_chat(user)
        run.table_of[user.id] = tour.group.id  # a final in the group ends every wait
    api.send_text(opener, tour.group, f"/tournament {preset}")
    shown = await run.wait(lambda: signup_message(api, tour.group), 60, chats=(tour.group.id,))
    assert isinstance(shown, FakeMessage)
    tour.tournament_id = int(payloads(shown)["join"].split(":")[1])
    for user in tour.members:
        await asyncio.sleep(run.think)
        message = signup_message(api, tour.group) or shown
        await run.press(user, message, payloads(message)["join"])
    await asyncio.sleep(run.think)
    latest = signup_message(api, tour.group)
    if latest is not None and "start" in payloads(latest):  # a full field started by itself
        await run.press(opener, latest, payloads(latest)["start"])
    await asyncio.gather(*(play_seat(run, user, tour.finished, timeout)
                           for user in tour.members))


# --- Figures --------------------------------------------------------------------------------


def busiest(times: list[float], window: float) -> int:
    """The most of ``times`` (sorted seconds) in any ``window`` seconds."""
    most = first = 0
    for last, moment in enumerate(times):
        while times[first] <= moment - window:
            first += 1
        most = max(most, last - first + 1)
    return most


@dataclass
class Stored:
    """What the bot stored, read from its SQLite file after it stopped: the tournament's status,
    per stage its tables drawn and finished, the deals played to their result."""

    status: str = "none"
    stages: dict[int, tuple[int, int]] = field(default_factory=dict)
    deals: int = 0


def stored(bot: BotProcess) -> Stored:
    path = bot.workdir / "ddz.sqlite3"
    if not path.exists():
        return Stored()
    out = Stored()
    with contextlib.closing(sqlite3.connect(path)) as db:
        for (status,) in db.execute("SELECT status FROM tournaments"):
            out.status = status
        for stage, drawn, done in db.execute(
                "SELECT stage, COUNT(*), SUM(status = 'done') FROM tournament_tables "
                "GROUP BY stage ORDER BY stage"):
            out.stages[int(stage)] = (int(drawn), int(done or 0))
        out.deals = db.execute(  # a tournament deal is closed with its result, no beans
            "SELECT COUNT(*) FROM deals WHERE json_extract(state, '$.result') IS NOT NULL"
        ).fetchone()[0]
    return out


@dataclass
class Traffic:
    """The run's requests: the busiest minute and second, the group's budget, the board."""

    chat_minute: int
    with_answers_minute: int
    chat_second: int
    group_minute: int
    board_draws: int
    #: The shortest gap between two board draws that show the same stage (seconds): the
    #: paced redraws (a new stage or the end is drawn at once).
    board_gap: float
    #: Seconds of each stage, from its draw in the group to the next draw (or the end).
    stage_seconds: list[float]
    group_kinds: Counter[str]
    #: press → answer seconds of the presses made when the token had sent fewer than
    #: :data:`FULL_SECOND` requests naming a chat in the second before, and of the others.
    calm_answers: list[float] = field(default_factory=list)
    busy_answers: list[float] = field(default_factory=list)


def traffic(run: Run, tour: Tournament, first_call: int, end: float) -> Traffic:
    calls = [c for c in run.api.calls[first_call:] if c.method != "getUpdates" and c.ok]
    named = sorted(c.time for c in calls if c.params.get("chat_id") is not None)
    with_answers = sorted(c.time for c in calls if c.params.get("chat_id") is not None
                          or c.method == "answerCallbackQuery")
    group = [c for c in calls if str(c.params.get("chat_id")) == str(tour.group.id)]
    tid = tour.tournament_id
    board_start = prefix("tour.board_title", id=tid, stage=MARK)
    draw_start = prefix("tour.draw_title", id=tid, stage=MARK)
    final_start = prefix("tour.final_title", id=tid)
    board_ids = {m.message_id for m in run.api.messages_in(tour.group)
                 if m.content.startswith(board_start)}
    over = (t("tour.board_finished", LANG), t("tour.board_cancelled", LANG))
    kinds: Counter[str] = Counter()
    boards: list[tuple[float, str]] = []  # (when, its stage line and whether it is over)
    changes: list[float] = []
    for call in group:
        text = call_text(call)
        if call.method in SENDS and text.startswith(board_start) or call.method in EDITS \
                and int(call.params.get("message_id") or 0) in board_ids:
            kinds["board"] += 1
            shows = text.split("\n", 1)[0] + "".join(mark for mark in over if mark in text)
            boards.append((call.time, shows if text else boards[-1][1] if boards else ""))
        elif call.method in SENDS and text.startswith((draw_start, final_start)):
            kinds["draws and final"] += 1
            changes.append(call.time)
        elif call.method in SENDS and call.params.get("reply_markup") is None:
            kinds["other notes"] += 1
        else:
            kinds["sign-up and the rest"] += 1
    # a draw showing another stage (or the end) than the one before is drawn at once: the
    # paced ones are those that show the same stage
    gaps = [after - before for (before, shown), (after, shows) in itertools.pairwise(boards)
            if shows == shown]
    stage_ends = [*changes[1:], end]
    out = Traffic(busiest(named, 60.0), busiest(with_answers, 60.0), busiest(named, 1.0),
                  busiest(sorted(c.time for c in group), 60.0), len(boards),
                  min(gaps, default=float("inf")),
                  [b - a for a, b in zip(changes, stage_ends, strict=True)], kinds)
    answered = {str(c.params.get("callback_query_id")): c.time
                for c in reversed(calls) if c.method == "answerCallbackQuery"}  # the first
    for press in run.presses:
        when = answered.get(press.query_id)
        if when is not None:
            sent = bisect.bisect(named, press.time) - bisect.bisect(named, press.time - 1.0)
            (out.busy_answers if sent >= FULL_SECOND else out.calm_answers).append(
                when - press.time)
    return out


# --- One run --------------------------------------------------------------------------------


async def run_once(members: int, preset: str, stages: int, think: float, seed: int,
                   timeout: float) -> bool:
    api = StrictFakeBotApi(limits=FloodLimits(group_per_minute=GROUP_PER_MINUTE,
                                              overall_per_second=TOKEN_RATE))
    await api.start()
    run = Run(api, think, random.Random(seed))
    group = api.new_group("Bench tournament")
    tour = Tournament(api, group, [api.new_user(f"M{n:02d}") for n in range(members)],
                      stages=stages)
    try:
        with tempfile.TemporaryDirectory(prefix="ddz-tournament-") as workdir:
            bot = BotProcess(api.token, api.base_url, Path(workdir), None,
                             env={"DEFAULT_HANDS": "private"})
            async with measured(bot, api) as usage:
                try:
                    await asyncio.wait_for(play_tournament(run, tour, preset, timeout), timeout)
                except TimeoutError:
                    run.errors.append(f"stopped after --timeout {timeout:g} s")
                except Exception as error:  # noqa: BLE001 - reported with the figures
                    run.errors.append(f"{type(error).__name__}: {error}"[:300])
            kept = stored(bot)
    finally:
        await api.stop()
    figures = measure(run, usage.first_call, usage.end)
    return report(members, preset, stages, run, tour, usage, figures, kept,
                  traffic(run, tour, usage.first_call, usage.end))


def report(members: int, preset: str, stages: int, run: Run, tour: Tournament, usage: Usage,
           fig: Figures, kept: Stored, load: Traffic) -> bool:
    planned = plan(tournament_preset(preset), members)
    print(f"== {code_version()}: {members} members, {preset} tournament ("
          + ", ".join(f"{s.tables} table(s) x {s.stage.format}" for s in planned)
          + f"), {'all stages' if not stages else f'stages 1-{stages}'}, presses "
          f"{run.think:g} s after a change, strict fake Bot API (20/group/60 s sliding, "
          f"30/s) ==")
    print(f"tournament {kept.status}; deals played {kept.deals} in "
          f"{usage.end - usage.started:.1f} s; presses {len(run.presses)}, never answered "
          f"{fig.unanswered}; hand edits missing {fig.no_hand_edit}; bot exit status "
          f"{usage.status}, log errors {len(usage.problems)}")
    for error in run.errors[:5] + usage.problems[:5]:
        print(f"  ! {error}")
    for number, (drawn, done) in sorted(kept.stages.items()):
        if stages and number > stages:
            print(f"  stage {number}: {drawn} table(s) drawn, not played (--stages {stages})")
            continue
        seconds = load.stage_seconds[number - 1] if number <= len(load.stage_seconds) else 0
        print(f"  stage {number}: tables finished {done}/{drawn}, {seconds:.0f} s")
    print(f"{'latency (ms)':32}{'n':>6}{'p50':>8}{'p95':>8}{'max':>8}")
    stats = {}
    for name, values in (("press -> answerCallbackQuery", fig.answers),
                         ("press -> own hand edit", fig.hand_edits)):
        stats[name] = quantiles(values)
        p50, p95, top = stats[name]
        print(f"  {name:30}{len(values):>6}{p50 * 1000:>8.0f}{p95 * 1000:>8.0f}"
              f"{top * 1000:>8.0f}")
    print("  answer by button (n p50/p95/max ms): " + ", ".join(
        f"{name} {len(values)} " + "/".join(f"{q * 1000:.0f}" for q in quantiles(values))
        for name, values in sorted(fig.answers_by_button.items())))
    for name, values in ((f"under {FULL_SECOND}", load.calm_answers),
                         (f"{FULL_SECOND} or more", load.busy_answers)):
        print(f"  answers when the token sent {name} requests in the second before the press: "
              f"n {len(values)}, p50/p95/max " + "/".join(f"{q * 1000:.0f}"
                                                         for q in quantiles(values)) + " ms")
    limited = sum(fig.rate_limited.values())
    print(f"429s received: {limited}" + (f" ({dict(fig.rate_limited)}; "
                                         f"{dict(fig.limited_by)})" if limited else ""))
    done = max(kept.deals, 1)
    total = sum(fig.by_method.values())
    print(f"Bot API calls {total} ({total / done:.1f} per deal): group {fig.by_kind['group']}, "
          f"private {fig.by_kind['private']}, answers {fig.by_kind['answers']}, other "
          f"{fig.by_kind['other']}; the group's: "
          + ", ".join(f"{k} {v}" for k, v in load.group_kinds.most_common()))
    rate = load.chat_minute / 60
    print(f"token's busiest minute: {rate:.1f} requests/s naming a chat "
          f"({load.chat_minute} in 60 s; with the answers {load.with_answers_minute / 60:.1f}/s);"
          f" busiest second {load.chat_second}")
    print(f"group: busiest minute {load.group_minute} sends/edits (budget {GROUP_PER_MINUTE}); "
          f"board drawn {load.board_draws} times, shortest gap between two of one stage "
          f"{load.board_gap:.1f} s")
    cpu, own_cpu = usage.cpu, usage.own_cpu
    print(f"bot process: {cpu / done:.2f} CPU-s per deal ({cpu:.1f} s in all), peak RSS "
          f"{usage.rss[2]:.0f} MB (RSS {usage.rss[0]:.0f} MB before the sign-up, "
          f"{usage.rss[1]:.0f} MB after); actions per deal {usage.actions / done:.1f}; the "
          f"bench itself {own_cpu:.1f} CPU-s; load average {os.getloadavg()[0]:.1f}")
    answer_p95 = stats["press -> answerCallbackQuery"][1]
    hand_p95 = stats["press -> own hand edit"][1]
    expected = len(planned) if not stages else min(stages, len(planned))
    finished_tables = len(kept.stages) >= expected and all(
        done_ == drawn for number, (drawn, done_) in kept.stages.items() if number <= expected)
    over = kept.status == "finished" if not stages else True
    checks = [
        ("answer p95 <= 100 ms", answer_p95 <= ANSWER_P95_10, f"{answer_p95 * 1000:.0f} ms"),
        ("every press answered", fig.unanswered == 0, f"{fig.unanswered} never answered"),
        ("own hand edit p95 <= 250 ms", hand_p95 <= HAND_EDIT_P95, f"{hand_p95 * 1000:.0f} ms"),
        ("zero 429s", limited == 0, str(limited)),
        ("every table of a stage finished", finished_tables and over and not run.errors,
         ", ".join(f"{done_}/{drawn}" for number, (drawn, done_) in sorted(kept.stages.items())
                   if number <= expected) + f"; tournament {kept.status}"),
        ("group board within its budget",
         load.board_gap >= BOARD_INTERVAL - BOARD_SLACK and load.group_minute <= GROUP_PER_MINUTE,
         f"gap {load.board_gap:.1f} s, {load.group_minute}/min"),
        (f"busiest minute <= {BUSIEST_RATE:g} requests/s", rate <= BUSIEST_RATE, f"{rate:.1f}"),
    ]
    return verdict("targets:", checks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", default="30,12", help="comma-separated field sizes")
    parser.add_argument("--preset", default="quick,classic",
                        help="comma-separated presets, one per field (or one for all)")
    parser.add_argument("--stages", type=int, default=0,
                        help="play only the first N stages (0: to the final ranking)")
    parser.add_argument("--think", type=float, default=0.6, help="seconds before a press")
    parser.add_argument("--seed", type=int, default=9, help="seed of the players' choices")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per run at most")
    args = parser.parse_args(argv)
    fields = [int(n) for n in args.members.split(",")]
    presets = [p.strip() for p in args.preset.split(",")]
    if len(presets) == 1:
        presets *= len(fields)
    if len(presets) != len(fields):
        parser.error("--preset takes one preset, or one per --members field")
    ok = True
    for members, preset in zip(fields, presets, strict=True):
        ok &= asyncio.run(run_once(members, preset, args.stages, args.think, args.seed,
                                   args.timeout))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
