"""Competitions at one table (RULES.md §10): the fixed-deal match (定局积分), the
first-to-N match (先得N分者胜) and the knock-out by chips (打立出局). Pure values and functions,
no I/O: the match driver (:mod:`bot.features.match.driver`) records each finished deal here and asks
whether the match is over, the store keeps the state as JSON (:meth:`MatchState.to_dict`).

Rules, and the choices made where §10 is silent:

- **Fixed deals**: ``deals`` deals (default 9, 3–18; seed 000's final plays 18); a seat's score
  is the sum of its points per deal (RULES.md §7). When the ``deals`` are played and first place
  is tied, one extra deal (加赛) at a time is played until it is broken (seed 001); ties below
  first share the place. Optional ``time_limit`` (minutes from the start, seed 001: 15): the
  deal in progress is the last, then the points decide; a tie for first plays on.
- **First to N** (seed 000: 先得30分者或时间到分数最多者胜出): a fixed-deal match with a
  ``target`` (5–300 points, default 30 when opened with ``/firstto``; 0 means fixed deals) and
  no deal count: it ends after the deal in which a seat's total reaches the target (the seat
  with the most points wins), or, with a ``time_limit``, after the deal in progress when the
  time is up (most points wins). A tie for first plays on, one extra deal at a time, until it
  is broken. Stored as a ``fixed`` match (its points are summed as a fixed-deal match's): the
  target tells them apart (:attr:`MatchOptions.kind`).
- **Knock-out** (the chip arithmetic is :mod:`engine.knockout`): every seat starts with
  ``chips`` (default 20, seed 002; 5–200, seed 000 plays 15); a deal moves ``units × chip base``
  chips per farmer–landlord pair, the units counted per deal (default, seed 002: "每把以2个为基础
  开局", the bid does not multiply; bombs, rockets and spring do, no cap) or per point
  (``base_per``; the bid multiplies too); a loser who cannot cover what they owe pays what they
  have and the winners share it in proportion (as RULES.md §8). The chip base (default 2)
  doubles every ``rise_every`` deals (default 5; 0: never; deals 1..K at the base, K+1..2K at
  twice it, …; extra deals continue the count). These defaults make a knock-out last a median
  of 8 deals (``bench/knockout.py``; 20 chips at 2 per point ended after a median of 3, often
  after one). A seat is **out** when its chips reach 0 or fall below ``threshold`` (default 1,
  so out at 0; seed 003 积分小于某个值; at most the starting chips), and stays out. The match
  ends after the deal in which someone went out, the others ranked by chips; when the seats
  still in share first place (a landlord who loses everything pays both farmers alike) the tie
  is played off by extra deals, one at a time, in which the seats that are out are played by
  the AI and neither pay nor receive chips (RULES.md §10.1; seed 002 每桌只能一名胜出). Optional
  ``time_limit`` (minutes, wall clock from the start): the deal in progress is finished, then
  chips decide; a tie for first plays one more deal, again until it is broken.
- **Three failed landlord deals** (RULES.md §11, seed 004 rule 5, four-player matches): a seat
  that has lost three deals as landlord (its points in the deal negative, a forced 逼打
  landlord's included: it was the landlord) may only pass in the biddings of the match's later
  deals (:meth:`MatchState.barred`, given to ``engine.new_deal``); all four passing still makes
  it the forced landlord. Deals stored before the landlord was recorded count as none.
- **Leaving** (逃跑, RULES.md §9) forfeits the match: the deal is finished with the escape result,
  the seat is ranked last (below every finisher, forfeiters among themselves by score) and wins
  no prize; in a knock-out the leaver is out at once, so the match ends with that deal.
- **All pass again and again** (``redeal_rule``, RULES.md §2.3): the match's own choice of
  ``redeal``, ``forced_bid`` or ``penalty``, set in the lobby; a new lobby starts from the
  group's setting, or ``forced_bid`` where the group left it at its default (§2.3's default
  for competitions). ``None``: the group's setting when the match starts (a four-player match,
  which never deals again (逼打, RULES.md §11), and matches stored before the option existed).
- **Prizes** (:func:`prizes`): only human seats that finished are ranked for the pool (bot seats
  pay no fee and win no prize). The split is the match's prize table (``prizes``, whole
  percentages by place, at most 10 places, summing to 100: :mod:`engine.prizes`; default
  50 % / 30 % / 20 %); with fewer finishers the unused shares go to the first; seats sharing a
  place share the shares of the places they cover, equally. With no human finisher every fee
  goes back to its payer (:func:`refunds`).

Units: ``points`` are the engine's points (RULES.md §7), ``chips`` the knock-out's own score,
``beans`` the players' balances (only the entry fee and the prizes are beans).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.knockout import BASE_PER, PER_DEAL, PER_POINT, Chips, KnockoutRules, after_deal, decided
from engine.presets import REDEAL_RULES
from engine.prizes import DEFAULT_PRIZE_TABLE, PrizeTableError, check_prize_table, split_pool

FIXED = "fixed"
KNOCKOUT = "knockout"
FORMATS = (FIXED, KNOCKOUT)
#: The first-to-N match: a :data:`FIXED` match with a target (:attr:`MatchOptions.kind`).
FIRST_TO = "first_to"
#: What a player opens: the formats, and the first-to-N match.
KINDS = (FIXED, FIRST_TO, KNOCKOUT)
#: The first-to-N match's target when none is typed (seed 000: 30分为一局).
DEFAULT_TARGET = 30

#: The pool's split by place, in percent (RULES.md §10).
PRIZE_SPLIT = DEFAULT_PRIZE_TABLE

#: Limits of each option the opener may set (inclusive); see :class:`MatchOptions`.
LIMITS: dict[str, tuple[int, int]] = {
    "deals": (3, 18),
    "target": (5, 300),
    "chips": (5, 200),
    "chip_base": (1, 20),
    "threshold": (1, 200),
    "time_limit": (0, 240),
    "rise_every": (0, 12),
    "entry_fee": (0, 1_000_000),
}

#: Options written as words, with the words each takes (see :class:`MatchOptions`).
WORD_OPTIONS: dict[str, tuple[str, ...]] = {"base_per": BASE_PER, "redeal_rule": REDEAL_RULES}
#: The word options that may also be ``None`` (see :class:`MatchOptions`).
OPTIONAL_WORDS = frozenset({"redeal_rule"})

#: What options a dict written before an option existed means by leaving it out: the value
#: the match was played with then (not today's default).
OLD_VALUES: dict[str, Any] = {"base_per": PER_POINT, "redeal_rule": None}

#: Deals lost as landlord after which a seat of a four-player match may only pass in the
#: bidding (RULES.md §11: 做了三副大地主失败).
LANDLORD_LOSSES_BAR = 3

#: Version of the dict written by :meth:`MatchState.to_dict`.
DICT_VERSION = 1


class MatchError(ValueError):
    """An option out of its limits, an unknown format, or a deal that does not fit the match."""


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """A match's options, fixed when it starts (RULES.md §10 defaults).

    Attributes:
        format: :data:`FIXED` or :data:`KNOCKOUT`.
        deals: fixed deals: deals to play before extra deals (3–18, default 9).
        target: fixed format: 0 (default): fixed deals; else a first-to-N match (5–300):
            the points a seat's total must reach (see :attr:`kind`).
        chips: knock-out: starting chips per seat (5–200, default 20).
        chip_base: knock-out: chips per unit of a deal (default 2).
        threshold: knock-out: a seat below this many chips (or at 0) is out (default 1; at
            most ``chips``).
        time_limit: minutes from the start after which the deal in progress is the last (a
            tie for first plays on); 0: no limit (default).
        rise_every: knock-out: the chip base doubles every this many deals; 0: never
            (default 5).
        entry_fee: beans each human seat pays into the pool at the start (default 0).
        base_per: knock-out: :data:`engine.knockout.PER_DEAL` (default: the chip base is a
            deal's price whatever the bid) or :data:`engine.knockout.PER_POINT` (per point of
            the deal, bid included).
        prizes: the prize table, percent by place (:func:`engine.prizes.check_prize_table`;
            default 50/30/20).
        redeal_rule: RULES.md §2.3 when all pass again and again, one of
            :data:`engine.presets.REDEAL_RULES`; ``None`` (default): the group's setting when
            the match starts (``forced_bid`` where the group left it at its default; a
            four-player match, which never deals again, keeps ``None``).
    """

    format: str
    deals: int = 9
    target: int = 0
    chips: int = 20
    chip_base: int = 2
    threshold: int = 1
    time_limit: int = 0
    rise_every: int = 5
    entry_fee: int = 0
    base_per: str = PER_DEAL
    prizes: tuple[int, ...] = DEFAULT_PRIZE_TABLE
    redeal_rule: str | None = None

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise MatchError(f"unknown match format {self.format!r}")
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if name == "target" and value == 0 and not isinstance(value, bool):
                continue  # no target: fixed deals (or a knock-out)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise MatchError(f"{name} must be a whole number in {low}..{high}")
        if self.target and self.format != FIXED:
            raise MatchError("only a fixed-format match has a target")
        try:
            object.__setattr__(self, "prizes", check_prize_table(self.prizes))
        except PrizeTableError as exc:
            raise MatchError(f"prizes: {exc}") from None
        for name, words in WORD_OPTIONS.items():
            if name in OPTIONAL_WORDS and getattr(self, name) is None:
                continue
            if getattr(self, name) not in words:
                raise MatchError(f"{name} must be one of {', '.join(words)}")
        if self.threshold > self.chips:
            raise MatchError("the threshold must not exceed the starting chips")

    @property
    def kind(self) -> str:
        """What was opened: :data:`FIRST_TO` for a fixed-format match with a target, else the
        format."""
        return FIRST_TO if self.format == FIXED and self.target else self.format

    @property
    def knockout_rules(self) -> KnockoutRules:
        """The chip numbers of a knock-out (:mod:`engine.knockout`)."""
        return KnockoutRules(self.chips, self.chip_base, self.base_per, self.rise_every,
                             self.threshold)

    def with_option(self, name: str, value: int | str | None) -> MatchOptions:
        """A copy with one option changed.

        Raises:
            MatchError: unknown option, a value out of :data:`LIMITS` or not one of
                :data:`WORD_OPTIONS`, or a threshold above the starting chips.
        """
        if name not in LIMITS and name not in WORD_OPTIONS:
            raise MatchError(f"unknown option {name!r}")
        return MatchOptions.from_dict({**self.to_dict(), name: value})

    def to_dict(self) -> dict[str, Any]:
        return {**{name: getattr(self, name) for name in ("format", *LIMITS, *WORD_OPTIONS)},
                "prizes": list(self.prizes)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchOptions:
        """Inverse of :meth:`to_dict`. A dict written before an option existed (a stored
        match or lobby) gets the value it was played with then (:data:`OLD_VALUES`); other
        missing options take their defaults (no target, no time limit, prizes 50/30/20: what
        such matches were played with).

        Raises:
            MatchError: as the constructor.
        """
        known = {k: data[k] for k in ("format", *LIMITS, *WORD_OPTIONS) if k in data}
        if "prizes" in data:
            if not isinstance(data["prizes"], (list, tuple)):
                raise MatchError("prizes: a list of whole percentages is expected")
            known["prizes"] = tuple(data["prizes"])
        return cls(**{**OLD_VALUES, **known})


@dataclass(frozen=True, slots=True)
class MatchDeal:
    """One finished deal of a match.

    Attributes:
        deal_id: the store's deal id (a deal is recorded once).
        points: per seat, the engine's points (RULES.md §7; escape result included).
        chip_base: knock-out: the chip base this deal was played at (0 in a fixed match).
        chips: knock-out: per seat, the chips won (+) or paid (−); zeros in a fixed match.
        left: seats that left during this deal (they forfeit the match).
        landlord: the deal's landlord seat; ``None`` when nobody became landlord (a leave
            during the bidding) or the deal was stored before the landlord was recorded.
    """

    deal_id: int
    points: tuple[int, ...]
    chip_base: int = 0
    chips: tuple[int, ...] = ()
    left: tuple[int, ...] = ()
    landlord: int | None = None

    @property
    def landlord_lost(self) -> bool:
        """The landlord lost this deal: its points are negative (RULES.md §7, §9)."""
        return self.landlord is not None and self.points[self.landlord] < 0

    def to_dict(self) -> dict[str, Any]:
        return {"deal_id": self.deal_id, "points": list(self.points),
                "chip_base": self.chip_base, "chips": list(self.chips), "left": list(self.left),
                "landlord": self.landlord}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchDeal:
        """Inverse of :meth:`to_dict`; a deal stored without ``landlord`` reads with ``None``."""
        landlord = data.get("landlord")
        return cls(int(data["deal_id"]), tuple(data["points"]), int(data["chip_base"]),
                   tuple(data["chips"]), tuple(data["left"]),
                   None if landlord is None else int(landlord))


@dataclass(frozen=True, slots=True)
class Standing:
    """A seat's line in the standings.

    Attributes:
        seat: the seat number. place: 1-based, shared on ties (1, 2, 2).
        score: total points (fixed) or chips left (knock-out).
        deals: deals the seat played in this match.
        out: knock-out: the seat is out. forfeited: the seat left the match (ranked last).
    """

    seat: int
    place: int
    score: int
    deals: int
    out: bool = False
    forfeited: bool = False


@dataclass(frozen=True, slots=True)
class MatchState:
    """A match in progress or over: its options, which seats are human, the deals played and
    when it started (UTC seconds; the knock-out's time limit counts from it).

    A new state is returned by :meth:`record`; nothing mutates.
    """

    options: MatchOptions
    humans: tuple[bool, ...]
    started_at: float
    deals: tuple[MatchDeal, ...] = ()
    forfeited: tuple[bool, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.forfeited:
            object.__setattr__(self, "forfeited", (False,) * len(self.humans))
        if len(self.forfeited) != len(self.humans) or len(self.humans) < 2:
            raise MatchError("a match needs at least two seats")

    @property
    def seats(self) -> int:
        return len(self.humans)

    @property
    def knockout(self) -> bool:
        return self.options.format == KNOCKOUT

    @property
    def first_to(self) -> bool:
        """A first-to-N match (:data:`FIRST_TO`)."""
        return self.options.kind == FIRST_TO

    @property
    def played(self) -> int:
        """Deals finished so far."""
        return len(self.deals)

    def chip_base_of(self, number: int) -> int:
        """The chip base of deal ``number`` (1-based): ``chip_base × 2^((number − 1) // K)``
        with the rising base every ``K`` deals, else ``chip_base``."""
        return self.options.knockout_rules.chip_base_of(number)

    @property
    def chip_base(self) -> int:
        """The chip base of the next deal (of the last one once the match is over)."""
        return self.chip_base_of(max(1, self.played + 1))

    def _chips(self) -> Chips:
        """Knock-out: chips per seat and who is out (for good: chips at 0 or below the
        threshold after a deal, or left) after the deals played."""
        rules = self.options.knockout_rules
        chips, out = [rules.chips] * self.seats, [False] * self.seats
        for deal in self.deals:
            chips = [c + d for c, d in zip(chips, deal.chips, strict=True)]
            out = [o or rules.is_out(c) or s in deal.left
                   for s, (c, o) in enumerate(zip(chips, out, strict=True))]
        return Chips(tuple(chips), tuple(out), self.played)

    def scores(self) -> list[int]:
        """Per seat: total points (fixed) or chips now (knock-out)."""
        if self.knockout:
            return list(self._chips().chips)
        totals = [0] * self.seats
        for deal in self.deals:
            totals = [s + p for s, p in zip(totals, deal.points, strict=True)]
        return totals

    def out(self) -> list[bool]:
        """Knock-out: per seat, out (chips at 0 or below the threshold after some deal, or
        left; a seat once out stays out); all ``False`` in a fixed match."""
        if not self.knockout:
            return [False] * self.seats
        return list(self._chips().out)

    def record(self, deal_id: int, points: Sequence[int], left: Sequence[int] = (), *,
               bid: int = 1, landlord: int | None = None) -> MatchState:
        """The state after deal ``deal_id`` finished with ``points`` per seat at base score
        ``bid`` (RULES.md §7; a knock-out charging per deal divides the points by it); seats in
        ``left`` left during it and forfeit; ``landlord``: its landlord seat, ``None`` if there
        was none (counted by :meth:`landlord_losses`). Recording the same deal again changes
        nothing.

        Raises:
            MatchError: the match is over, ``points`` has the wrong length or does not sum to
                zero, or a seat in ``left`` or ``landlord`` does not exist.
        """
        if any(d.deal_id == deal_id for d in self.deals):
            return self
        points = tuple(int(p) for p in points)
        if len(points) != self.seats or sum(points) != 0:
            raise MatchError(f"a deal of this match needs {self.seats} points summing to zero")
        if any(not 0 <= s < self.seats for s in left) or (
                landlord is not None and not 0 <= landlord < self.seats):
            raise MatchError("unknown seat")
        if self.winner_known():
            raise MatchError("the match is over")
        left = tuple(sorted(set(left)))
        if self.knockout:
            base = self.chip_base_of(self.played + 1)
            _, chips = after_deal(self.options.knockout_rules, self._chips(), points, bid, left)
        else:
            base, chips = 0, (0,) * self.seats
        deal = MatchDeal(deal_id, points, base, chips, left, landlord)
        forfeited = tuple(f or s in deal.left for s, f in enumerate(self.forfeited))
        return replace(self, deals=(*self.deals, deal), forfeited=forfeited)

    def landlord_losses(self) -> list[int]:
        """Per seat, the deals of this match it lost as landlord (RULES.md §11; a forced 逼打
        landlord's too); deals stored without their landlord count for nobody."""
        losses = [0] * self.seats
        for deal in self.deals:
            if deal.landlord_lost and deal.landlord is not None:
                losses[deal.landlord] += 1
        return losses

    def barred(self) -> tuple[bool, ...]:
        """Per seat, ``True`` once it has lost :data:`LANDLORD_LOSSES_BAR` deals as landlord:
        in a four-player match it may only pass in the biddings of the later deals (RULES.md
        §11, seed 004 rule 5: 以后不得再争叫地主，逼打除外; the caller applies it to
        four-player deals only, ``engine.new_deal(..., barred=...)``)."""
        return tuple(n >= LANDLORD_LOSSES_BAR for n in self.landlord_losses())

    def _keys(self) -> list[tuple[bool, bool, int]]:
        """Per seat, its ranking key (smaller is better): forfeited, out, −score."""
        return [(f, o, -s) for f, o, s in zip(self.forfeited, self.out(), self.scores(),
                                              strict=True)]

    def standings(self) -> list[Standing]:
        """Every seat, best first: finishers by score (higher first; in a knock-out the seats
        still in before those that are out), then those who forfeited, by score; equal keys
        share a place; seat order breaks display ties."""
        scores, out, keys = self.scores(), self.out(), self._keys()
        order = sorted(range(self.seats), key=lambda i: (keys[i], i))
        return [
            Standing(i, 1 + sum(k < keys[i] for k in keys), scores[i], self.played, out[i],
                     self.forfeited[i])
            for i in order
        ]

    def _first_tied(self) -> bool:
        firsts = [s for s in self.standings() if s.place == 1 and not s.forfeited]
        return len(firsts) > 1

    def time_up(self, now: float) -> bool:
        """A match with a time limit: the limit has passed at UTC time ``now`` (seconds)."""
        limit = self.options.time_limit
        return limit > 0 and now >= self.started_at + limit * 60

    def target_reached(self) -> bool:
        """First to N: a seat's total reached the target after some deal (for good: a tie
        for first then plays on, whatever the totals do next)."""
        if not self.first_to:
            return False
        totals = [0] * self.seats
        for deal in self.deals:
            totals = [s + p for s, p in zip(totals, deal.points, strict=True)]
            if max(totals) >= self.options.target:
                return True
        return False

    def winner_known(self, now: float | None = None) -> bool:
        """The match is over (see the module docstring): every human seat forfeited (bots
        would play on for nothing); fixed: the deals are played (first to N: a seat reached
        the target) and first place is not tied; knock-out: a seat is out and one seat still
        in leads alone (:func:`engine.knockout.decided`); any format: (given ``now``) the time
        is up and first place is not tied."""
        human = [f for f, h in zip(self.forfeited, self.humans, strict=True) if h]
        if all(self.forfeited) or (human and all(human)):
            return True
        if self.knockout:
            chips = self._chips()
            if any(chips.out):
                return decided(chips.chips, chips.out)
            return now is not None and self.time_up(now) and not self._first_tied()
        ended = self.target_reached() if self.first_to else self.played >= self.options.deals
        timed = now is not None and self.time_up(now) and self.played > 0
        return (ended or timed) and not self._first_tied()

    def is_over(self, now: float) -> bool:
        """:meth:`winner_known` at UTC time ``now`` (seconds)."""
        return self.winner_known(now)

    def next_is_extra(self, now: float) -> bool:
        """The next deal is an extra deal (加赛) played to break a tie for first."""
        if self.is_over(now):
            return False
        if self.knockout:
            return any(self.out()) or self.time_up(now)
        if self.first_to:
            return self.target_reached() or self.time_up(now)
        return self.played >= self.options.deals or self.time_up(now)

    def places(self) -> list[int | None]:
        """Per seat, the place among the **human finishers** (for prizes); ``None`` for bot
        seats and for seats that forfeited."""
        keys = self._keys()
        finishers = [s.seat for s in self.standings() if self.humans[s.seat] and not s.forfeited]
        result: list[int | None] = [None] * self.seats
        for s in finishers:
            result[s] = 1 + sum(keys[o] < keys[s] for o in finishers)
        return result

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"v": 1, "options": {...}, "humans": [bool], "started_at": seconds,
        "deals": [{"deal_id", "points", "chip_base", "chips", "left", "landlord"}],
        "forfeited": [bool]}``."""
        return {"v": DICT_VERSION, "options": self.options.to_dict(),
                "humans": list(self.humans), "started_at": self.started_at,
                "deals": [d.to_dict() for d in self.deals], "forfeited": list(self.forfeited)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchState:
        """Inverse of :meth:`to_dict`.

        Raises:
            MatchError: an unknown version or a malformed dict.
        """
        if data.get("v") != DICT_VERSION:
            raise MatchError(f"unknown match dict version {data.get('v')!r}")
        try:
            return cls(MatchOptions.from_dict(data["options"]),
                       tuple(bool(h) for h in data["humans"]), float(data["started_at"]),
                       tuple(MatchDeal.from_dict(d) for d in data["deals"]),
                       tuple(bool(f) for f in data["forfeited"]))
        except (KeyError, TypeError) as exc:
            raise MatchError(f"malformed match dict: {exc}") from None


def prizes(pool: int, places: Sequence[int | None],
           split: Sequence[int] = PRIZE_SPLIT) -> list[int]:
    """The pool's payout per seat (beans): ``places`` are the human finishers' places
    (:meth:`MatchState.places`; ``None``: no prize), split by :func:`engine.prizes.split_pool`:
    shares of places nobody holds go to first; seats sharing a place split the shares of the
    places they cover equally (odd beans to the earlier seat). Sums to ``pool`` when anyone has
    a place, else all zeros.

    >>> prizes(300, [1, 2, 3]), prizes(300, [1, 2, None]), prizes(300, [1, 2, 2])
    ([150, 90, 60], [210, 90, 0], [150, 75, 75])

    Raises:
        ValueError: a negative pool, places that are not ranks from 1, or an invalid ``split``
            (:class:`engine.prizes.PrizeTableError`).
    """
    return split_pool(pool, places, split)


def refunds(fee: int, humans: Sequence[bool]) -> list[int]:
    """What every human seat gets back when nobody wins the pool (cancelled, or no human
    finished): its fee."""
    return [fee if h else 0 for h in humans]


def payout(state: MatchState) -> list[int]:
    """The beans each seat receives from the pool when the match is over: :func:`prizes`, or
    :func:`refunds` when no human finished."""
    pool = state.options.entry_fee * sum(state.humans)
    places = state.places()
    if all(p is None for p in places):
        return refunds(state.options.entry_fee, state.humans)
    return prizes(pool, places, state.options.prizes)
