"""How long a knock-out by chips lasts (打立出局, RULES.md §10): simulated with the engine's AI in
every seat, for the old and the new default numbers.

Usage::

    python bench/knockout.py                      # 200 knock-outs per setting, AI level normal
    python bench/knockout.py --runs 50 --level easy --jobs 1
    python bench/knockout.py --setting chips=20,base=2,per=deal,rise=5,threshold=1

Each knock-out is three AI seats at a ``score`` table (叫分, RULES.md §2.1, the group default:
no doubling, no cap in a knock-out): the first bidder of the first deal is drawn, then rotates
(RULES.md §1.4); a deal everybody passed is dealt again with the same first bidder and does not
count (RULES.md §2.1). Chips move by :mod:`engine.knockout` until it is decided: the old rule
(``old``) stopped as soon as a seat was out, two survivors tied on chips sharing first place;
the new one (:func:`engine.knockout.decided`) plays a tie for first off. The seeds are fixed
(``--seed``), so a run is reproducible.

Printed per setting: a histogram of deals per knock-out, the median, p10 and p90, the mean, and
how many knock-outs ended with first place shared (old rule) or needed extra deals to break
a tie for first (new rule).

The AI: ``normal`` (plans its hand and cooperates; no card counting, no search, so a deal takes
milliseconds) is the cheapest level that plays sensibly (``easy`` makes beginner mistakes on
purpose, ``hard`` searches and takes far longer). 200 knock-outs per setting take a few minutes
on 2 shared cores.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.ai import choose_action  # noqa: E402
from engine.deal import apply, new_deal  # noqa: E402
from engine.knockout import (  # noqa: E402
    PER_POINT,
    Chips,
    KnockoutRules,
    after_deal,
)
from engine.presets import SCORE  # noqa: E402

#: Knock-outs longer than this are cut (counted at this length; none is in practice).
MAX_DEALS = 200


@dataclass(frozen=True)
class Setting:
    """One set of numbers to measure: the rules and whether a tie for first plays on."""

    name: str
    rules: KnockoutRules
    ties_play_on: bool = True


#: The defaults before (20 chips, 2 chips per point, a tie on a knock-out shared first place)
#: and after.
OLD = Setting("old: 20 chips, 2 per point, tie shares first",
              KnockoutRules(chips=20, chip_base=2, per=PER_POINT), ties_play_on=False)


def new_setting() -> Setting:
    """The new defaults, read from the bot's match options (so the bench measures what the bot
    uses)."""
    from engine.match import MatchOptions

    o = MatchOptions("knockout")
    rules = KnockoutRules(chips=o.chips, chip_base=o.chip_base, per=o.base_per,
                          rise_every=o.rise_every, threshold=o.threshold)
    name = (f"new: {o.chips} chips, {o.chip_base} per {o.base_per}, "
            f"rise every {o.rise_every or 'never'}, threshold {o.threshold}, tie plays on")
    return Setting(name, rules)


def parse_setting(text: str) -> Setting:
    """``chips=20,base=2,per=deal,rise=5,threshold=1[,ties=share]``."""
    fields = dict(part.split("=", 1) for part in text.split(",") if part)
    rules = KnockoutRules(chips=int(fields.get("chips", 20)), chip_base=int(fields.get("base", 2)),
                          per=fields.get("per", PER_POINT), rise_every=int(fields.get("rise", 0)),
                          threshold=int(fields.get("threshold", 1)))
    return Setting(text, rules, ties_play_on=fields.get("ties", "play") != "share")


def play_deal(seed: int, first_bidder: int, level: str) -> tuple[tuple[int, ...], int]:
    """One deal played by the AI in every seat to its end (redealt while everybody passes):
    its points per seat and base score."""
    redeal = 0
    while True:
        state = new_deal(SCORE, seed=seed * 1000 + redeal, first_bidder=first_bidder)
        while state.phase in ("bidding", "doubling", "playing"):
            seat = state.to_act[0]
            state = apply(state, choose_action(state.view(seat), level, seed=seed + redeal))
        if state.phase == "finished" and state.result is not None:
            return state.result.points, state.result.base
        redeal += 1


def one_knockout(args: tuple[Setting, int, str]) -> tuple[int, bool, bool]:
    """A whole knock-out: (deals played, first place shared at the end, tie played off)."""
    setting, seed, level = args
    rng = random.Random(seed)
    first = rng.randrange(3)
    now = Chips.start(setting.rules, 3)
    played_off = False
    while now.deals < MAX_DEALS:
        points, bid = play_deal(seed * 10_000 + now.deals, first, level)
        now, _ = after_deal(setting.rules, now, points, bid)
        first = (first + 1) % 3
        if not any(now.out):
            continue
        if not setting.ties_play_on or now.decided:
            break
        played_off = True
    live = [c for c, o in zip(now.chips, now.out, strict=True) if not o]
    shared = len(live) > 1 and live.count(max(live)) > 1
    return now.deals, shared, played_off


def percentile(xs: list[int], q: float) -> float:
    """The ``q`` quantile (0..1) of ``xs``, nearest rank."""
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def histogram(xs: list[int], width: int = 50) -> list[str]:
    """One line per deal count (longer ones grouped by 5 past 20)."""
    def bucket(n: int) -> tuple[int, int]:
        if n <= 20:
            return (n, n)
        low = 21 + (n - 21) // 5 * 5
        return (low, low + 4)

    counts: dict[tuple[int, int], int] = {}
    for n in xs:
        counts[bucket(n)] = counts.get(bucket(n), 0) + 1
    top = max(counts.values())
    lines = []
    for (low, high), count in sorted(counts.items()):
        label = f"{low:>3}" if low == high else f"{low}-{high}"
        bar = "#" * max(1, round(count * width / top))
        lines.append(f"  {label:>7} deals | {bar} {count}")
    return lines


def report(setting: Setting, rows: list[tuple[int, bool, bool]], elapsed: float) -> float:
    """Print the distribution of one setting; returns its median."""
    deals = [r[0] for r in rows]
    median = statistics.median(deals)
    print(f"\n{setting.name}  ({len(rows)} knock-outs, {elapsed:.0f} s)", flush=True)
    print(*histogram(deals), sep="\n")
    print(f"  median {median:g}, p10 {percentile(deals, 0.1):g}, p90 {percentile(deals, 0.9):g}, "
          f"mean {statistics.fmean(deals):.1f}, min {min(deals)}, max {max(deals)}")
    print(f"  ended after 1 deal: {deals.count(1)}; first place shared at the end: "
          f"{sum(r[1] for r in rows)}; tie for first played off: {sum(r[2] for r in rows)}")
    return median


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="normal", choices=("easy", "normal", "hard"))
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--setting", action="append", default=[],
                        help="measure these numbers instead of the old and new defaults")
    args = parser.parse_args(argv)
    settings = [parse_setting(s) for s in args.setting] or [OLD, new_setting()]
    for setting in settings:
        tasks = [(setting, args.seed * 100_000 + i, args.level) for i in range(args.runs)]
        t0 = time.perf_counter()
        if args.jobs > 1:
            with Pool(args.jobs) as pool:
                rows = pool.map(one_knockout, tasks, chunksize=4)
        else:
            rows = [one_knockout(task) for task in tasks]
        report(setting, rows, time.perf_counter() - t0)


if __name__ == "__main__":
    main()
