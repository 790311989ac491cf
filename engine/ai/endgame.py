"""Endgame search, from what the seat can know only (RULES.md §4, §6).

Two searches, both with a node budget and a time budget (they answer "no result" rather than
late):

* :func:`forced_win` proves a win whatever the hidden cards are. The opponents' hidden cards are
  treated as the *union* of every card this seat has not seen: an opponent holding ``k`` cards is
  assumed able to make any play of at most ``k`` cards from that union, so a win proven under
  that assumption is a real win. A proof is a sequence of own plays where every play but the
  last cannot be beaten by any opponent (the lead comes back) and the last empties the hand.
* :func:`sampled_choice` deals the unseen cards to the other seats many times, consistent with
  the card counts, shown hands and the revealed kitty (:func:`sample_hands`), and with what the
  seats' passes and follows make likely (:func:`likely_deals`, :func:`capped_hands`), solves
  each deal exactly with both sides playing their best (:class:`Solver`), and picks the
  candidate play that wins the most deals.
"""

from __future__ import annotations

import random
import time
from functools import lru_cache
from math import comb

from engine.ai.hand import (
    ALL_TYPES,
    all_moves,
    can_beat,
    can_beat_same_type,
    follow_moves,
    minus,
    moves_of_type,
)
from engine.ai.knowledge import Knowledge
from engine.combos import ComboType, Play


class _Budget(Exception):
    pass


class Budget:
    """The work one decision may spend on search: positions visited, and optionally a deadline.

    The node count is the budget that matters: it makes the search deterministic (the same view
    and seed give the same decision on any machine) and bounds its time on a given machine. The
    deadline (a ``time.perf_counter()`` value, ``None`` = none) is a safety net for an overloaded
    machine; a search that hits either limit answers with what it has (anytime).
    """

    __slots__ = ("nodes", "deadline")

    def __init__(self, nodes: int, deadline: float | None = None) -> None:
        self.nodes = nodes
        self.deadline = deadline

    def spend(self) -> None:
        """Count one position; raise :class:`_Budget` when the budget is used up."""
        self.nodes -= 1
        if self.nodes < 0 or (self.deadline is not None and self.nodes & 15 == 0
                              and time.perf_counter() > self.deadline):
            raise _Budget

    @property
    def exhausted(self) -> bool:
        return self.nodes <= 0 or (self.deadline is not None
                                   and time.perf_counter() > self.deadline)


def is_safe(k: Knowledge, play: Play) -> bool:
    """True if no opponent of ``k.seat`` can beat ``play`` (card counting over unseen cards)."""
    return not any(can_beat(k.cards_of(e), play, k.counts[e]) for e in k.enemies)


def forced_win(k: Knowledge, budget: Budget | None = None) -> Play | None:
    """A play from which this seat surely empties its hand first, or ``None`` if none is proven.

    Considers beating ``k.prev`` when following (a proof never passes). ``budget`` caps the
    work (default: 4,000 positions); a search that runs out proves nothing.
    """
    budget = budget if budget is not None else Budget(4000)
    memo: dict[tuple[int, ...], Play | None] = {}
    safe_cache: dict[Play, bool] = {}

    def safe(play: Play) -> bool:
        s = safe_cache.get(play)
        if s is None:
            s = safe_cache[play] = is_safe(k, play)
        return s

    def lead_win(hand: tuple[int, ...]) -> Play | None:
        if hand in memo:
            return memo[hand]
        budget.spend()
        memo[hand] = None
        result = _first_win(hand, all_moves(hand))
        memo[hand] = result
        return result

    def _first_win(hand: tuple[int, ...], moves: list[Play]) -> Play | None:
        size = sum(hand)
        for m in moves:
            if len(m.cards) == size:
                return m
        # Safe plays that leave the fewest cards are tried first.
        for m in sorted(moves, key=lambda p: -len(p.cards)):
            if safe(m) and lead_win(minus(hand, m.cards)) is not None:
                return m
        return None

    try:
        if k.prev is None:
            return lead_win(k.hand)
        return _first_win(k.hand, follow_moves(k.hand, k.prev))
    except _Budget:
        return None


