"""Benchmark of legal-move generation (``engine.legal_moves``), optionally against RLCard, DouZero.

    python bench/movegen.py [--hands 1000] [--seed 2024] [--repeat 5] [--compare]
    python bench/movegen.py --four [--hands 1000] [--seed 2024] [--repeat 5]

``--four`` times the four-player, two-deck game instead (RULES.md §11): random 33-card landlord
hands and 25-card farmer hands from two decks, leading and following each type (the play to
beat drawn from what the other cards allow), and prints the median per call with the number
of distinct plays (cards, type) of a lead; the target is a lead from 33 cards under 5 ms.

Draws ``--hands`` random 20-card and 17-card hands from a fixed seed. For every hand it times
leading, and following each play type: the play to beat is drawn from the moves of that type
that the other cards of the deck (the opponents' cards) allow. Prints the median µs per call
(each case: best of ``--repeat`` calls; the median of the first, cold calls in brackets).

``--compare`` creates (once) a virtualenv in ``bench/.compare-venv`` with ``rlcard`` and
``douzero`` (``--no-deps``; plus numpy, which both import), then runs the timing there, so that
the three generators are timed in one process on the same cases with the same method. It also
checks that our move sets equal RLCard's on every case (RULES.md §5: RLCard's 27,471 plays are
our rule set) and prints the ratios ours/theirs. DouZero's rule set differs slightly (e.g. its
kickers may hold both jokers), so only its speed is compared. Neither package is a dependency
of the project.

Adapters, each calling the library the way its own game loop does:
    RLCard leading: ``DoudizhuJudger.playable_cards_from_hand(sorted hand string)``;
    RLCard following: ``utils.get_gt_cards(player, greater_player)`` (players as stubs);
    DouZero leading and following: ``GameEnv.get_legal_card_play_actions`` (a stub game holding
    the hand and the last move), which builds ``MovesGener`` and filters with ``move_selector``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the compare venv does not have the project installed
    sys.path.insert(0, str(ROOT))

from engine import FOUR, ComboType, classify, format_ranks, legal_moves, parse_ranks  # noqa: E402

VENV = ROOT / "bench" / ".compare-venv"
COMPARE_PACKAGES = (["rlcard", "numpy"], ["--no-deps", "douzero"])
DECK = tuple(r for r in range(13) for _ in range(4)) + (13, 14)
IMPLS = ("ours", "rlcard", "douzero")


# ---------------------------------------------------------------- cases (parent process)

def draw_cases(hands: int, seed: int) -> list[dict]:
    """Lead and follow cases: ``{"size", "kind", "hand", "prev"}`` with card strings."""
    rng = random.Random(seed)
    cases = []
    for size in (20, 17):
        for _ in range(hands):
            deck = list(DECK)
            rng.shuffle(deck)
            hand, others = format_ranks(deck[:size]), deck[size:]
            cases.append({"size": size, "kind": "lead", "hand": hand, "prev": None})
            by_type: dict[ComboType, list[str]] = {}
            for play in legal_moves(others):
                by_type.setdefault(play.type, []).append(str(play))
            for kind in ComboType:
                if kind in by_type:
                    prev = rng.choice(by_type[kind])
                    cases.append({"size": size, "kind": kind.value, "hand": hand, "prev": prev})
    return cases


# ---------------------------------------------------------------- timing (worker process)

def time_case(call: Callable[[], object], repeat: int) -> tuple[int, int]:
    """(first call, best of ``repeat`` calls) in nanoseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        call()
        times.append(time.perf_counter_ns() - start)
    return times[0], min(times)


def ours_adapter():
    def prepare(case):
        hand = parse_ranks(case["hand"])
        prev = classify(parse_ranks(case["prev"]))[0] if case["prev"] else None
        return lambda: legal_moves(hand, prev)

    def move_set(case):
        return {str(p) for p in prepare(case)()}

    return prepare, move_set


def rlcard_adapter():
    from types import SimpleNamespace

    from rlcard.games.doudizhu.judger import DoudizhuJudger
    from rlcard.games.doudizhu.utils import get_gt_cards

    def rl(cards: str) -> str:
        return cards.replace("X", "B").replace("D", "R")

    def card(ch: str):
        if ch in "BR":
            return SimpleNamespace(rank="", suit=ch + "J")
        return SimpleNamespace(rank=ch, suit="S")

    def prepare(case):
        hand = rl(case["hand"])
        if not case["prev"]:
            return lambda: DoudizhuJudger.playable_cards_from_hand(hand)
        player = SimpleNamespace(current_hand=[card(ch) for ch in hand])
        greater = SimpleNamespace(played_cards=rl(case["prev"]))
        return lambda: get_gt_cards(player, greater)

    def move_set(case):
        moves = set(prepare(case)()) - {"pass"}
        return {m.replace("B", "X").replace("R", "D") for m in moves}

    return prepare, move_set


