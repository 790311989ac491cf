"""Arena: the AI against reference opponents in duplicate play (issues 6 and 17, RULES.md §10).

Usage::

    python bench/arena.py                       # 2,000 deals, hard vs random and vs RLCard rule
    python bench/arena.py --seed 9 --levels hard,normal,easy --opponents random,rlcard --h2h
    python bench/arena.py --deals 300 --levels hard --opponents normal --bidding score,rob

Every deal is played twice (duplicate, RULES.md §10): once with the AI as the landlord against two
opponent farmers, once with the AI as both farmers against an opponent landlord. Luck cancels.
``--h2h`` also plays each level of ``--levels`` against the next one (hard vs normal, normal vs
easy). At the end the WP table (overall WP per level and opponent) and the decision-time
percentiles per level are printed.

Setup, since the reference agent has no bidding: the deal is dealt with the engine's
``new_deal(SCORE, seed=seed + i)``; seat 0 bids 1 and the others pass, so seat 0 is always the
landlord at base 1 with the score preset (no doubling, no show); bombs, rockets and spring still
multiply (RULES.md §7). Points are the engine's result points (RULES.md §7).

``--bidding score,rob`` plays whole deals instead, from the bidding on with that preset: each deal
once with the AI in one chair (seat ``seed % 3``; the first bidder rotates too) and the opponent
in the other two, once with the opponent in all three; the chair's WP and points are compared
(RLCard bids and doubles with our ``easy`` baseline, having no bidding of its own). All-pass
redeals are left out.

Figures: WP is the share of games the AI's side won; ADP is the AI side's average points per game
(the landlord's points when the AI is landlord, the two farmers' points when it farms). 95% CIs
are normal approximations; the overall line pairs the two games of each deal.

Our AI decides with ``seed=`` the deal's seed, as a duplicate challenge seeds its AI seats: the
searches are then bounded by position counts only (no wall clock), so the times printed are those
of the deterministic mode.

Opponents:

* ``random``: a uniformly random legal action (pass included when following).
* ``easy``, ``normal``, ``hard``: our own levels (to compare levels head to head).
* ``rlcard``: RLCard's rule agent ``doudizhu-rule-v1`` (``DouDizhuRuleAgentV1``) acting from our
  state. It reads ``raw_obs`` fields ``current_hand``, ``trace``, ``actions``, ``landlord`` and
  ``self``; we build them from the seat's view (RLCard's card letters: ``B``/``R`` for the small
  and big joker; RLCard's player 0 is the landlord, as our seat 0; the legal action strings come
  from the engine's legal plays, which are exactly RLCard's under the default rules). RLCard is
  installed on demand into ``bench/.arena-venv`` and the arena re-runs itself there.

Decision times (ms) are measured for the AI's play decisions only (bidding is instant).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.action import Action  # noqa: E402
from engine.ai import LEVELS, choose_action  # noqa: E402
from engine.cards import RANK_CHARS  # noqa: E402
from engine.deal import apply, new_deal  # noqa: E402
from engine.presets import PRESETS, SCORE  # noqa: E402

VENV = ROOT / "bench" / ".arena-venv"
RLCARD_VERSION = "1.2.0"
RL_CHARS = RANK_CHARS.replace("X", "B").replace("D", "R")

Player = Callable[..., Action]


# --- opponents -------------------------------------------------------------------------------


def random_player(rng: random.Random) -> Player:
    def act(view) -> Action:
        legal = [a for a in view.legal_actions() if a.kind != "show"]
        return rng.choice(legal)
    return act


def _rl(ranks) -> str:
    return "".join(RL_CHARS[r] for r in sorted(ranks))


def rlcard_player(seed: int) -> Player:
    """RLCard's DouDizhuRuleAgentV1 acting from our SeatView (see module doc)."""
    import numpy as np
    from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

    agent = DouDizhuRuleAgentV1()
    np.random.seed(seed)

    def act(view) -> Action:
        history = view.history
        first_play = next((i for i, a in enumerate(history) if a.kind == "play"), len(history))
        trace = [(a.seat, _rl(a.cards) if a.kind == "play" else "pass")
                 for a in history[first_play:] if a.kind in ("play", "pass")]
        legal = [a for a in view.legal_actions() if a.kind in ("play", "pass")]
        strings = {(_rl(a.cards) if a.kind == "play" else "pass"): a for a in legal}
        obs = {"current_hand": _rl(view.hand_ranks), "trace": trace,
               "actions": list(strings), "landlord": view.landlord, "self": view.seat}
        choice = agent.step({"raw_obs": obs})
        if choice not in strings:  # never seen; stay legal whatever the agent says
            choice = sorted(strings)[0]
        return strings[choice]
    return act


# --- one game --------------------------------------------------------------------------------