# --- sampled perfect-information endgame (RULES.md §4) ---------------------------------------


#: A move inside the search: ``(type code, main, n, cards)``, ints only. The garbage collector
#: stops tracking such tuples; a full collection still visits every entry of the caches that
#: hold them, so those stay small (:data:`MOVE_CACHE`).
Move = tuple[int, int, int, tuple[int, ...]]
_CODE = {t: i for i, t in enumerate(ComboType)}
_ROCKET, _BOMB = _CODE[ComboType.ROCKET], _CODE[ComboType.BOMB]
_BOMB_TYPES = (ComboType.BOMB, ComboType.ROCKET)
#: The largest count of one rank each type needs (1 for the rest).
_WIDTH_NEEDED = {
    ComboType.PAIR: 2, ComboType.PAIR_CHAIN: 2, ComboType.TRIO: 3, ComboType.TRIO_SINGLE: 3,
    ComboType.TRIO_PAIR: 3, ComboType.PLANE: 3, ComboType.PLANE_SINGLE: 3,
    ComboType.PLANE_PAIR: 3, ComboType.FOUR_TWO_SINGLES: 4, ComboType.FOUR_TWO_PAIRS: 4,
    ComboType.BOMB: 4,
}


def _move(play: Play) -> Move:
    return (_CODE[play.type], play.main, play.n, play.cards)


def _beats(m: Move, prev: Move) -> bool:
    """:func:`engine.ai.hand.beats` on search moves (RULES.md §6)."""
    if m[0] == _ROCKET:
        return True
    if prev[0] == _ROCKET:
        return False
    if m[0] == _BOMB:
        return prev[0] != _BOMB or m[1] > prev[1]
    if prev[0] == _BOMB:
        return False
    return m[0] == prev[0] and m[2] == prev[2] and len(m[3]) == len(prev[3]) and m[1] > prev[1]


#: The types a hand can hold, by its largest count of one rank (in ``ALL_TYPES`` order).
_KINDS_BY_WIDTH = tuple(
    tuple(t for t in ALL_TYPES if _WIDTH_NEEDED.get(t, 1) <= width) for width in range(5))


#: Hands (and follows) whose search moves are remembered; see
#: :data:`engine.ai.decompose.PLAN_CACHE` for why not more.
MOVE_CACHE = 1 << 13


@lru_cache(maxsize=MOVE_CACHE)
def _limited_moves(hand: tuple[int, ...]) -> tuple[tuple[Move, tuple[int, ...] | None], ...]:
    """Leads for the search, each with the hand it leaves (``None`` = the hand is empty):
    every play, but at most two wing choices per trio/plane body; a play that empties the
    hand first, then longer plays first."""
    top = max(hand)
    out = [_move(m) for kind in _KINDS_BY_WIDTH[top] for m in moves_of_type(hand, kind, wings=2)]
    size = sum(hand)
    out.sort(key=lambda p: (len(p[3]) != size, -len(p[3])))
    return tuple((m, None if len(m[3]) == size else minus(hand, m[3])) for m in out)


@lru_cache(maxsize=MOVE_CACHE)
def _limited_follows(hand: tuple[int, ...], kind: int, main: int, n: int, size: int,
                     ) -> tuple[tuple[Move, tuple[int, ...] | None], ...]:
    """The plays of :func:`_limited_moves` that beat a play of type code ``kind``, main rank
    ``main``, chain length ``n`` and ``size`` cards."""
    prev = (kind, main, n, (0,) * size)
    return tuple(x for x in _limited_moves(hand) if _beats(x[0], prev))


