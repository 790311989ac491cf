"""Arena of the four-player game (RULES.md §11): our AI against a random player, duplicate.

Usage::

    python bench/arena_four.py [--deals 500] [--seed 20240601] [--level normal] [--bid 1]
                               [--opponent random|easy|normal|hard]

Every deal is played twice (duplicate, RULES.md §10): once with the AI as the landlord against
three random farmers, once with the AI as the three farmers against a random landlord, so luck
cancels. Seat 0 is always the landlord: it bids ``--bid`` and the others pass (bid 1: each
farmer may play 1 bomb; bid 3 is 头撂: farmers bomb freely, and the landlord earns the bonus).
The random player picks uniformly among its legal actions (pass included when following), which
respect its bomb allowance; ``--opponent easy`` (or another level) pits two AI levels instead.

Figures: WP is the share of games the AI's side won; ADP the AI side's average points per game
(the landlord's points, or the three farmers' together); 95% CIs are normal approximations; the
overall line pairs the two games of each deal. Decision times are the AI's play decisions.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.action import Action  # noqa: E402
from engine.ai import choose_action  # noqa: E402
from engine.deal import apply, new_deal  # noqa: E402
from engine.presets import FOUR  # noqa: E402
from engine.view import SeatView  # noqa: E402

Player = Callable[[SeatView], Action]


def random_player(rng: random.Random) -> Player:
    return lambda view: rng.choice(view.legal_actions())


def play_game(seed: int, bid: int, players: list[Player], ai_seats: set[int],
              times: list[float]) -> tuple[bool, int]:
    """One deal with seat 0 the landlord at ``bid``; (the AI side won, its points)."""
    state = new_deal(FOUR, seed=seed, first_bidder=0)
    for action in (Action("bid", 0, value=bid), Action("pass", 1), Action("pass", 2),
                   Action("pass", 3)):
        if state.phase == "bidding":
            state = apply(state, action)
    assert state.phase == "playing" and state.landlord == 0
    while state.phase == "playing":
        seat = state.to_act[0]
        view = state.view(seat)
        start = time.perf_counter()
        action = players[seat](view)
        if seat in ai_seats:
            times.append(time.perf_counter() - start)
        state = apply(state, action)
    result = state.result
    assert result is not None and sum(result.points) == 0
    won = (result.winner == "landlord") == (0 in ai_seats)
    return won, sum(result.points[s] for s in ai_seats)


def mean_ci(xs: list[float]) -> str:
    m = statistics.fmean(xs)
    h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return f"{m:6.3f} ± {h:5.3f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--level", default="normal")
    parser.add_argument("--bid", type=int, default=1, choices=(1, 2, 3))
    parser.add_argument("--opponent", default="random")
    args = parser.parse_args(argv)
    ai: Player = lambda view: choose_action(view, args.level)  # noqa: E731
    times: list[float] = []
    land, farm = [], []
    start = time.perf_counter()
    for i in range(args.deals):
        seed = args.seed + i
        rnd = random_player(random.Random(seed)) if args.opponent == "random" else \
            (lambda view: choose_action(view, args.opponent))
        land.append(play_game(seed, args.bid, [ai, rnd, rnd, rnd], {0}, times))
        farm.append(play_game(seed, args.bid, [rnd, ai, ai, ai], {1, 2, 3}, times))
    elapsed = time.perf_counter() - start
    print(f"four-player arena (RULES.md §11): {args.deals} deals x 2 games, seed {args.seed}, "
          f"{args.level} AI vs {args.opponent}, seat 0 landlord at bid {args.bid} "
          f"({elapsed:.0f} s)")
    lw, lp = [float(w) for w, _ in land], [float(p) for _, p in land]
    fw, fp = [float(w) for w, _ in farm], [float(p) for _, p in farm]
    print(f"  as landlord : WP {mean_ci(lw)}   ADP {mean_ci(lp)}")
    print(f"  as farmers  : WP {mean_ci(fw)}   ADP {mean_ci(fp)}")
    print(f"  overall     : WP {mean_ci([(a + b) / 2 for a, b in zip(lw, fw, strict=True)])}"
          f"   ADP {mean_ci([(a + b) / 2 for a, b in zip(lp, fp, strict=True)])}")
    ms = sorted(t * 1000 for t in times)
    print(f"  decision time: median {statistics.median(ms):.2f} ms, "
          f"p99 {ms[int(0.99 * (len(ms) - 1))]:.2f} ms, max {ms[-1]:.2f} ms ({len(ms)} decisions)")


if __name__ == "__main__":
    main()
