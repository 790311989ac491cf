"""Determinized Monte Carlo at mid-game decisions of the ``hard`` level (RULES.md §4, §6).

Where the heuristic (:func:`engine.ai.play.rank_plays`) is unsure between plays of different
kinds (a lead of a single or of a pair, a follow or a pass, a normal follow or a 2, a joker or a
bomb), the unseen cards are dealt to the other seats many times, weighted by what their passes
make likely (:func:`engine.ai.endgame.likely_deals`), and each candidate is played out on every
deal by a fast rollout policy (:func:`rollout`) for all three seats. The candidate whose
play-outs win most often is played, if it beats the heuristic's own choice by a margin.

The work is counted in units of about one rollout move (:class:`Work`), never in time, so a
decision is a function of the view and the generator's state; the budget's optional deadline is
only the safety net for an overloaded machine. What costs more than a move is charged at its
real cost, the same whether a cache already holds the result or not (so the count stays
deterministic and bounds the time of a cold start): drawing a deal (:data:`DRAW_COST`), the
first plan of a hand in a decision (the full planner by the splits it scores,
:func:`engine.ai.decompose.plan_work` times :data:`SPLIT_COST`; the greedy one at
:data:`QUICK_COST`), and :data:`PLAN_COST` for a plan looked up again.

The rollout policy sees only its own hand, the card counts and the trick (plus which seats are
partners): it plays the plan of its hand lowest combination first, beats an opponent's play with
the cheapest planned combination that does, breaks its plan or bombs only when an opponent is
close to playing out, and lets the partner's plays stand; a farmer whose partner has one card
left leads its lowest single (two cards: its lowest pair), and no seat leads a single while an
opponent (any, not only the next seat) has one card, unless it is its last combination or its
top single (:func:`_coop_lead`; against RLCard on tuning seeds 20000-23999, 4,000 duplicate
deals paired with the lead of the plan alone: WP +0.005 ± 0.004, landlord +0.005, farmers
+0.005). The deciding seat's enemies are
played as opponents usually play (:data:`EAGER`): they beat a play whenever their hand can
without a bomb, breaking their plan if they must (RLCard's rule agent always does). Against
RLCard on tuning seeds 17000-18499 (1,500 duplicate deals, paired with the plan-only policy):
WP +0.008 ± 0.012 (landlord +0.013, farmers +0.002); on the first 500 of them every seat
eager gave +0.009 against +0.019 for the enemies only (our own side then plays unlike
itself).

The deciding seat's hand is planned by :func:`engine.ai.decompose.plan_hand`, the sampled hands
(and any hand whose plan a play broke) by a greedy planner about ten times cheaper
(:func:`_quick_plan`); on the tuning deals that was both faster and stronger than planning
every hand fully.
"""

from __future__ import annotations

import random
from functools import lru_cache

from engine.ai.decompose import plan_hand, plan_work
from engine.ai.endgame import (
    DRAWS_PER_SAMPLE,
    Budget,
    Move,
    _beats,
    _Budget,
    _limited_follows,
    _move,
    likely_deals,
)
from engine.ai.hand import minus
from engine.ai.knowledge import Knowledge
from engine.ai.play import HARD, rank_plays
from engine.cards import ACE, BIG_JOKER, RANK_COUNT, SMALL_JOKER, TWO
from engine.combos import ComboType, Play

_CODES = {t: i for i, t in enumerate(ComboType)}
_SINGLE, _PAIR = _CODES[ComboType.SINGLE], _CODES[ComboType.PAIR]
_BOMB, _ROCKET = _CODES[ComboType.BOMB], _CODES[ComboType.ROCKET]
_TRIO, _TRIO_SINGLE, _TRIO_PAIR = (_CODES[t] for t in (ComboType.TRIO, ComboType.TRIO_SINGLE,
                                                      ComboType.TRIO_PAIR))
_PLANE, _PLANE_SINGLE, _PLANE_PAIR = (_CODES[t] for t in (ComboType.PLANE, ComboType.PLANE_SINGLE,
                                                         ComboType.PLANE_PAIR))
_WIDTHS = {_SINGLE: 1, _PAIR: 2, _TRIO: 3}
_CHAIN_WIDTHS = {_CODES[ComboType.STRAIGHT]: 1, _CODES[ComboType.PAIR_CHAIN]: 2}
#: Chains planned by :func:`_quick_plan`, widest first: (type code, width, shortest, value).
_CHAINS = ((_PLANE, 3, 2, 4.0), (_CODES[ComboType.PAIR_CHAIN], 2, 3, 2.0),
           (_CODES[ComboType.STRAIGHT], 1, 5, 1.0))