class Solver:
    """Exact play-out search of one deal with every hand known (two sides, RULES.md §4.4).

    ``landlord_wins`` answers whether the landlord's side wins with best play by both sides.
    Each position visited is spent from ``budget``; raises :class:`_Budget` when it runs out.
    """

    def __init__(self, landlord: int, budget: Budget) -> None:
        self.landlord = landlord
        self.budget = budget
        self.memo: dict[tuple[object, ...], bool] = {}

    def landlord_wins(self, hands: tuple[tuple[int, ...], ...], turn: int,
                      prev: Play | None, owner: int | None) -> bool:
        """Does the landlord's side win from here? ``hands``: count vectors per seat;
        ``turn``: the seat to act; ``prev``/``owner``: the play to beat and who made it
        (``None`` = ``turn`` leads)."""
        return self._wins(hands, turn, _move(prev) if prev is not None else None, owner)

    def _wins(self, hands: tuple[tuple[int, ...], ...], turn: int, prev: Move | None,
              owner: int | None) -> bool:
        if owner == turn:
            prev, owner = None, None
        key = (hands, turn, owner, prev[0], prev[1], prev[2], len(prev[3])) \
            if prev is not None else (hands, turn)
        got = self.memo.get(key)
        if got is not None:
            return got
        self.budget.spend()
        mine = turn == self.landlord
        nxt = (turn + 1) % len(hands)
        result = not mine
        hand = hands[turn]
        moves = (_limited_moves(hand) if prev is None
                 else _limited_follows(hand, prev[0], prev[1], prev[2], len(prev[3])))
        for m, rest in moves:
            if rest is None:
                result = mine
                break
            new = hands[:turn] + (rest,) + hands[turn + 1:]
            if self._wins(new, nxt, m, turn) == mine:
                result = mine
                break
        else:
            if prev is not None and self._wins(hands, nxt, prev, owner) == mine:
                result = mine
        self.memo[key] = result
        return result


def sample_hands(k: Knowledge, rng: random.Random) -> tuple[tuple[int, ...], ...]:
    """One deal of the unseen cards to the other seats, consistent with the view: card counts,
    shown hands, and the kitty cards the landlord has not played."""
    hands: list[tuple[int, ...] | None] = [None] * k.seats
    hands[k.seat] = k.hand
    pool = [r for r in range(len(k.unseen)) for _ in range(k.unseen[r])]
    fixed = [0] * len(k.unseen)
    if not k.is_landlord and k.known[k.landlord] is None:
        fixed = list(k.landlord_kitty)
        for r, n in enumerate(fixed):
            for _ in range(n):
                pool.remove(r)
    rng.shuffle(pool)
    for s in range(k.seats):
        if s == k.seat:
            continue
        if k.known[s] is not None:
            hands[s] = k.known[s]
            continue
        c = list(fixed) if s == k.landlord else [0] * len(k.unseen)
        need = k.counts[s] - sum(c)
        for r in pool[:need]:
            c[r] += 1
        pool = pool[need:]
        hands[s] = tuple(c)
    return tuple(hands)  # type: ignore[arg-type]


#: How much less likely a pass makes a deal in which the passing seat could have beaten the
#: play with one of the same type (players, and RLCard's rule agent, rarely pass then).
PASS_LIKELIHOOD = 0.25
#: One sample may spend at most this share (1/n) of the sampled search's budget.
PER_SAMPLE_SHARE = 4
#: Deals drawn per deal solved, to pick the likely ones from (:func:`likely_deals`).
DRAWS_PER_SAMPLE = 3


def deal_weight(k: Knowledge, hands: tuple[tuple[int, ...], ...]) -> float:
    """Relative likelihood of a sampled deal given the passes (:attr:`Knowledge.passes`): each
    pass on the other side's play that the seat's hand then could have beaten without a bomb
    multiplies it by :data:`PASS_LIKELIHOOD`."""
    w = 1.0
    for seat, play, later in k.passes:
        if seat == k.seat or k.known[seat] is not None or play.type in _BOMB_TYPES:
            continue
        then = tuple(a + b for a, b in zip(hands[seat], later, strict=True))
        if can_beat_same_type(then, play):
            w *= PASS_LIKELIHOOD
    return w


#: Share of :func:`likely_deals`' draws dealt within the seats' likely cards
#: (:attr:`Knowledge.likely`, :func:`capped_hands`); the rest are dealt uniformly, so that a
#: seat that does not play the way its passes suggest is still represented.
CAPPED_SHARE = 1.0