def play_game(seed: int, players: list[Player], times: list, ai_seats: set[int]):
    state = new_deal(SCORE, seed=seed, first_bidder=0)
    for a in (Action("bid", 0, value=1), Action("pass", 1), Action("pass", 2)):
        state = apply(state, a)
    assert state.phase == "playing" and state.landlord == 0
    state = play_out(state, players, times, ai_seats)
    result = state.result
    ours = sum(result.points[s] for s in ai_seats)
    won = (result.winner == "landlord") == (0 in ai_seats)
    return won, ours


def play_out(state, players: list[Player], times: list, ai_seats: set[int]):
    """Play ``state`` to its end; the decision times of ``ai_seats`` go to ``times`` as
    ``(wall-clock, CPU)`` seconds."""
    while state.phase in ("bidding", "doubling", "playing"):
        seat = state.to_act[0]
        view = state.view(seat)
        t0, c0 = time.perf_counter(), time.process_time()
        action = players[seat](view)
        if seat in ai_seats and state.phase == "playing":
            times.append((time.perf_counter() - t0, time.process_time() - c0))
        state = apply(state, action)
    return state


def ai_player(level: str, seed: int) -> Player:
    """Our AI at ``level``, seeded by the deal (as a duplicate challenge seeds its AI seats:
    deterministic, no wall clock)."""
    return lambda view: choose_action(view, level, seed=seed)


def make_opponent(name: str, seed: int) -> Player:
    if name == "random":
        return random_player(random.Random(seed))
    if name == "rlcard":
        return rlcard_player(seed % (2**32))
    if name in LEVELS:
        return ai_player(name, seed + 7)
    raise ValueError(f"unknown opponent {name!r}")


def run_deal(args: tuple[str, str, int]):
    """Both games of one deal: AI landlord, then AI farmers."""
    level, opponent, seed = args
    times: list[tuple[float, float]] = []
    ai = ai_player(level, seed)
    opp = make_opponent(opponent, seed)
    a = play_game(seed, [ai, opp, opp], times, {0})
    b = play_game(seed, [opp, ai, ai], times, {1, 2})
    return a, b, times


# --- whole deals with bidding ------------------------------------------------------------------


def bidding_player(name: str, seed: int) -> Player:
    """An opponent for whole deals: RLCard's agent has no bidding, so it bids (and doubles)
    with our ``easy`` baseline and plays with its own rules."""
    play = make_opponent(name, seed)
    if name != "rlcard":
        return play
    easy = ai_player("easy", seed)
    return lambda view: play(view) if view.phase == "playing" else easy(view)


def run_whole_deal(args: tuple[str, str, str, int]):
    """One deal from the bidding on, twice: the AI in one chair (``seed % 3``) against two
    opponents, then the opponent in that chair too. Returns per game (won, points) of that
    chair, ``None`` for a redeal (all passed), and the AI's decision times."""
    level, opponent, preset_name, seed = args
    rules = PRESETS[preset_name]
    chair, first = seed % 3, (seed // 3) % 3
    times: list[tuple[float, float]] = []
    out = []
    for with_ai in (True, False):
        opp = bidding_player(opponent, seed)
        players = [opp, opp, opp]
        if with_ai:
            players[chair] = ai_player(level, seed)
        state = play_out(new_deal(rules, seed=seed, first_bidder=first), players, times,
                         {chair} if with_ai else set())
        if state.result is None or state.result.winner is None:
            out.append(None)
            continue
        won = (state.result.winner == "landlord") == (state.result.landlord == chair)
        out.append((won, state.result.points[chair], state.result.landlord == chair))
    return out[0], out[1], times


# --- statistics ------------------------------------------------------------------------------


def mean_ci(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, float("nan")
    return m, 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))


def fmt(xs: list[float]) -> str:
    m, h = mean_ci(xs)
    return f"{m:6.3f} ± {h:5.3f}"


def report(level: str, opponent: str, rows, elapsed: float) -> list[float]:
    """Print one match; returns the overall WP per deal (the two games averaged)."""
    land_w = [float(a[0]) for a, _, _ in rows]
    land_p = [float(a[1]) for a, _, _ in rows]
    farm_w = [float(b[0]) for _, b, _ in rows]
    farm_p = [float(b[1]) for _, b, _ in rows]
    both_w = [(x + y) / 2 for x, y in zip(land_w, farm_w, strict=True)]
    both_p = [(x + y) / 2 for x, y in zip(land_p, farm_p, strict=True)]
    print(f"\n{level} vs {opponent}: {len(rows)} deals x 2 games ({elapsed:.0f} s)")
    print(f"  as landlord : WP {fmt(land_w)}   ADP {fmt(land_p)}")
    print(f"  as farmers  : WP {fmt(farm_w)}   ADP {fmt(farm_p)}")
    print(f"  overall     : WP {fmt(both_w)}   ADP {fmt(both_p)}")
    return both_w


