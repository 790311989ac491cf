"""The knock-out by chips (打立出局, RULES.md §10): what a deal costs in chips, who is out, when
the knock-out is decided. Pure functions, no I/O; the bot's match (:mod:`engine.match`)
keeps the deals and the time limit, ``bench/knockout.py`` plays whole knock-outs with the AI.

Rules (RULES.md §10, seeds 000, 002 and 003), and the choices made where §10 is silent:

- Every seat starts with ``chips`` (seed 002: 20; its final 50; seed 000: 15).
- A deal costs ``units × chip base`` chips per farmer–landlord pair, the units counted
  ``per`` :data:`PER_POINT` (units = the deal's points, RULES.md §7: bid × multiplier) or
  :data:`PER_DEAL` (seed 002: "每把以2个为基础开局 … 有炸弹，一个翻一倍，需付4个": the chip base
  is the price of a deal whatever the bid, so units = points ÷ the bid; bombs, rockets, spring,
  robs and doubling still multiply). With the rising base the chip base doubles every ``rise_every``
  deals (seed 001: 倍数按 1/2/4/8 倍递增; JJ style).
- A loser who cannot cover the chips owed pays what they have; the winners share what was paid in
  proportion to what they were owed (as beans, RULES.md §8): :func:`engine.settlement.settle`.
- A seat is **out** when its chips reach 0 or fall below ``threshold`` (seed 003: 积分小于某个值;
  default 1, so out at 0). Out is for good: a seat once out stays out.
- The knock-out is decided (:func:`decided`) after the deal in which a seat went out, when one
  seat still in leads on chips. When the seats still in share the lead (the typical case: a
  landlord who loses all their chips pays both farmers alike), the tie for first is played off
  (RULES.md §10.1: ties for first are broken by extra deals at the table, one at a time; seed
  002: 若筹码数量相同则进入加时赛，每桌只能一名胜出). In those extra deals the seats that are out
  are played on but neither pay nor receive chips (:func:`engine.settlement.settle` with
  ``None``), so only the pairs of seats still in move chips.

Units: ``points`` are the engine's points (RULES.md §7), ``chips`` the knock-out's own score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.settlement import settle

#: The chip base is paid per point of the deal (bid × multiplier, RULES.md §7).
PER_POINT = "point"
#: The chip base is the price of a deal whatever the bid (seed 002); multipliers still apply.
PER_DEAL = "deal"
BASE_PER = (PER_POINT, PER_DEAL)


@dataclass(frozen=True, slots=True)
class KnockoutRules:
    """The numbers of a knock-out (RULES.md §10).

    Attributes:
        chips: starting chips per seat (≥ 1).
        chip_base: chips per unit (≥ 1) of the first deals.
        per: :data:`PER_POINT` or :data:`PER_DEAL` (how a deal's units are counted).
        rise_every: the chip base doubles every this many deals; 0: never.
        threshold: a seat with fewer chips than this (or none) is out (≥ 1).

    Raises:
        ValueError: a number below its minimum or an unknown ``per``.
    """

    chips: int = 20
    chip_base: int = 2
    per: str = PER_POINT
    rise_every: int = 0
    threshold: int = 1

    def __post_init__(self) -> None:
        if self.per not in BASE_PER:
            raise ValueError(f"unknown chip base unit {self.per!r}")
        if self.chips < 1 or self.chip_base < 1 or self.threshold < 1 or self.rise_every < 0:
            raise ValueError("chips, chip base and threshold must be at least 1, "
                             "rise_every at least 0")

    def chip_base_of(self, number: int) -> int:
        """The chip base of deal ``number`` (1-based): ``chip_base × 2^((number − 1) // K)``
        with the rising base every ``K`` deals (deals 1..K at the base, K+1..2K at twice it,
        …), else ``chip_base``.

        >>> KnockoutRules(chip_base=2, rise_every=3).chip_base_of(4)
        4
        """
        k = self.rise_every
        return self.chip_base * (2 ** ((max(1, number) - 1) // k) if k else 1)

    def is_out(self, chips: int) -> bool:
        """A seat holding ``chips`` is out: at 0 or below the threshold."""
        return chips <= 0 or chips < self.threshold


def deal_units(points: Sequence[int], bid: int, per: str) -> tuple[int, ...]:
    """What a deal counts for in chip bases, per seat (sums to zero as ``points`` do).

    ``per`` :data:`PER_POINT`: the points themselves. :data:`PER_DEAL`: the points divided by
    the bid (the base score, RULES.md §7), so a bid of 3 costs what a bid of 1 does; when a
    seat's points are not a multiple of the bid (the escape fee of 6 points before a bid,
    RULES.md §9, or the four-player game's bonus, §11) the points are taken as they are.

    >>> deal_units([6, -3, -3], 3, PER_DEAL), deal_units([6, -3, -3], 3, PER_POINT)
    ((2, -1, -1), (6, -3, -3))

    Raises:
        ValueError: points that do not sum to zero, or an unknown ``per``.
    """
    if sum(points) != 0:
        raise ValueError(f"points must sum to zero, got {list(points)}")
    if per not in BASE_PER:
        raise ValueError(f"unknown chip base unit {per!r}")
    if per == PER_DEAL and bid > 1 and all(p % bid == 0 for p in points):
        return tuple(p // bid for p in points)
    return tuple(points)


def leaders(chips: Sequence[int], out: Sequence[bool]) -> list[int]:
    """The seats that lead: the seats still in holding the most chips (every seat when all
    are out)."""
    live = [i for i, o in enumerate(out) if not o] or list(range(len(chips)))
    top = max(chips[i] for i in live)
    return [i for i in live if chips[i] == top]


def decided(chips: Sequence[int], out: Sequence[bool]) -> bool:
    """The knock-out is over: a seat is out and one seat still in leads alone (or none is
    left in). Two or more seats still in sharing the lead play on (RULES.md §10.1).

    >>> decided([30, 30, 0], [False, False, True]), decided([31, 29, 0], [False, False, True])
    (False, True)
    """
    if not any(out):
        return False
    return all(out) or len(leaders(chips, out)) == 1


@dataclass(frozen=True, slots=True)
class Chips:
    """A knock-out's chips and who is out after some deals (see :func:`after_deal`).

    Attributes:
        chips: per seat, chips held. out: per seat, out for good.
        deals: deals played.
    """

    chips: tuple[int, ...]
    out: tuple[bool, ...]
    deals: int = 0

    @classmethod
    def start(cls, rules: KnockoutRules, seats: int) -> Chips:
        """Every seat with the starting chips, nobody out."""
        return cls((rules.chips,) * seats, (False,) * seats)

    @property
    def decided(self) -> bool:
        """:func:`decided`."""
        return decided(self.chips, self.out)


def after_deal(rules: KnockoutRules, now: Chips, points: Sequence[int], bid: int,
               forfeit: Sequence[int] = ()) -> tuple[Chips, tuple[int, ...]]:
    """The chips after the next deal, finished with ``points`` per seat at base score ``bid``
    (RULES.md §7), and the chips each seat won or paid in it; seats in ``forfeit`` (left,
    RULES.md §9) are out after it.

    >>> rules = KnockoutRules(chips=10, chip_base=2, per=PER_DEAL)
    >>> after_deal(rules, Chips.start(rules, 3), [6, -3, -3], 3)
    (Chips(chips=(14, 8, 8), out=(False, False, False), deals=1), (4, -2, -2))
    """
    base = rules.chip_base_of(now.deals + 1)
    units = deal_units(points, bid, rules.per)
    moved = settle(units, base, [None if o else c for c, o in zip(now.chips, now.out,
                                                                         strict=True)])
    chips = tuple(c + m for c, m in zip(now.chips, moved, strict=True))
    out = tuple(o or rules.is_out(c) or s in forfeit
                for s, (c, o) in enumerate(zip(chips, now.out, strict=True)))
    return Chips(chips, out, now.deals + 1), moved
