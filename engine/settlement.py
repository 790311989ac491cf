"""Settling a deal against what the seats hold (RULES.md §8): losers pay at most what they
hold, winners share what was paid in proportion to what they were owed, in whole units. The
one rule of a deal's beans and of a knock-out's chips (RULES.md §10)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.prizes import largest_remainder


def settle(units: Sequence[int], base: int, holdings: Sequence[int | None]) -> tuple[int, ...]:
    """What each seat wins (+) or pays (−) for a deal worth ``units`` per seat (points, or a
    knock-out's units, :func:`engine.knockout.deal_units`) at ``base`` beans or chips per unit:
    the rule of a deal's beans (RULES.md §8) and of a knock-out's chips (§10).

    ``holdings``: per seat, the beans or chips it holds; ``None`` for a seat that is out (it neither
    pays nor receives). A loser pays ``min(−units × base, holding)``; the winners are
    owed ``units × base``; the transfer is the smaller of what the losers can pay and what
    the winners are owed, split by :func:`~engine.prizes.largest_remainder` on both sides.
    Sums to zero; nobody pays more than they hold (:func:`bot.core.beans.settle_beans` is this
    with bean balances).

    >>> settle([-4, 2, 2], 2, [5, 20, 20]), settle([2, -1, -1], 2, [20, None, 20])
    ((-5, 3, 2), (2, 0, -2))

    Raises:
        ValueError: lengths differ, units do not sum to zero, base < 1, negative holdings.
    """
    if len(units) != len(holdings):
        raise ValueError("units and holdings must have one entry per seat")
    if sum(units) != 0:
        raise ValueError(f"units must sum to zero, got {list(units)}")
    if base < 1:
        raise ValueError("the base must be at least 1")
    if any(h is not None and h < 0 for h in holdings):
        raise ValueError("holdings must not be negative")
    seats = list(zip(units, holdings, strict=True))
    caps = [min(-u * base, h) if h is not None and u < 0 else 0 for u, h in seats]
    owed = [u * base if h is not None and u > 0 else 0 for u, h in seats]
    transfer = min(sum(caps), sum(owed))
    paid = largest_remainder(transfer, caps)
    received = largest_remainder(transfer, owed)
    return tuple(r - p for r, p in zip(received, paid, strict=True))