def report_whole(level: str, opponent: str, preset_name: str, rows, elapsed: float) -> None:
    """Print one whole-deal match (see :func:`run_whole_deal`)."""
    played = [(a, b) for a, b, _ in rows if a is not None and b is not None]
    gain = [a[1] - b[1] for a, b in played]
    print(f"\n{level} in one chair among {opponent}, {preset_name} bidding: {len(rows)} deals, "
          f"{len(played)} played by both ({elapsed:.0f} s)")
    print(f"  chair WP    : {level} {fmt([float(a[0]) for a, _ in played])}   "
          f"{opponent} {fmt([float(b[0]) for _, b in played])}")
    print(f"  chair points: {level} {fmt([float(a[1]) for a, _ in played])}   "
          f"{opponent} {fmt([float(b[1]) for _, b in played])}   gain {fmt(gain)}")
    print(f"  landlord    : {level} {sum(a[2] for a, _ in played) / max(1, len(played)):.3f}"
          f"   {opponent} {sum(b[2] for _, b in played) / max(1, len(played)):.3f}"
          f" of deals")


def percentiles(times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    if not ms:
        return "no decisions"

    def at(q: float) -> float:
        return ms[int(q * (len(ms) - 1))]
    return (f"median {at(0.5):6.2f}  p90 {at(0.9):6.2f}  p99 {at(0.99):6.2f}  "
            f"max {ms[-1]:7.2f}  ({len(ms)} decisions)")


def run(tasks, fn, jobs: int):
    if jobs > 1:
        with Pool(jobs) as pool:
            return pool.map(fn, tasks, chunksize=8)
    return [fn(t) for t in tasks]


def ensure_rlcard() -> None:
    """Re-run inside bench/.arena-venv (created on demand) unless rlcard imports here."""
    try:
        import rlcard  # noqa: F401
        return
    except ImportError:
        pass
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV} with rlcard=={RLCARD_VERSION} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"rlcard=={RLCARD_VERSION}"],
                       check=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    os.execve(str(python), [str(python), *sys.argv], env)


def freeze_reference_tables() -> None:
    """Load RLCard's agent and move its static tables (about 100,000 objects) out of the garbage
    collector's reach (``gc.freeze``): otherwise every full collection scans them, and the pause
    lands in whichever decision is running, ours included. The bot's process holds no such
    tables (and may freeze its own start-up objects the same way)."""
    from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1  # noqa: F401

    gc.collect()
    gc.freeze()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--levels", default="hard")
    parser.add_argument("--opponents", default="random,rlcard")
    parser.add_argument("--h2h", action="store_true",
                        help="also play each level against the next one in --levels")
    parser.add_argument("--bidding", default="",
                        help="presets (score,rob) for whole deals with bidding instead")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)
    opponents = [o for o in args.opponents.split(",") if o]
    levels = args.levels.split(",")
    if "rlcard" in opponents:
        ensure_rlcard()
        freeze_reference_tables()
    if args.bidding:
        print(f"arena: {args.deals} whole deals, seed {args.seed}, bidding {args.bidding}, "
              f"one chair replaced (see bench/arena.py)")
        for preset_name in args.bidding.split(","):
            for level in levels:
                for opponent in opponents:
                    tasks = [(level, opponent, preset_name, args.seed + i)
                             for i in range(args.deals)]
                    t0 = time.perf_counter()
                    rows = run(tasks, run_whole_deal, args.jobs)
                    report_whole(level, opponent, preset_name, rows, time.perf_counter() - t0)
        return
    print(f"arena: {args.deals} deals, seed {args.seed}, duplicate, score preset base 1, "
          f"landlord = seat 0 (see bench/arena.py)")
    matches = [(level, opponent) for level in levels for opponent in opponents]
    if args.h2h:
        matches += list(zip(levels, levels[1:], strict=False))
    table: dict[tuple[str, str], list[float]] = {}
    times: dict[str, list[tuple[float, float]]] = {level: [] for level in levels}
    for level, opponent in matches:
        tasks = [(level, opponent, args.seed + i) for i in range(args.deals)]
        t0 = time.perf_counter()
        rows = run(tasks, run_deal, args.jobs)
        table[level, opponent] = report(level, opponent, rows, time.perf_counter() - t0)
        times[level] += [t for _, _, ts in rows for t in ts]
    print(f"\nWP table: overall WP ± 95% CI, {args.deals} deals x 2 games, seed {args.seed}")
    columns = list(dict.fromkeys(o for _, o in matches))
    print("  " + f"{'':8}" + "".join(f"{'vs ' + c:>18}" for c in columns))
    for level in levels:
        cells = [fmt(table[level, c]) if (level, c) in table else "" for c in columns]
        print("  " + f"{level:8}" + "".join(f"{c:>18}" for c in cells))
    print(f"\ndecision time per play decision, ms ({args.jobs} job(s), AI seeded; wall clock, "
          f"then the process's CPU time, which leaves out waiting for a shared CPU):")
    for level in levels:
        print(f"  {level:8}wall {percentiles([w for w, _ in times[level]])}")
        print(f"  {'':8}CPU  {percentiles([c for _, c in times[level]])}")
    print(f"  load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