def likely_deals(k: Knowledge, rng: random.Random, n: int) -> list[tuple[tuple[int, ...], ...]]:
    """``n`` deals of the unseen cards, drawn from :data:`DRAWS_PER_SAMPLE` times as many
    with probability proportional to :func:`deal_weight`, without replacement; uniform draws
    when no pass tells anything. A :data:`CAPPED_SHARE` of the draws is dealt within the
    likely cards (:func:`capped_hands`), the others by :func:`sample_hands`."""
    if not k.passes and not k.follows:
        return [sample_hands(k, rng) for _ in range(n)]
    total = n * DRAWS_PER_SAMPLE
    capped = round(total * CAPPED_SHARE)
    drawn = []
    for i in range(total):
        hands = capped_hands(k, rng) if i < capped else None
        drawn.append(hands if hands is not None else sample_hands(k, rng))
    keyed = []
    for i, hands in enumerate(drawn):
        u = rng.random()
        w = deal_weight(k, hands)
        keyed.append((u ** (1.0 / w) if u > 0 else 0.0, -i))
    keyed.sort(reverse=True)
    return [drawn[-i] for _, i in keyed[:n]]


def capped_hands(k: Knowledge, rng: random.Random) -> tuple[tuple[int, ...], ...] | None:
    """One deal like :func:`sample_hands`, but with each hidden seat holding no more of a rank
    than its likely cards allow (:meth:`Knowledge.likely_cards_of`), every such deal of the
    unseen cards (card by card) equally likely; ``None`` when no deal fits the caps (the
    passes said something the cards cannot satisfy)."""
    table = _cap_table(k)
    if table is None:
        return None
    seat_a, seat_b, fixed, pool, ways, need_a = table
    a = list(fixed) if seat_a == k.landlord else [0] * len(pool)
    b = list(fixed) if seat_b == k.landlord else [0] * len(pool)
    left = need_a
    for r, options in enumerate(ways):
        row = options[left]
        x = row[-1][0]
        pick = rng.random() * row[-1][1]
        for got, cum in row:
            if pick < cum:
                x = got
                break
        a[r] += x
        b[r] += pool[r] - x
        left -= x
    hands: list[tuple[int, ...]] = list(sample_hands_known(k))
    hands[seat_a] = tuple(a)
    hands[seat_b] = tuple(b)
    return tuple(hands)


def sample_hands_known(k: Knowledge) -> tuple[tuple[int, ...], ...]:
    """Every seat's hand where this seat knows it (its own, shown hands), zeros elsewhere."""
    zero = (0,) * len(k.unseen)
    return tuple(k.hand if s == k.seat else (k.known[s] or zero) for s in range(k.seats))


#: :func:`_cap_table`'s answer: the two hidden seats, the landlord's kitty cards per rank, the
#: pool per rank, per rank and cards still to give the first seat the cumulative weights of each
#: count it may get there (count, cumulative weight), and the cards the first seat needs.
CapTable = tuple[int, int, list[int], list[int], list[list[list[tuple[int, float]]]], int]
_CAP_TABLES: dict[tuple[object, ...], CapTable | None] = {}


def _cap_table(k: Knowledge) -> CapTable | None:
    """The counting table :func:`capped_hands` draws from: the two hidden seats, the landlord's
    kitty cards, the pool per rank and, per rank and cards still to give the first seat, the
    cumulative weights of each count it may get there. ``None`` when fewer or more than two
    seats are hidden (then the caps decide nothing a uniform deal does not) or nothing fits."""
    key = (k.seat, k.landlord, k.counts, k.unseen, k.known, k.landlord_kitty, k.likely)
    if key in _CAP_TABLES:
        return _CAP_TABLES[key]
    if len(_CAP_TABLES) > 64:
        _CAP_TABLES.clear()
    table = _CAP_TABLES[key] = _build_cap_table(k)
    return table