_ROCKET_MOVE: Move = (_ROCKET, BIG_JOKER, 1, (SMALL_JOKER, BIG_JOKER))

#: Budget units one decision may spend (all samples and candidates together), about 2 µs
#: each on this machine: the cap of a cold decision's search, rarely reached.
ROLLOUT_NODES = 9000
#: Deals sampled per decision (each candidate is played out on every one).
SAMPLES = 24
#: Most candidates compared, by the landlord and by a farmer.
CANDIDATES = 3
FARMER_CANDIDATES = 4
#: A candidate is compared only if the heuristic scores it within this of its best (landlord,
#: farmer). Against RLCard's agent, farmers' WP paired with 4 candidates within 12 (before: 3
#: within 8, as the landlord): +0.017 ± 0.008 on the 1,000 deals of seeds 50000-50999 that chose
#: them, +0.009 ± 0.004 on the next 4,000 (seeds 51000-54999); the landlord's, with more
#: candidates or a wider window, no clear change.
SCORE_WINDOW = 8.0
FARMER_WINDOW = 12.0
#: The other seats must hold more than this many cards together (fewer: the endgame search of
#: :func:`engine.ai.play.choose_play` decides).
MIN_OTHERS = HARD.sample_cards
#: Extra play-out wins a candidate needs over the heuristic's choice to replace it.
MARGIN = 2
#: Plan the other seats' sampled hands greedily in the rollouts (:func:`_quick_plan`).
QUICK = True
#: Budget units a rollout charges for a plan already made in this decision (a move costs one).
PLAN_COST = 4
#: Units per split the full planner scores, charged the first time a decision plans a hand.
SPLIT_COST = 4
#: Units for the first greedy plan (:func:`_quick_plan`) of a hand in a decision.
QUICK_COST = 12
#: Units for drawing one deal of the unseen cards (and weighing it by the passes).
DRAW_COST = 10
#: An opponent with at most this many cards makes the rollout break its plan or bomb to stop it.
ALARM = 4
#: Which seats of a rollout beat the other side's play whenever their hand can without a bomb
#: (breaking their plan; players, and RLCard's rule agent, rarely pass then): ``"all"``, the
#: deciding seat's ``"enemies"``, or ``"none"`` (only planned combinations answer).
EAGER = "enemies"


class Work(Budget):
    """A decision's budget (:class:`engine.ai.endgame.Budget`) that also remembers which hands
    it has planned, so that a plan's real cost is charged once per decision (see module doc):
    the same count whatever the caches hold."""

    __slots__ = ("planned",)

    def __init__(self, nodes: int, deadline: float | None = None) -> None:
        super().__init__(nodes, deadline)
        self.planned: set[tuple[bool, tuple[int, ...]]] = set()


def _charge_plan(budget: Budget, hand: tuple[int, ...], full: bool) -> None:
    """Charge planning ``hand`` (``full``: :func:`_plan`, else :func:`_quick_plan`): its real
    cost the first time in the decision (every time with a plain :class:`Budget`), else
    :data:`PLAN_COST`."""
    key = (full, hand)
    if isinstance(budget, Work):
        if key in budget.planned:
            _spend(budget, PLAN_COST)
            return
        budget.planned.add(key)
    _spend(budget, PLAN_COST + (SPLIT_COST * plan_work(hand) if full else QUICK_COST))


@lru_cache(maxsize=1 << 12)
def _plan(hand: tuple[int, ...]) -> tuple[Move, ...]:
    """The hand's plan as search moves, lowest value first."""
    return tuple(_move(p) for p in plan_hand(hand).combos)