def douzero_adapter():
    from types import SimpleNamespace

    from douzero.env.game import GameEnv

    douzero_ranks = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)
    values = dict(zip("3456789TJQKA2XD", douzero_ranks, strict=True))

    def prepare(case):
        hand = [values[ch] for ch in case["hand"]]
        prev = [values[ch] for ch in case["prev"]] if case["prev"] else None
        game = SimpleNamespace(
            acting_player_position="landlord",
            info_sets={"landlord": SimpleNamespace(player_hand_cards=hand)},
            card_play_action_seq=[prev] if prev else [],
        )
        return lambda: GameEnv.get_legal_card_play_actions(game)

    return prepare, None


def worker(request: dict) -> dict:
    """Time the requested generators on the cases; compare move sets with RLCard's."""
    adapters = {"ours": ours_adapter, "rlcard": rlcard_adapter, "douzero": douzero_adapter}
    cases, repeat = request["cases"], request["repeat"]
    loaded = {name: adapters[name]() for name in request["impls"]}
    calls = {name: [prepare(case) for case in cases] for name, (prepare, _) in loaded.items()}
    timings: dict[str, list[tuple[int, int]]] = {name: [] for name in loaded}
    gc.collect()
    gc.disable()
    try:  # case by case, so that a change in machine load hits every generator alike
        for i in range(len(cases)):
            for name in loaded:
                timings[name].append(time_case(calls[name][i], repeat))
    finally:
        gc.enable()
    mismatches = []
    if "rlcard" in loaded and "ours" in loaded:
        ours_set, rl_set = loaded["ours"][1], loaded["rlcard"][1]
        for case in cases:
            a, b = ours_set(case), rl_set(case)
            if a != b:
                only = {"only_ours": sorted(a - b), "only_rlcard": sorted(b - a)}
                mismatches.append({**case, **only})
    universe = None
    if "rlcard" in loaded:
        from rlcard.games.doudizhu.utils import ID_2_ACTION

        theirs = {a.replace("B", "X").replace("R", "D") for a in ID_2_ACTION} - {"pass"}
        universe = [len(theirs), {str(p) for p in legal_moves(DECK)} == theirs]
    return {"timings": timings, "mismatches": mismatches, "universe": universe}


# ---------------------------------------------------------------- four players (RULES.md §11)

TWO_DECKS = tuple(r for r in range(13) for _ in range(8)) + (13, 13, 14, 14)


def four_report(hands: int, seed: int, repeat: int) -> None:
    """Time ``legal_moves`` under the ``four`` rules on 33- and 25-card hands (RULES.md §11)."""
    rng = random.Random(seed)
    rows: dict[tuple[int, str], list[tuple[int, int, int]]] = {}
    gc.collect()
    gc.disable()
    try:
        for size in (33, 25):
            for _ in range(hands):
                deck = list(TWO_DECKS)
                rng.shuffle(deck)
                hand, others = deck[:size], deck[size:]
                cases: list[tuple[str, object]] = [("lead", None)]
                by_type: dict[ComboType, list] = {}
                for play in legal_moves(others[:33], None, FOUR):
                    by_type.setdefault(play.type, []).append(play)
                cases += [(kind.value, rng.choice(plays)) for kind, plays in by_type.items()]
                for label, prev in cases:
                    first, best = time_case(lambda h=hand, p=prev: legal_moves(h, p, FOUR), repeat)
                    count = len({(p.cards, p.type) for p in legal_moves(hand, prev, FOUR)})
                    rows.setdefault((size, label), []).append((first, best, count))
    finally:
        gc.enable()
    print(f"four-player legal-move generation (RULES.md §11): {hands} hands of 33 and of 25 "
          f"cards from two decks (seed {seed}); median µs per call, best of {repeat} "
          "(median first call in brackets); distinct plays: median (max)")
    print(f"{'hand':>4} {'situation':<22}{'cases':>6}{'µs':>10}{'(first)':>10}{'plays':>8}"
          f"{'(max)':>7}")
    for (size, label), got in sorted(rows.items(), key=lambda kv: (-kv[0][0], kv[0][1] != "lead",
                                                                   kv[0][1])):
        best = statistics.median(b for _, b, _ in got) / 1000
        first = statistics.median(f for f, _, _ in got) / 1000
        plays = statistics.median(c for *_, c in got)
        most = max(c for *_, c in got)
        print(f"{size:>4} {label:<22}{len(got):>6}{best:>10.1f}{first:>10.1f}{plays:>8.0f}"
              f"{most:>7}")
    lead = rows[(33, "lead")]
    median_ms = statistics.median(b for _, b, _ in lead) / 1e6
    verdict = "meets" if median_ms < 5 else "MISSES"
    print(f"lead from a 33-card hand: median {median_ms:.3f} ms, "
          f"{statistics.median(c for *_, c in lead):.0f} distinct plays (median); "
          f"{verdict} the 5 ms target")