def _build_cap_table(k: Knowledge) -> CapTable | None:
    hidden = [s for s in range(k.seats) if s != k.seat and k.known[s] is None]
    if len(hidden) != 2:
        return None
    seat_a, seat_b = hidden
    ranks = len(k.unseen)
    fixed = [0] * ranks
    if not k.is_landlord:
        fixed = list(k.landlord_kitty)
    pool = [k.unseen[r] - fixed[r] for r in range(ranks)]
    caps = []
    for s in hidden:
        likely = k.likely_cards_of(s)
        own = fixed if s == k.landlord else [0] * ranks
        caps.append([max(0, min(pool[r], likely[r] - own[r])) for r in range(ranks)])
    need_a = k.counts[seat_a] - (sum(fixed) if seat_a == k.landlord else 0)
    need_b = k.counts[seat_b] - (sum(fixed) if seat_b == k.landlord else 0)
    if need_a < 0 or need_b < 0 or need_a + need_b != sum(pool):
        return None
    # count[r][c]: weighted deals of ranks r.. giving seat A exactly c more cards.
    count = [[0] * (need_a + 1) for _ in range(ranks + 1)]
    count[ranks][0] = 1
    for r in range(ranks - 1, -1, -1):
        lo, hi = max(0, pool[r] - caps[1][r]), min(pool[r], caps[0][r])
        for c in range(need_a + 1):
            count[r][c] = sum(comb(pool[r], x) * count[r + 1][c - x]
                              for x in range(lo, min(hi, c) + 1))
    if not count[0][need_a]:
        return None
    ways: list[list[list[tuple[int, float]]]] = []
    for r in range(ranks):
        lo, hi = max(0, pool[r] - caps[1][r]), min(pool[r], caps[0][r])
        per_left: list[list[tuple[int, float]]] = []
        for c in range(need_a + 1):
            total = count[r][c]
            cum, row = 0.0, list[tuple[int, float]]()
            if total:
                for x in range(lo, min(hi, c) + 1):
                    w = comb(pool[r], x) * count[r + 1][c - x]
                    if w:
                        cum += w / total
                        row.append((x, cum))
            per_left.append(row or [(0, 1.0)])
        ways.append(per_left)
    return seat_a, seat_b, fixed, pool, ways, need_a


def sampled_choice(k: Knowledge, candidates: list[Play | None], rng: random.Random, *,
                   samples: int = 12, budget: Budget | None = None,
                   ) -> tuple[Play | None, list[int]] | None:
    """The candidate (``None`` = pass) that wins the most sampled deals under exact play.

    Each sample deals the unseen cards (:func:`likely_deals`, drawn from ``rng``) and solves
    every candidate with :class:`Solver`. ``budget`` (default 3,000 positions) is shared by the
    samples; one sample may spend at most a quarter of it, and a sample that runs out is
    dropped (anytime: the samples solved so far decide). Returns ``(best, wins per
    candidate)``, or ``None`` if no sample was solved (the caller then keeps its own choice).
    Ties go to the earlier candidate.
    """
    budget = budget if budget is not None else Budget(3000)
    per_sample = max(1, budget.nodes // PER_SAMPLE_SHARE)
    wins = [0] * len(candidates)
    done = 0
    nxt = k.next_seat()
    for hands in likely_deals(k, rng, samples):
        if budget.exhausted:
            break
        cap = min(per_sample, budget.nodes)
        sub = Budget(cap, budget.deadline)
        solver = Solver(k.landlord, sub)
        row = []
        try:
            for m in candidates:
                if m is None:
                    won = solver.landlord_wins(hands, nxt, k.prev, k.prev_seat)
                else:
                    rest = minus(k.hand, m.cards)
                    if not any(rest):
                        won = k.is_landlord
                    else:
                        new = hands[:k.seat] + (rest,) + hands[k.seat + 1:]
                        won = solver.landlord_wins(new, nxt, m, k.seat)
                row.append(won == k.is_landlord)
        except _Budget:
            row = []
        budget.nodes -= cap - max(sub.nodes, 0)
        if not row:
            continue
        done += 1
        for i, w in enumerate(row):
            wins[i] += w
    if not done:
        return None
    best = max(range(len(candidates)), key=lambda i: (wins[i], -i))
    return candidates[best], wins