@lru_cache(maxsize=1 << 12)
def _quick_plan(hand: tuple[int, ...]) -> tuple[Move, ...]:
    """A greedy plan of ``hand`` (about ten times cheaper than :func:`_plan`), for the sampled
    hands of the other seats: rocket and bombs kept whole, then planes, pair chains and
    straights (a straight only where it takes at least three lone cards), trios with the
    lowest spare single or pair up to an A as kickers, pairs and singles; lowest value first
    (:func:`engine.ai.decompose.combo_value`'s order)."""
    c = list(hand)
    out: list[tuple[float, Move]] = []
    if c[SMALL_JOKER] and c[BIG_JOKER]:
        out.append((20.0, _ROCKET_MOVE))
        c[SMALL_JOKER] = c[BIG_JOKER] = 0
    for r in range(SMALL_JOKER):
        if c[r] == 4:
            out.append((12.0 + r * 0.5, (_BOMB, r, 1, (r,) * 4)))
            c[r] = 0
    bodies: list[tuple[int, int, int]] = []  # (width, top, length) of trios and planes
    for code, width, shortest, bonus in _CHAINS:
        r = 0
        while r <= ACE:
            if c[r] < width or (width == 1 and c[r] > 1):
                r += 1
                continue
            top = r
            while top + 1 <= ACE and c[top + 1] >= width:
                top += 1
            length = top - r + 1
            if width == 1:
                lone = sum(1 for x in range(r, top + 1) if c[x] == 1)
                if length < shortest or lone < 3:
                    r = top + 1
                    continue
            if length >= shortest:
                if width == 3:
                    bodies.append((3, top, length))
                else:
                    cards = tuple(x for x in range(r, top + 1) for _ in range(width))
                    out.append((top - 10 + bonus, (code, top, length, cards)))
                for x in range(r, top + 1):
                    c[x] -= width
            r = top + 1
    for r in range(SMALL_JOKER):
        if c[r] == 3:
            bodies.append((3, r, 1))
            c[r] = 0
    singles = [r for r in range(RANK_COUNT) if c[r] == 1]
    pairs = [r for r in range(SMALL_JOKER) if c[r] == 2]
    for _, top, length in bodies:
        body = tuple(x for x in range(top - length + 1, top + 1) for _ in range(3))
        spare = [x for x in singles if x <= ACE]
        twos = [x for x in pairs if x <= ACE]
        if len(spare) >= length:
            wings = spare[:length]
            for x in wings:
                singles.remove(x)
            code = _TRIO_SINGLE if length == 1 else _PLANE_SINGLE
            cards = tuple(sorted(body + tuple(wings)))
        elif len(twos) >= length:
            wings = twos[:length]
            for x in wings:
                pairs.remove(x)
            code = _TRIO_PAIR if length == 1 else _PLANE_PAIR
            cards = tuple(sorted(body + tuple(x for x in wings for _ in range(2))))
        else:
            code, cards = (_TRIO if length == 1 else _PLANE), body
        out.append((top - (10 if length == 1 else 6), (code, top, length, cards)))
    out.extend((r - 10, (_PAIR, r, 1, (r, r))) for r in pairs)
    out.extend((r - 10, (_SINGLE, r, 1, (r,))) for r in singles)
    out.sort(key=lambda x: (x[0], -len(x[1][3])))
    return tuple(m for _, m in out)


def _lead(plan: list[Move], alarm: bool) -> Move:
    """The rollout's lead: the last combination, else the lowest one (with ``alarm``, an
    opponent holding one card, a combination it cannot answer with one card: anything but a
    single, else the top single)."""
    if len(plan) == 1 or not alarm:
        return plan[0]
    for m in plan:
        if m[0] != _SINGLE:
            return m
    return plan[-1]


def _coop_lead(hand: tuple[int, ...], plan: list[Move], sizes: list[int], turn: int,
               landlord: int) -> Move:
    """The rollout's lead (three seats), with farmer cooperation: a farmer whose partner has
    one card left leads its lowest single (unless that rank is a bomb), one whose partner has
    two its lowest pair if that is below an A (no bomb broken); otherwise :func:`_lead`, alarmed
    when an opponent (either farmer for the landlord, wherever it sits) has one card. A
    farmer's last combination is always played."""
    if turn != landlord and len(plan) > 1:
        partner = 3 - turn - landlord
        if sizes[partner] == 1:
            r = min(x for x in range(RANK_COUNT) if hand[x])
            if hand[r] < 4:
                return (_SINGLE, r, 1, (r,))
        elif sizes[partner] == 2:
            for r in range(SMALL_JOKER):
                if 2 <= hand[r] < 4:
                    if r < ACE:
                        return (_PAIR, r, 1, (r, r))
                    break
    if turn == landlord:
        alarm = any(sizes[s] == 1 for s in range(len(sizes)) if s != landlord)
    else:
        alarm = sizes[landlord] == 1
    return _lead(plan, alarm)


