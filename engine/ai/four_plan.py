"""Plan a hand of the four-player, two-deck game as combinations (RULES.md §11).

A *plan* splits a hand into combinations that can be played one per trick. Bombs are kept whole
for control: every suited rank held 4 or more times is one bomb of all its copies (more cards
beat fewer, RULES.md §11) and ``XXDD`` is the joker bomb. The rest is planned greedily: while
some chain (plane with wings, plane, pair chain, straight, from 3 up to a high A: a plan keeps
As and 2s out of low chains such as ``A2345``) lowers the number of plays the remaining cards
need, the chain that lowers it most is taken (ties: more cards, then lower); what is left
becomes trios with the lowest spare pairs (``trio_pair``), trios, pairs and singles (RULES.md
§11 has no trio with a single).

:func:`plan_cost` values a hand by its plan: each play costs a turn, less for a strong play (a
play that is hard to beat wins the lead back); bombs cost none (they win the lead back).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import BIG_JOKER, RANK_COUNT, SMALL_JOKER
from engine.combos import ComboType, Play, classify
from engine.play import POSITION_RANK, chain_value
from engine.presets import FOUR

T = ComboType
_POS_RANK = POSITION_RANK
#: Lowest chain position a plan uses: 3. A low A or a 2 would be the weakest card of a chain,
#: but they are worth more as high singles, pairs and trios (the moves offer such chains anyway).
PLAN_LOWEST = 3
#: (type, cards per rank, fewest ranks) of the chains a plan may hold.
_CHAINS = ((T.PLANE, 3, 2), (T.PAIR_CHAIN, 2, 3), (T.STRAIGHT, 1, 5))


def counts_of(ranks: Sequence[int]) -> list[int]:
    """Count vector of length 15."""
    counts = [0] * RANK_COUNT
    for r in ranks:
        counts[r] += 1
    return counts


def _ranks(counts: Sequence[int]) -> tuple[int, ...]:
    return tuple(r for r in range(RANK_COUNT) for _ in range(counts[r]))


def _read(cards: Sequence[int]) -> Play:
    (play,) = classify(cards, FOUR)
    return play


def basic_turns(counts: Sequence[int]) -> int:
    """Plays the cards need without chains: each trio takes a pair along (RULES.md §11)."""
    trios = pairs = singles = 0
    for r in range(RANK_COUNT):
        c = counts[r]
        if c == 3:
            trios += 1
        elif c == 2:
            pairs += 1
        elif c == 1:
            singles += 1
    return trios + singles + max(0, pairs - trios)


def _windows(counts: Sequence[int], need: int, shortest: int) -> list[tuple[int, int]]:
    """Chain windows ``(low, high)`` (positions 3…14: no low A, no 2) where every rank holds
    ``need`` cards."""
    out = []
    run = 0
    for high in range(PLAN_LOWEST, 15):
        run = run + 1 if counts[_POS_RANK[high]] >= need else 0
        for n in range(shortest, min(run, 13) + 1):
            low = high - n + 1
            if not (low == 1 and high == 13):
                out.append((low, high))
    return out


def _window_ranks(low: int, high: int) -> list[int]:
    return [_POS_RANK[p] for p in range(low, high + 1)]


def _chain_candidates(counts: list[int]) -> list[list[int]]:
    """Card lists of every chain the counts allow (planes with wings included)."""
    out: list[list[int]] = []
    for kind, need, shortest in _CHAINS:
        for low, high in _windows(counts, need, shortest):
            body = _window_ranks(low, high)
            out.append([r for r in body for _ in range(need)])
            if kind is T.PLANE:
                n = high - low + 1
                for wing_low, wing_high in _windows(counts, 2, n):
                    if wing_high - wing_low + 1 != n:
                        continue
                    wings = _window_ranks(wing_low, wing_high)
                    if set(wings) & set(body):
                        continue
                    out.append([r for r in body for _ in range(3)]
                               + [r for r in wings for _ in range(2)])
    return out


def plan(ranks: Sequence[int]) -> list[Play]:
    """A plan of the hand (see module doc): plays whose cards are exactly the hand."""
    counts = counts_of(ranks)
    plays: list[Play] = []
    if counts[SMALL_JOKER] == 2 and counts[BIG_JOKER] == 2:
        plays.append(_read((SMALL_JOKER,) * 2 + (BIG_JOKER,) * 2))
        counts[SMALL_JOKER] = counts[BIG_JOKER] = 0
    for r in range(SMALL_JOKER):
        if counts[r] >= 4:
            plays.append(_read((r,) * counts[r]))
            counts[r] = 0
    while True:
        now = basic_turns(counts)
        best: tuple[int, int, int] | None = None
        best_cards: list[int] = []
        for cards in _chain_candidates(counts):
            for r in cards:
                counts[r] -= 1
            gain = now - 1 - basic_turns(counts)
            for r in cards:
                counts[r] += 1
            key = (gain, len(cards), -chain_value(max(cards, key=chain_value)))
            if gain > 0 and (best is None or key > best):
                best, best_cards = key, cards
        if best is None:
            break
        plays.append(_read(best_cards))
        for r in best_cards:
            counts[r] -= 1
    return plays + _basic_plays(counts)


def _basic_plays(counts: list[int]) -> list[Play]:
    trios = [r for r in range(SMALL_JOKER) if counts[r] == 3]
    pairs = [r for r in range(RANK_COUNT) if counts[r] == 2]
    singles = [r for r in range(RANK_COUNT) if counts[r] == 1]
    plays = []
    for t in trios:
        if pairs and pairs[0] < 11:  # a spare pair below A goes along; higher pairs are control
            p = pairs.pop(0)
            plays.append(_read((t,) * 3 + (p,) * 2))
        else:
            plays.append(_read((t,) * 3))
    plays += [_read((p, p)) for p in pairs]
    plays += [_read((s,)) for s in singles]
    return plays


def strength(play: Play) -> float:
    """How hard a play is to beat, 0 (a low single) … 1 (a bomb): its main rank in the order
    it compares by (chains in chain order), on a 0…1 scale (RULES.md §11)."""
    if play.type in (T.BOMB, T.JOKER_BOMB):
        return 1.0
    if play.type in (T.STRAIGHT, T.PAIR_CHAIN, T.PLANE, T.PLANE_PAIR):
        return (chain_value(play.main) - 3) / 11
    return play.main / 14


def plan_cost(ranks: Sequence[int]) -> float:
    """Turns the hand needs, a strong play counting less (see module doc); lower is better."""
    return sum(0.0 if p.type in (T.BOMB, T.JOKER_BOMB) else 1.0 - 0.6 * strength(p)
               for p in plan(ranks))


def without(ranks: Sequence[int], cards: Sequence[int]) -> tuple[int, ...]:
    """The hand after playing ``cards`` (ranks)."""
    counts = counts_of(ranks)
    for r in cards:
        counts[r] -= 1
    return _ranks(counts)
