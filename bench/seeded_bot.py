"""``python bench/seeded_bot.py SEED``: the bot (``python -m bot``) with reproducible deals, for
``bench/latency.py --deal-seed`` (two runs of one table then play the same deals, so their
calls and CPU per deal compare code, not luck).

The k-th deal the process deals (k = 0, 1, …; redeals count) is shuffled with
``random.Random(SEED + k)`` instead of a fresh random generator, and the module ``random`` is
seeded with ``SEED`` (a table's first bidder). The AI's decisions are already a function of the
view. Nothing else differs from ``python -m bot``.
"""

from __future__ import annotations

import itertools
import random
import sys
from functools import wraps
from typing import Any

import bot.game.deal.dealing as driver
from bot.__main__ import main


def seed_deals(seed: int) -> None:
    """Make the driver's ``new_deal`` shuffle deal k with ``seed + k`` (see the docstring)."""
    random.seed(seed)
    numbers = itertools.count(seed)
    dealt = driver.new_deal

    @wraps(dealt)
    def new_deal(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("seed") is None:
            kwargs["seed"] = next(numbers)
        return dealt(*args, **kwargs)

    driver.new_deal = new_deal  # type: ignore[assignment]


if __name__ == "__main__":
    seed_deals(int(sys.argv[1]))
    sys.argv[1:] = []
    main()