def _follow(hand: tuple[int, ...], plan: list[Move], prev: Move, alarm: bool,
            eager: bool = False) -> Move | None:
    """The rollout's answer to an opponent's ``prev``: the cheapest planned combination that
    beats it (no bomb unless ``alarm``), else, with ``alarm``, the cheapest beating play of the
    hand (bombs last), else, if ``eager``, the cheapest beating play that is no bomb, else pass
    (``None``)."""
    if len(plan) == 1 and _beats(plan[0], prev):
        return plan[0]
    best = None
    for m in plan:
        if (alarm or m[0] < _BOMB) and _beats(m, prev) and (best is None or _cost(m) < _cost(best)):
            best = m
    if best is not None:
        return best
    if alarm:
        return _cheapest_beat(hand, prev)
    if eager:
        beat = _cheapest_beat(hand, prev)
        return beat if beat is not None and beat[0] < _BOMB else None
    return None


def _cost(m: Move) -> tuple[bool, int]:
    """Cheapest first: a play that is no bomb, then the lowest main rank."""
    return (m[0] >= _BOMB, m[1])


def _cheapest_beat(hand: tuple[int, ...], prev: Move) -> Move | None:
    """The cheapest play of ``hand`` beating ``prev``, breaking no bomb for a single, pair or
    trio (with a kicker or not); bombs, then the rocket, last (``None``: none)."""
    kind = prev[0]
    width = _WIDTHS.get(kind)
    if width is not None:
        for r in range(prev[1] + 1, SMALL_JOKER if width > 1 else RANK_COUNT):
            if width <= hand[r] < 4:
                return (kind, r, 1, (r,) * width)
    elif kind in _CHAIN_WIDTHS:
        width, n, run = _CHAIN_WIDTHS[kind], prev[2], 0
        for r in range(ACE + 1):
            run = run + 1 if hand[r] >= width else 0
            if r > prev[1] and run >= n:
                return (kind, r, n, tuple(x for x in range(r - n + 1, r + 1)
                                          for _ in range(width)))
    elif kind in (_TRIO_SINGLE, _TRIO_PAIR):
        width = 1 if kind == _TRIO_SINGLE else 2
        for r in range(prev[1] + 1, SMALL_JOKER):
            if hand[r] == 3:
                for x in range(RANK_COUNT if width == 1 else SMALL_JOKER):
                    if x != r and hand[x] >= width:
                        return (kind, r, 1, tuple(sorted((r,) * 3 + (x,) * width)))
    elif kind < _BOMB:
        follows = _limited_follows(hand, kind, prev[1], prev[2], len(prev[3]))
        plain = [m for m, _ in follows if m[0] < _BOMB]
        if plain:
            return min(plain, key=_cost)
    if kind <= _BOMB:
        for r in range((prev[1] + 1) if kind == _BOMB else 0, SMALL_JOKER):
            if hand[r] == 4:
                return (_BOMB, r, 1, (r,) * 4)
    if hand[SMALL_JOKER] and hand[BIG_JOKER]:
        return _ROCKET_MOVE
    return None


def rollout(hands: list[tuple[int, ...]], landlord: int, turn: int, prev: Move | None,
            owner: int | None, budget: Budget, me: int | None = None) -> bool:
    """Play a deal with every hand given out with the rollout policy; ``True`` if the landlord
    wins. ``hands``: count vectors per seat (changed in place); ``turn``: the seat to act;
    ``prev``/``owner``: the play to beat and its seat (``None``: ``turn`` leads); ``me``: the
    seat whose hand is planned fully (:func:`_plan`) at the start, the others' greedily
    (:func:`_quick_plan`; ``None``: every hand fully), as is a hand whose plan a play broke.
    Spends one budget unit per move and a hand's plan at its cost (:func:`_charge_plan`);
    raises the budget's exception when it runs out."""
    seats = len(hands)
    planners = [_plan if me is None or s == me or not QUICK else _quick_plan
                for s in range(seats)]
    replan = _quick_plan if QUICK else _plan
    plans: list[list[Move]] = []
    for s, h in enumerate(hands):
        if any(h):
            _charge_plan(budget, h, planners[s] is _plan)
            plans.append(list(planners[s](h)))
        else:
            _spend(budget, PLAN_COST)
            plans.append([])
    sizes = [sum(h) for h in hands]
    mine_side = None if me is None else (me == landlord)
    eager = [EAGER == "all" or (EAGER == "enemies" and mine_side is not None
                                and (s == landlord) != mine_side) for s in range(seats)]
    while True:
        budget.spend()
        if owner == turn:
            prev = owner = None
        hand = hands[turn]
        plan = plans[turn]
        nxt = (turn + 1) % seats
        mine = turn == landlord
        m: Move | None
        if prev is None:
            m = _coop_lead(hand, plan, sizes, turn, landlord)
        elif mine == (owner == landlord):
            m = plan[0] if len(plan) == 1 and _beats(plan[0], prev) else None
        else:
            alarm = (min(sizes[s] for s in range(seats) if s != turn) if mine
                     else sizes[landlord]) <= ALARM
            m = _follow(hand, plan, prev, alarm, eager[turn])
        if m is not None:
            hand = minus(hand, m[3])
            hands[turn] = hand
            sizes[turn] -= len(m[3])
            if not sizes[turn]:
                return mine
            if m in plan:
                plan.remove(m)
            else:
                _charge_plan(budget, hand, replan is _plan)
                plans[turn] = list(replan(hand))
            prev, owner = m, turn
        turn = nxt


