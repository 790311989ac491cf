"""Multipliers and the score of a deal (RULES.md §3, §7, §9).

Points are per farmer–landlord pair: ``base × pair_multiplier``, where the pair multiplier holds
robs, doubling, shown cards, bombs and rockets played, and spring / anti-spring (RULES.md §7),
capped at ``rules.multiplier_cap``. Points of a deal always sum to zero.

>>> from engine.presets import SCORE
>>> pair_multipliers(SCORE, landlord=0, robs=0, doubled=(None,) * 3, shown=(0, 0, 0), bombs=1)
(2, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from engine.bidding import Bidding
from engine.presets import Rules

#: RULES.md §9 / seed 000 "还没人叫牌时逃跑：扣6分": leaving during the bidding costs at least
#: ``BIDDING_ESCAPE_BASE × escape_factor`` points (6 with the default factor 3), and exactly that
#: before anyone bid (:func:`bidding_escape_points`).
BIDDING_ESCAPE_BASE = 2


@dataclass(frozen=True, slots=True)
class DealResult:
    """The outcome of a finished deal (RULES.md §7, §9).

    Attributes:
        winner: ``"landlord"`` or ``"farmers"`` (who played out); ``None`` when the deal was
            cancelled (a seat left during bidding, or every seat left).
        landlord: the landlord seat, ``None`` if bidding never ended.
        base: the base score (RULES.md §7).
        bombs: bombs and rockets played (each doubles every pair multiplier).
        rockets: how many of ``bombs`` were rockets.
        spring: the landlord played out and no farmer played a card.
        anti_spring: a farmer played out and the landlord played only the opening lead.
        farmers: the farmer seats in seat order.
        multipliers: each farmer–landlord pair's final multiplier, farmers in seat order,
            everything included and capped.
        points: points per seat (sum zero). Beans are ``points × stake`` (RULES.md §8).
        escaped: seats that left the deal (RULES.md §9); if any, ``points`` is the escape result.
        autoplay_penalized: farmers on whom the auto-play penalty fell (RULES.md §9).
        bonus: points each pair gains on top of ``base × multiplier`` (the four-player game's
            头撂 bonus for a landlord who bid 3 first and won, RULES.md §11), else 0.
    """

    winner: str | None
    landlord: int | None
    base: int
    bombs: int
    rockets: int
    spring: bool
    anti_spring: bool
    farmers: tuple[int, ...]
    multipliers: tuple[int, ...]
    points: tuple[int, ...]
    escaped: tuple[int, ...] = ()
    autoplay_penalized: tuple[int, ...] = ()
    bonus: int = 0


class ScoredDeal(Protocol):
    """What :func:`score_deal` reads of a finished deal (``engine.deal.DealState`` is one)."""

    @property
    def rules(self) -> Rules: ...
    @property
    def landlord(self) -> int | None: ...
    @property
    def base(self) -> int: ...
    @property
    def hands(self) -> tuple[tuple[int, ...], ...]: ...
    @property
    def play_counts(self) -> tuple[int, ...]: ...
    @property
    def bidding(self) -> Bidding: ...
    @property
    def doubled(self) -> tuple[bool | None, ...]: ...
    @property
    def shown(self) -> tuple[int, ...]: ...
    @property
    def bombs(self) -> int: ...
    @property
    def rockets(self) -> int: ...
    @property
    def autoplayed(self) -> tuple[bool, ...]: ...
    @property
    def escaped(self) -> tuple[bool, ...]: ...


def pair_multipliers(rules: Rules, *, landlord: int, robs: int, doubled: Sequence[bool | None],
                     shown: Sequence[int], bombs: int, spring: bool = False) -> tuple[int, ...]:
    """Each farmer–landlord pair's multiplier, farmers in seat order (RULES.md §3, §7).

    ``2^robs`` × the show factor × 2 if the landlord doubled × 2 if the farmer doubled ×
    ``2^bombs`` (bombs + rockets played) × 2 for a spring or anti-spring; then capped at
    ``rules.multiplier_cap``. The show factor is the largest one taken in the deal, whoever
    showed (4 before bidding, 2 after the kitty, 1 if nobody showed): a show multiplies every
    pair, like a rob, and two shows do not multiply each other (RULES.md §3).
    """
    common = 2 ** (robs + bombs + (1 if spring else 0))
    common *= (2 if doubled[landlord] else 1) * max(1, *shown)
    result = []
    for farmer in range(rules.seats):
        if farmer == landlord:
            continue
        m = common * (2 if doubled[farmer] else 1)
        result.append(m if rules.multiplier_cap is None else min(m, rules.multiplier_cap))
    return tuple(result)


def score_deal(state: ScoredDeal) -> DealResult:
    """The result of a deal that ended by a seat playing out (RULES.md §7, §9).

    Landlord wins: farmer ``i`` pays ``base × m_i``, the landlord gains the sum; landlord loses:
    the reverse. The auto-play penalty and escapes are applied by :func:`settle`.
    """
    rules, landlord = state.rules, state.landlord
    assert landlord is not None
    farmers = tuple(s for s in range(rules.seats) if s != landlord)
    landlord_won = not state.hands[landlord]
    spring = landlord_won and all(state.play_counts[f] == 0 for f in farmers)
    anti_spring = not landlord_won and state.play_counts[landlord] == 1
    mults = pair_multipliers(rules, landlord=landlord, robs=state.bidding.robs,
                             doubled=state.doubled, shown=state.shown, bombs=state.bombs,
                             spring=spring or anti_spring)
    result = DealResult(
        winner="landlord" if landlord_won else "farmers", landlord=landlord, base=state.base,
        bombs=state.bombs, rockets=state.rockets, spring=spring, anti_spring=anti_spring,
        farmers=farmers, multipliers=mults, points=())
    return settle(state, result, [state.base * m for m in mults])


def settle(state: ScoredDeal, result: DealResult, stakes: Sequence[int]) -> DealResult:
    """``result`` with its ``points``: each farmer's ``stakes[i]`` (farmers in seat order) won
    from or paid to the landlord, then the auto-play penalty and escapes (RULES.md §7, §9).

    Auto-play penalty (``rules.autoplay_penalty``, RULES.md §9): if some but not all farmers were
    on auto-play (see ``DealState.autoplayed``), a losing side's whole loss is borne by the
    farmers on auto-play, a winning side's whole gain goes to the others; the landlord's points
    do not change. Escapes replace all of this (:func:`escape_points`).
    """
    rules, landlord, farmers = state.rules, result.landlord, result.farmers
    assert landlord is not None
    landlord_won = result.winner == "landlord"
    by_farmer = dict(zip(farmers, stakes, strict=True))
    sign = 1 if landlord_won else -1
    points = [0] * rules.seats
    points[landlord] = sign * sum(by_farmer.values())
    for farmer, stake in by_farmer.items():
        points[farmer] = -sign * stake
    penalized: tuple[int, ...] = ()
    auto = tuple(f for f in farmers if state.autoplayed[f])
    if rules.autoplay_penalty and 0 < len(auto) < len(farmers):
        penalized = auto
        group = auto if landlord_won else tuple(f for f in farmers if f not in auto)
        shares = split_evenly(sum(by_farmer.values()), group)
        for farmer in farmers:
            points[farmer] = -sign * shares.get(farmer, 0)
    escaped = tuple(s for s in range(rules.seats) if state.escaped[s])
    if escaped:
        points = list(escape_points(rules, state.base, landlord, result.multipliers, escaped))
    return replace(result, points=tuple(points), escaped=escaped,
                   autoplay_penalized=penalized if not escaped else ())


def escape_points(rules: Rules, base: int, landlord: int, multipliers: Sequence[int],
                  escaped: Sequence[int]) -> tuple[int, ...]:
    """Points when seats left the deal (逃跑, RULES.md §9), replacing the normal result.

    Each leaver pays ``escape_factor × base × m``, where ``m`` is a farmer's own pair multiplier
    or, for a landlord, the larger pair multiplier (final values, capped). The payment is shared
    equally by the seats that did not leave (:func:`split_evenly`, odd points going first to the
    seat after the leaver in turn order). If every seat left, all points are zero.
    """
    n = rules.seats
    farmers = [s for s in range(n) if s != landlord]
    points = [0] * n
    for leaver in escaped:
        m = max(multipliers) if leaver == landlord else multipliers[farmers.index(leaver)]
        _charge(points, rules.escape_factor * base * m, leaver, escaped)
    return tuple(points)


def bidding_multiplier(rules: Rules, *, robs: int, shown: Sequence[int]) -> int:
    """The multiplier so far during the bidding (RULES.md §3, §7, §9): ``2^robs`` × the largest
    show factor taken (4 for a show before the first bid or call, 1 if nobody showed), capped at
    ``rules.multiplier_cap``. Doubling, bombs and spring come only after the bidding, so every
    pair has this same multiplier while the seats bid.

    >>> from engine.presets import ROB
    >>> bidding_multiplier(ROB, robs=2, shown=(0, 4, 0))
    16
    """
    m: int = 2 ** robs * max((1, *shown))
    return m if rules.multiplier_cap is None else min(m, rules.multiplier_cap)


def bidding_escape_points(rules: Rules, *, bid: int, multiplier: int) -> int:
    """What a seat that leaves during the bidding pays, in points (RULES.md §9).

    ``bid`` is the highest bid so far (``rob`` preset: 1 once someone called), 0 while nobody
    has bid or called; ``multiplier`` is :func:`bidding_multiplier`. Before anyone bid the leaver
    pays ``BIDDING_ESCAPE_BASE × escape_factor`` (6, seed 000: 还没人叫牌时逃跑：扣6分); after a
    bid ``max(6, escape_factor × bid × multiplier)``, so leaving later never costs less than
    leaving earlier.

    >>> from engine.presets import ROB
    >>> [bidding_escape_points(ROB, bid=b, multiplier=m) for b, m in [(0, 1), (1, 1), (1, 4)]]
    [6, 6, 12]
    """
    least = BIDDING_ESCAPE_BASE * rules.escape_factor
    return least if bid == 0 else max(least, rules.escape_factor * bid * multiplier)


def bidding_escape_result(rules: Rules, leaver: int, bidding: Bidding,
                          shown: Sequence[int]) -> DealResult:
    """Result of a deal cancelled because ``leaver`` left during ``bidding`` (RULES.md §9).

    The leaver pays :func:`bidding_escape_points` for the highest bid so far (``score`` preset:
    the bid; ``rob`` preset: 1 once someone called) and the multiplier so far
    (:func:`bidding_multiplier`: robs, shown cards), shared equally by the other seats (odd
    points first to the seat after the leaver). The result's ``base`` is that bid (0 if nobody
    had bid or called); it has no landlord, farmers or pair multipliers.
    """
    bid = bidding.high_bid if rules.bidding == "score" else int(bidding.started)
    multiplier = bidding_multiplier(rules, robs=bidding.robs, shown=shown)
    points = [0] * rules.seats
    _charge(points, bidding_escape_points(rules, bid=bid, multiplier=multiplier), leaver,
            (leaver,))
    return DealResult(winner=None, landlord=None, base=bid, bombs=0, rockets=0, spring=False,
                      anti_spring=False, farmers=(), multipliers=(), points=tuple(points),
                      escaped=(leaver,))


def _charge(points: list[int], amount: int, leaver: int, escaped: Sequence[int]) -> None:
    n = len(points)
    receivers = [(leaver + i) % n for i in range(1, n) if (leaver + i) % n not in escaped]
    if not receivers:
        return
    points[leaver] -= amount
    for seat, share in split_evenly(amount, receivers).items():
        points[seat] += share


def split_evenly(total: int, seats: Sequence[int]) -> dict[int, int]:
    """Split ``total`` points over ``seats`` as evenly as integers allow; the first
    ``total mod len(seats)`` seats in the given order get one point more.

    >>> split_evenly(7, [2, 0])
    {2: 4, 0: 3}
    """
    q, r = divmod(total, len(seats))
    return {seat: q + (1 if i < r else 0) for i, seat in enumerate(seats)}