# ---------------------------------------------------------------- driver

def venv_python() -> Path:
    """The compare venv's interpreter, created and filled on first use."""
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV.relative_to(ROOT)} (rlcard, douzero --no-deps, numpy) …")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = [str(python), "-c", "import rlcard, douzero, numpy"]
    if subprocess.run(probe, capture_output=True).returncode:
        for packages in COMPARE_PACKAGES:
            pip = [str(python), "-m", "pip", "install", "--quiet", *packages]
            subprocess.run(pip, check=True)
    return python


def run_worker(python: str, request: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBLAS_")}
    done = subprocess.run(
        [python, str(Path(__file__).resolve()), "--worker"],
        input=json.dumps(request), capture_output=True, text=True, env=env, check=False,
    )
    if done.returncode:
        sys.exit(f"worker failed:\n{done.stderr}")
    return json.loads(done.stdout)


def report(cases: list[dict], timings: dict[str, list], impls: tuple[str, ...]) -> None:
    def median_us(name: str, rows: list[int], which: int) -> float:
        return statistics.median(timings[name][i][which] for i in rows) / 1000

    header = f"{'hand':>4} {'situation':<24}{'cases':>6}"
    header += "".join(f"{name:>17}" for name in impls)
    header += "".join(f"{'ours/' + name:>15}" for name in impls[1:])
    print(header)
    kinds = ["lead", "follow (all types)"] + [f"follow {k.value}" for k in ComboType]
    for size in (20, 17):
        for label in kinds:
            if label == "lead":
                rows = [i for i, c in enumerate(cases) if c["size"] == size and c["prev"] is None]
            elif label == "follow (all types)":
                rows = [i for i, c in enumerate(cases) if c["size"] == size and c["prev"]]
            else:
                kind = label.split()[1]
                rows = [i for i, c in enumerate(cases) if c["size"] == size and c["kind"] == kind]
            if not rows:
                continue
            line = f"{size:>4} {label:<24}{len(rows):>6}"
            for name in impls:
                best, first = median_us(name, rows, 1), median_us(name, rows, 0)
                line += f"{best:>8.1f} ({first:>6.1f})"
            ours = median_us("ours", rows, 1)
            line += "".join(f"{ours / median_us(name, rows, 1):>15.2f}" for name in impls[1:])
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands per size (default 1000)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeat", type=int, default=5, help="calls per case (default 5)")
    parser.add_argument("--compare", action="store_true", help="also time RLCard and DouZero")
    parser.add_argument("--four", action="store_true",
                        help="the four-player two-deck game (RULES.md §11) instead")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(json.load(sys.stdin))))
        return
    if args.four:
        four_report(args.hands, args.seed, args.repeat)
        return

    cases = draw_cases(args.hands, args.seed)
    impls = IMPLS if args.compare else ("ours",)
    python = str(venv_python()) if args.compare else sys.executable
    print(
        f"legal-move generation: {args.hands} hands of 20 and of 17 cards (seed {args.seed}), "
        f"{len(cases)} cases; median µs per call, best of {args.repeat} "
        "(median first call in brackets)"
    )
    result = run_worker(python, {"cases": cases, "repeat": args.repeat, "impls": impls})
    report(cases, result["timings"], impls)
    if args.compare:
        size, same = result["universe"]
        print(f"RLCard action space: {size} plays; equal to our leads from a whole deck: {same}")
        mismatches = result["mismatches"]
        print(f"move sets equal to RLCard's: {len(cases) - len(mismatches)} of {len(cases)} cases")
        for m in mismatches[:20]:
            print("  MISMATCH", json.dumps(m))


if __name__ == "__main__":
    main()
