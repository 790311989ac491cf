"""Prize tables and the split of a prize pool (RULES.md §10, §10.1): pure, shared by matches,
challenges and tournaments.

A **prize table** is the pool's split by place in whole percent: 1 to :data:`MAX_PLACES` shares,
each at least 1, never rising down the places, summing to exactly 100 (default
:data:`DEFAULT_PRIZE_TABLE`, 50/30/20). An admin types it as ``"60,40"`` (or ``60/40``,
``60 40``, ``60%, 40%``); :func:`parse_prize_table` reads it and :class:`PrizeTableError` says
what is wrong with it.

:func:`split_pool` pays a pool in beans by place: whole beans, summing exactly to the pool.

>>> parse_prize_table("40/25/15/10/5/5")
(40, 25, 15, 10, 5, 5)
>>> split_pool(1001, [1, 2, 3])
[501, 300, 200]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: RULES.md §10: 1st 50 %, 2nd 30 %, 3rd 20 %.
DEFAULT_PRIZE_TABLE: tuple[int, ...] = (50, 30, 20)
#: The longest prize table (places paid).
MAX_PLACES = 10

_SEPARATORS = re.compile(r"[\s,/，、;；]+")


class PrizeTableError(ValueError):
    """A prize table that cannot be used; the message says why, in words an admin understands.

    Attributes:
        rule: which rule it broke, for a caller that words the refusal itself: ``"text"`` (not
            a list of whole percentages; ``word``), ``"empty"``, ``"places"`` (more than
            :data:`MAX_PLACES`; ``places``), ``"share"`` (a share not from 1 to 100; ``place``,
            ``share``), ``"order"`` (a share above the one before; ``place``, ``share``,
            ``above``), ``"sum"`` (``total`` is not 100).
        fields: the values named above, by name.
    """

    def __init__(self, message: str, rule: str = "text", **fields: object) -> None:
        super().__init__(message)
        self.rule = rule
        self.fields = fields


def check_prize_table(shares: Sequence[int]) -> tuple[int, ...]:
    """``shares`` as a tuple if they are a valid prize table (see the module docstring).

    >>> check_prize_table([60, 40])
    (60, 40)

    Raises:
        PrizeTableError: no shares, more than :data:`MAX_PLACES`, a share that is not a whole
            number from 1 to 100, a share larger than the one above it, or a sum other than 100.
    """
    if isinstance(shares, (str, bytes)):
        raise PrizeTableError("a prize table is a list of whole percentages, e.g. 50,30,20",
                              "text", word=str(shares))
    table = tuple(shares)
    if not table:
        raise PrizeTableError("a prize table needs at least one place, e.g. 100", "empty")
    if len(table) > MAX_PLACES:
        raise PrizeTableError(f"a prize table pays at most {MAX_PLACES} places, "
                              f"not {len(table)}", "places", places=len(table))
    for place, share in enumerate(table, start=1):
        if isinstance(share, bool) or not isinstance(share, int) or not 1 <= share <= 100:
            raise PrizeTableError(f"place {place}: a whole percentage from 1 to 100 is "
                                  f"expected, not {share!r}", "share", place=place, share=share)
        if place > 1 and share > table[place - 2]:
            raise PrizeTableError(f"place {place} ({share} %) would get more than place "
                                  f"{place - 1} ({table[place - 2]} %)", "order", place=place,
                                  share=share, above=table[place - 2])
    total = sum(table)
    if total != 100:
        raise PrizeTableError(f"the shares add up to {total} %, not 100 %", "sum", total=total)
    return table


def parse_prize_table(text: str) -> tuple[int, ...]:
    """Read a prize table typed by an admin: whole percentages separated by commas, slashes or
    spaces (``%`` signs allowed), best place first.

    >>> parse_prize_table("60, 40")
    (60, 40)
    >>> parse_prize_table("50%/30%/20%")
    (50, 30, 20)

    Raises:
        PrizeTableError: text that is not such a list, or a list :func:`check_prize_table`
            refuses.
    """
    if not isinstance(text, str):
        raise PrizeTableError("a prize table is text such as 50,30,20", "text", word=str(text))
    words = [w for w in _SEPARATORS.split(text.strip()) if w]
    shares: list[int] = []
    for word in words:
        digits = word.removesuffix("%").removesuffix("％")
        if not digits.isascii() or not digits.isdigit():
            raise PrizeTableError(f"{word!r} is not a whole percentage; write e.g. 50,30,20",
                                  "text", word=word)
        shares.append(int(digits))
    return check_prize_table(shares)


def largest_remainder(total: int, weights: Sequence[int]) -> list[int]:
    """Split ``total`` units in proportion to ``weights`` (largest-remainder / Hamilton method).

    Each part is ``floor(total × w / Σw)``; the units left over go one each to the parts with the
    largest fractional remainders, ties to the lower index. Parts sum to exactly ``total``; a part
    never exceeds ``ceil`` of its exact share, and a zero weight gets 0.

    >>> largest_remainder(10, [1, 1, 1])
    [4, 3, 3]

    Raises:
        ValueError: negative total or weight, or ``total`` > 0 with all weights zero.
    """
    if total < 0 or any(w < 0 for w in weights):
        raise ValueError("total and weights must not be negative")
    weight_sum = sum(weights)
    if weight_sum == 0:
        if total:
            raise ValueError("cannot split a positive total over zero weights")
        return [0] * len(weights)
    parts = [total * w // weight_sum for w in weights]
    remainders = [total * w % weight_sum for w in weights]
    order = sorted(range(len(weights)), key=lambda i: (-remainders[i], i))
    for i in order[: total - sum(parts)]:
        parts[i] += 1
    return parts


def split_pool(pool: int, places: Sequence[int | None],
               table: Sequence[int] = DEFAULT_PRIZE_TABLE) -> list[int]:
    """The pool's payout in beans to each player, by place (RULES.md §10, §10.1).

    Args:
        pool: beans in the pool (≥ 0).
        places: per player, its place (1 = first; players sharing a place have the same number,
            the next place skipping as in 1, 2, 2, 4) or ``None`` for no prize (a forfeit, a
            bot). Callers list players in sign-up order: that order gives the odd beans of a
            shared place (below).
        table: the prize table (:func:`check_prize_table`), default 50/30/20.

    Returns:
        Beans per player, in the order of ``places``; they sum to exactly ``pool`` when anyone
        has a place, else all are 0 (the caller refunds the fees).

    The rule: the shares of places nobody holds (fewer placed players than the table's places)
    go to first; players sharing a place share, equally, the shares of the places they cover
    (two tied for 2nd under 50/30/20 share 30 + 20). Whole beans: each place's amount is its
    share of the pool rounded down, and the beans left over (at most one per place) go one each
    to the places with the largest fractions, a tie to the better place, so amounts stay within
    one bean of the exact share, never rise down the places, and sum to the pool. Inside a
    shared place the odd beans go to the players listed first (earlier sign-up, the last
    tie-break of RULES.md §10.1).

    >>> split_pool(300, [1, 2, 3]), split_pool(300, [1, 2, None]), split_pool(300, [1, 2, 2])
    ([150, 90, 60], [210, 90, 0], [150, 75, 75])
    >>> split_pool(101, [2, 1, 2], (60, 40))
    [20, 61, 20]

    Raises:
        ValueError: a negative pool, places that do not start at 1, or a place that is not a
            rank (e.g. 1, 3 with nobody second).
        PrizeTableError: an invalid ``table``.
    """
    shares_by_place = check_prize_table(table)
    if isinstance(pool, bool) or not isinstance(pool, int) or pool < 0:
        raise ValueError("the pool must be a whole number of beans, not negative")
    ranked = sorted((p, i) for i, p in enumerate(places) if p is not None)
    if not ranked:
        return [0] * len(places)
    for position, (place, _) in enumerate(ranked):
        if place != position + 1 and (position == 0 or place != ranked[position - 1][0]):
            raise ValueError(f"places must be ranks starting at 1, not {sorted(places, key=str)}")
    shares = list(shares_by_place[: len(ranked)]) + [0] * max(0, len(ranked) - len(table))
    shares[0] += sum(shares_by_place[len(ranked):])
    amounts = largest_remainder(pool, shares)  # per position 0..n-1 in place order
    result = [0] * len(places)
    position = 0
    while position < len(ranked):
        place = ranked[position][0]
        group = [i for p, i in ranked if p == place]
        total = sum(amounts[position: position + len(group)])
        for player, amount in zip(group, largest_remainder(total, [1] * len(group)),
                                  strict=True):
            result[player] = amount
        position += len(group)
    return result