def _spend(budget: Budget, units: int) -> None:
    """Spend ``units`` from ``budget`` (raises its exception when it runs out)."""
    budget.nodes -= units - 1
    budget.spend()


def _kind(p: Play | None) -> tuple[object, ...]:
    """What makes two candidates differ in kind: pass, or type and length, and whether the play
    spends a control (a 2, a joker, a bomb)."""
    if p is None:
        return ("pass",)
    control = p.type in (ComboType.BOMB, ComboType.ROCKET) or max(p.cards) >= TWO
    return (p.type, p.n, len(p.cards), control)


def candidates(k: Knowledge, choice: Play | None) -> list[Play | None]:
    """The plays worth comparing at this decision, the heuristic's ``choice`` first: up to
    :data:`CANDIDATES` plays (a farmer: :data:`FARMER_CANDIDATES`; pass included when
    following) of different kinds scored within :data:`SCORE_WINDOW` of the best (a farmer:
    :data:`FARMER_WINDOW`). One candidate only (the choice) where the heuristic is sure or the
    endgame search decides."""
    if sum(k.counts) - sum(k.hand) <= MIN_OTHERS:
        return [choice]
    most, window = (CANDIDATES, SCORE_WINDOW) if k.is_landlord else (FARMER_CANDIDATES,
                                                                       FARMER_WINDOW)
    ranked = rank_plays(k, HARD)
    top = ranked[0][0]
    out = [choice]
    kinds = {_kind(choice)}
    for score, p in ranked:
        if len(out) >= most or score < top - window:
            break
        kind = _kind(p)
        if kind in kinds:
            continue
        kinds.add(kind)
        out.append(p)
    return out


def playout_wins(k: Knowledge, cands: list[Play | None], rng: random.Random,
                 budget: Budget, samples: int | None = None) -> tuple[list[int], int]:
    """Play-out wins per candidate over ``samples`` deals (default :data:`SAMPLES`) drawn from
    ``rng``, and the number of deals played out for every candidate (a deal cut by the budget
    is dropped: anytime). Drawing the deals is charged first (:data:`DRAW_COST` each)."""
    wins = [0] * len(cands)
    done = 0
    nxt = k.next_seat()
    me_landlord = k.is_landlord
    prev = _move(k.prev) if k.prev is not None else None
    n = SAMPLES if samples is None else samples
    budget.nodes -= DRAW_COST * n * (DRAWS_PER_SAMPLE if k.passes or k.follows else 1)
    for hands in likely_deals(k, rng, n):
        row = []
        try:
            for p in cands:
                h = list(hands)
                if p is None:
                    won = rollout(h, k.landlord, nxt, prev, k.prev_seat, budget, k.seat)
                else:
                    rest = minus(k.hand, p.cards)
                    if not any(rest):
                        won = me_landlord
                    else:
                        h[k.seat] = rest
                        won = rollout(h, k.landlord, nxt, _move(p), k.seat, budget, k.seat)
                row.append(won == me_landlord)
        except _Budget:
            break
        done += 1
        for i, w in enumerate(row):
            wins[i] += w
    return wins, done


def revise(k: Knowledge, choice: Play | None, rng: random.Random,
           deadline: float | None = None, nodes: int | None = None) -> Play | None:
    """The heuristic's ``choice`` at this decision, or a candidate of another kind that wins
    :data:`MARGIN` more play-outs (see module doc). ``nodes``: the budget units to spend
    (default :data:`ROLLOUT_NODES`); ``deadline``: a ``time.perf_counter()`` safety net
    (``None``: none)."""
    cands = candidates(k, choice)
    if len(cands) < 2:
        return choice
    budget = Work(ROLLOUT_NODES if nodes is None else nodes, deadline)
    wins, done = playout_wins(k, cands, rng, budget)
    if not done:
        return choice
    best = max(range(len(cands)), key=lambda i: (wins[i], -i))
    return cands[best] if wins[best] >= wins[0] + MARGIN else choice
