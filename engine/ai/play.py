"""Lead and follow policy of the AI (RULES.md §4, §6).

Every candidate play is valued by the plan of the hand it leaves (:mod:`engine.ai.decompose`),
then adjusted for the table: card counting (is the play safe, i.e. can no opponent beat it),
the alarm (an opponent with one or two cards must not get a play it can finish on), farmer
cooperation (never beat the partner's play without a reason, feed a partner who is about to
play out) and the endgame search (:mod:`engine.ai.endgame`).

:func:`rank_plays` scores every candidate; :func:`choose_play` picks the best (``None`` = pass).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from math import comb

from engine.ai.decompose import hand_score, hand_turns, plan_hand
from engine.ai.endgame import Budget, forced_win, sampled_choice
from engine.ai.hand import (
    KICKER_TYPES,
    T,
    all_moves,
    can_beat,
    can_beat_same_type,
    follow_moves,
    minus,
    moves_of_type,
)
from engine.ai.knowledge import Knowledge
from engine.cards import ACE, SMALL_JOKER, TWO
from engine.combos import Play

#: Types led without kicker choice (kicker types are generated from the plan).
_PLAIN_TYPES = (T.SINGLE, T.PAIR, T.TRIO, T.STRAIGHT, T.PAIR_CHAIN, T.PLANE, T.BOMB, T.ROCKET)
_BOMBS = (T.BOMB, T.ROCKET)
WIN = 1000.0
#: Bonus per planned combination no opponent can beat by type (RULES.md §6), times the chance
#: of that for singles, pairs and trios (:func:`unbeaten_chance`).
CONTROL_BONUS = 5.0
#: Cost for the landlord of letting a farmer keep the trick.
LANDLORD_PASS = 4.0
#: Cost per rank above A of covering a low play with a 2 or a joker early on.
CONTROL_KEEP = 5.0
#: A farmer answering its partner's play right before the landlord plays over it (顶牌) when
#: the landlord holds at most ``BLOCK_AT`` cards and could beat it: passing then costs
#: ``BLOCK_PASS`` (before, only against a landlord with one or two cards). Against RLCard's
#: agent, farmers' WP paired with that: +0.021 ± 0.007 on the 1,000 deals of seeds 30000-30999
#: that chose 6 and 40, -0.001 ± 0.005 on the next 2,000 (seeds 32000-33999): no clear gain.
BLOCK_AT = 6
BLOCK_PASS = 40.0
#: Penalty for a lead or follow that an opponent with one or two cards beats with its whole
#: hand (``EXPOSED_OUT``) or with part of it (``EXPOSED``), times the chance it can (before:
#: in full whenever it might). Against RLCard's agent, WP paired with that: +0.002 ± 0.003 on
#: the 1,000 deals of seeds 40000-40999, +0.002 ± 0.002 on 2,000 fresh ones (seed 1500000).
EXPOSED_OUT = 60.0
EXPOSED = 25.0
#: A single or pair at or above this rank (Q) is worth covering with a 2 or a joker.
CONTESTED = 9


@dataclass(frozen=True, slots=True)
class Style:
    """Switches that make the levels differ (see :mod:`engine.ai.levels`).

    Attributes:
        counting: use card counting (safe plays, alarm blocking).
        inference: judge plays by what the opponents' passes make likely
            (:meth:`engine.ai.knowledge.Knowledge.likely_cards_of`), not only by what is
            possible.
        cooperate: farmer cooperation (feeding, not beating the partner).
        endgame: run the endgame search.
        endgame_cards: run it when the own hand has at most this many cards (or few turns).
        sampling: solve sampled deals exactly (:func:`engine.ai.endgame.sampled_choice`) when
            the other seats hold at most ``sample_cards`` cards together, comparing the
            ``sample_candidates`` best plays (and pass).
    """

    counting: bool = True
    inference: bool = True
    cooperate: bool = True
    endgame: bool = True
    endgame_cards: int = 12
    sampling: bool = True
    sample_cards: int = 14
    sample_candidates: int = 6
    forced_nodes: int = 3000
    sample_nodes: int = 2500
    samples: int = 12


HARD = Style()


def lead_candidates(hand: tuple[int, ...]) -> list[Play]:
    """Plays worth considering when leading: plain combos plus kicker combos from the plan."""
    out: list[Play] = []
    for kind in _PLAIN_TYPES:
        out.extend(moves_of_type(hand, kind))
    out.extend(p for p in plan_hand(hand).combos if p.type in KICKER_TYPES)
    size = sum(hand)
    if size <= 8:
        out.extend(p for p in all_moves(hand) if p.type in KICKER_TYPES)
    else:
        # Trios and planes with the lowest wings (one and two cheapest choices).
        for kind in (T.TRIO_SINGLE, T.TRIO_PAIR, T.PLANE_SINGLE, T.PLANE_PAIR):
            seen: dict[tuple[int, int], int] = {}
            for p in moves_of_type(hand, kind):
                key = (p.main, p.n)
                if seen.get(key, 0) < 3:
                    seen[key] = seen.get(key, 0) + 1
                    out.append(p)
    return list(dict.fromkeys(out))


def _cards(k: Knowledge, seat: int, style: Style) -> tuple[int, ...]:
    """The cards the heuristics assume ``seat`` may hold (see :attr:`Style.inference`)."""
    return k.likely_cards_of(seat) if style.inference else k.cards_of(seat)


def _safe(k: Knowledge, play: Play, style: Style) -> bool:
    """No opponent is expected to beat ``play`` (:func:`_cards`).

    The landlord judges a play that is no bomb by its type alone: a bomb beats every such play
    alike, so the chance of one cannot tell two plays apart (and a farmer whose last four cards
    are a bomb, or last two the rocket, wins whatever is led). Farmers keep counting bombs:
    measured on tuning deals, it helped the landlord only."""
    if k.is_landlord and play.type not in _BOMBS:
        return not any(_beats_by_type(k, e, play, style) for e in k.enemies)
    return not any(can_beat(_cards(k, e, style), play, k.counts[e]) for e in k.enemies)


def _beats_by_type(k: Knowledge, e: int, play: Play, style: Style) -> bool:
    """``e`` may hold a play of ``play``'s own type and length that beats it (no bombs)."""
    return len(play.cards) <= k.counts[e] and can_beat_same_type(_cards(k, e, style), play)


def _danger(k: Knowledge) -> int:
    """Fewest cards held by an opponent."""
    return min(k.counts[e] for e in k.enemies)


#: What :func:`_controls` learnt about a combination: (group width, main rank) or the play → its
#: chance of winning the lead back.
ControlMemo = dict[tuple[int, int] | Play, float]


def _after_score(k: Knowledge, play: Play, style: Style, memo: ControlMemo | None = None) -> float:
    """Value of the hand left after ``play``, plus a bonus per combination in its plan that no
    opponent can beat by type (a control that wins the lead back; ``memo``: as
    :func:`_controls`)."""
    rest = minus(k.hand, play.cards)
    if not any(rest):
        return WIN
    score = hand_score(rest)
    if style.counting:
        score += CONTROL_BONUS * _controls(k, rest, style, memo)
    return score


def _controls(k: Knowledge, hand: tuple[int, ...], style: Style,
              memo: ControlMemo | None = None) -> float:
    """Expected number of combinations in ``hand``'s plan that win the lead back: a single,
    pair or trio counts its :func:`unbeaten_chance`, a chain 1 if no opponent can beat it by
    type, bombs and the rocket nothing (they are valued by the plan itself). ``memo`` keeps
    each combination's chance for the other hands ranked at the same decision (it depends on
    ``k``, ``style``, the copies needed and the rank only)."""
    memo = {} if memo is None else memo
    n = 0.0
    for p in plan_hand(hand).combos:
        if p.type in _BOMBS:
            continue
        width = _GROUP_WIDTH.get(p.type)
        key = (width, p.main) if width is not None else p
        got = memo.get(key)
        if got is None:
            if width is not None:
                got = unbeaten_chance(k, p, style)
            else:
                got = 0.0 if any(len(p.cards) <= k.counts[e]
                                 and can_beat_same_type(_cards(k, e, style), p)
                                 for e in k.enemies) else 1.0
            memo[key] = got
        n += got
    return n


#: Copies of one rank that beat a single, a pair or a trio (with or without its kicker).
_GROUP_WIDTH = {T.SINGLE: 1, T.PAIR: 2, T.TRIO: 3, T.TRIO_SINGLE: 3, T.TRIO_PAIR: 3}


def _at_most(total: int, copies: int, drawn: int, most: int) -> float:
    """P(X <= most) for X ~ hypergeometric: ``drawn`` cards of ``total``, ``copies`` marked."""
    if drawn >= total:
        return 1.0 if copies <= most else 0.0
    den = comb(total, drawn)
    return sum(comb(copies, x) * comb(total - copies, drawn - x)
               for x in range(0, min(most, copies, drawn) + 1)) / den


def unbeaten_chance(k: Knowledge, play: Play, style: Style) -> float:
    """Chance that no opponent holds a higher play of ``play``'s kind (single, pair, trio) by
    rank, if the unseen cards lie at random in the hidden hands (ranks taken as independent).

    The landlord's two opponents share the unseen cards: a rank is safe only if neither gets
    enough copies of it; a farmer's opponent holds the kitty cards it has not played and
    ``counts`` of the unseen cards in all (hypergeometric). A rank that a seat's passes rule out
    (:func:`_cards`) counts as absent from it; a shown hand is read as it is.

    Returns a probability in [0, 1]; 1.0 when no rank above ``play.main`` can beat it."""
    width = _GROUP_WIDTH[play.type]
    total = sum(k.unseen)
    top = SMALL_JOKER if width > 1 else len(k.unseen)
    kitty = k.landlord_kitty
    chance = 1.0
    for r in range(play.main + 1, top):
        for e in k.enemies:
            shown = k.known[e]
            if shown is not None and shown[r] >= width:
                return 0.0
        u = k.unseen[r]
        if u < width:
            continue
        hidden = [e for e in k.enemies
                  if k.known[e] is None and _cards(k, e, style)[r] >= width]
        if len(hidden) == 2:
            n1 = min(k.counts[hidden[0]], total)
            lo, hi = max(0, u - width + 1), width - 1
            if lo > hi:
                return 0.0
            chance *= _at_most(total, u, n1, hi) - (_at_most(total, u, n1, lo - 1) if lo else 0.0)
        elif hidden:
            e = hidden[0]
            # The kitty cards the landlord still holds are its for sure, the rest is drawn.
            fixed, kept = (kitty[r], sum(kitty)) if e == k.landlord else (0, 0)
            if fixed >= width:
                return 0.0
            pool = total - kept
            drawn = max(0, min(k.counts[e] - kept, pool))
            chance *= _at_most(pool, u - fixed, drawn, width - 1 - fixed)
        if chance <= 0.0:
            return 0.0
    return chance


def rank_plays(k: Knowledge, style: Style = HARD) -> list[tuple[float, Play | None]]:
    """Every candidate with its score, best first; ``None`` stands for pass.

    The last few rankings are remembered (a pure function of ``k`` and ``style``): one
    ``hard`` decision ranks the same knowledge for its choice, its Monte Carlo candidates
    (:func:`engine.ai.montecarlo.candidates`) and its hints."""
    return list(_ranked(k, style))


@lru_cache(maxsize=8)
def _ranked(k: Knowledge, style: Style) -> tuple[tuple[float, Play | None], ...]:
    scored: list[tuple[float, Play | None]]
    if k.prev is None:
        memo: ControlMemo = {}
        scored = [(_lead_score(k, p, style, memo), p) for p in lead_candidates(k.hand)]
    else:
        scored = _follow_scores(k, style)
    scored.sort(key=lambda x: (-x[0], _tiebreak(x[1])))
    return tuple(scored)


def _tiebreak(p: Play | None) -> tuple[int, ...]:
    if p is None:
        return (1,)
    return (0, -len(p.cards), p.main)


def _lead_score(k: Knowledge, p: Play, style: Style, memo: ControlMemo | None = None) -> float:
    score = _after_score(k, p, style, memo)
    if score >= WIN:
        return score
    if p.type in _BOMBS:
        score -= 4.0
    if not style.counting:
        return score
    safe = _safe(k, p, style)
    danger = _danger(k)
    if not safe:
        score -= _exposure(k, p, style)
    if danger == 1 and p.type is T.SINGLE:
        score += 3.0 * p.main
    if safe and p.type not in _BOMBS:
        rest_turns = hand_turns(minus(k.hand, p.cards))
        if rest_turns <= 2:
            score += 8.0
    partner = k.partner
    if style.cooperate and partner is not None and k.counts[partner] <= 2:
        pc = k.counts[partner]
        if pc == 1 and p.type is T.SINGLE:
            score += 30.0 - 2.0 * p.main
        elif pc == 2 and p.type is T.PAIR:
            score += 25.0 - 2.0 * p.main
    return score


def _exposure(k: Knowledge, p: Play, style: Style) -> float:
    """Penalty for a play an alarmed opponent (≤ 2 cards) could beat and then play out on:
    ``EXPOSED_OUT`` when beating it would empty that hand, else ``EXPOSED``, times the chance
    that it holds such a play (:func:`_beat_chance`; the landlord judges by type)."""
    penalty = 0.0
    for e in k.enemies:
        n = k.counts[e]
        if n <= 2 and len(p.cards) <= n:
            weight = EXPOSED_OUT if len(p.cards) == n else EXPOSED
            penalty = max(penalty, weight * _beat_chance(k, e, p, style))
    return penalty


def _beat_chance(k: Knowledge, e: int, p: Play, style: Style) -> float:
    """Chance that seat ``e``, holding one or two cards, can beat ``p`` (for the landlord by
    ``p``'s own type only, as :func:`_safe`).

    ``e``'s hand is read from :func:`_hands_of`: its shown hand, else the kitty cards it keeps
    plus a draw from the unseen cards, keeping the draws :func:`_cards` allows.

    Returns a probability in [0, 1]."""
    by_type = k.is_landlord and p.type not in _BOMBS
    n = k.counts[e]
    return sum(w for hand, w in _hands_of(k, e, style)
               if (can_beat_same_type(hand, p) if by_type else can_beat(hand, p, n)))


@lru_cache(maxsize=16)
def _hands_of(k: Knowledge, e: int, style: Style) -> tuple[tuple[tuple[int, ...], float], ...]:
    """The hands seat ``e`` (one or two cards, ``k.counts[e]``) may hold, with their chances.

    A shown hand is certain. Else the hand is the kitty cards the landlord still holds (when
    ``e`` is the landlord) plus the rest drawn at random from the other unseen cards, each draw
    weighted by how many ways the cards fall; draws holding more of a rank than :func:`_cards`
    allows are dropped. If none is left, every draw counts.

    Returns ``(count vector, probability)`` pairs whose probabilities sum to 1."""
    shown = k.known[e]
    if shown is not None:
        return ((shown, 1.0),)
    fixed = [min(a, b) for a, b in zip(k.landlord_kitty, k.unseen, strict=True)] \
        if e == k.landlord else [0] * len(k.unseen)
    pool = [u - f for u, f in zip(k.unseen, fixed, strict=True)]
    drawn = max(0, min(k.counts[e] - sum(fixed), sum(pool)))
    ranks = [r for r, c in enumerate(pool) if c]
    draws: list[tuple[tuple[int, ...], int]] = []
    if drawn == 0:
        draws.append(((), 1))
    elif drawn == 1:
        draws.extend(((r,), pool[r]) for r in ranks)
    else:
        draws.extend(((r, s), comb(pool[r], 2) if r == s else pool[r] * pool[s])
                     for i, r in enumerate(ranks) for s in ranks[i:])
    allowed = _cards(k, e, style)
    hands = []
    for ranks_drawn, ways in draws:
        hand = list(fixed)
        for r in ranks_drawn:
            hand[r] += 1
        if ways:
            hands.append((tuple(hand), ways, all(h <= a for h, a in zip(hand, allowed,
                                                                         strict=True))))
    kept = [(h, w) for h, w, ok in hands if ok] or [(h, w) for h, w, _ in hands]
    total = sum(w for _, w in kept)
    return tuple((h, w / total) for h, w in kept)


def _follow_scores(k: Knowledge, style: Style) -> list[tuple[float, Play | None]]:
    prev = k.prev
    assert prev is not None and k.prev_seat is not None
    now = hand_score(k.hand)
    memo: ControlMemo = {}
    if style.counting:
        now += CONTROL_BONUS * _controls(k, k.hand, style, memo)
    moves = follow_moves(k.hand, prev)
    out: list[tuple[float, Play | None]] = []
    partner_played = style.cooperate and not k.is_enemy(k.prev_seat)
    danger = _danger(k)
    nxt = k.next_seat()
    landlord_next = not k.is_landlord and nxt == k.landlord
    pass_score = now
    if partner_played:
        pass_score += 15.0
        # The landlord acts next, is low on cards and could beat the partner's play: play
        # over it, so that the landlord must beat a higher card or pass (顶牌).
        if (style.counting and landlord_next and k.counts[k.landlord] <= BLOCK_AT
                and not _safe(k, prev, style)):
            pass_score -= BLOCK_PASS
    else:
        # Letting an opponent keep the trick costs more the closer it is to playing out.
        if danger <= 2:
            pass_score -= 60.0
        elif danger <= 4:
            pass_score -= 12.0
        if landlord_next:
            # Last farmer to answer the landlord: nobody else will stop it.
            pass_score -= 3.0
        if k.is_landlord:
            # Two farmers take turns leading while the landlord passes.
            pass_score -= LANDLORD_PASS
    out.append((pass_score, None))
    for m in moves:
        score = _after_score(k, m, style, memo)
        if score >= WIN:
            out.append((score, m))
            continue
        if m.type in _BOMBS:
            score -= 6.0 if danger > 4 else 0.0
            if partner_played:
                score -= 30.0
        if style.counting:
            if _safe(k, m, style):
                score += 4.0
                if hand_turns(minus(k.hand, m.cards)) <= 1:
                    score += 20.0
            else:
                score -= _exposure(k, m, style)
        if partner_played and m.type not in _BOMBS:
            score -= 6.0
        if (m.type in (T.SINGLE, T.PAIR) and m.main >= TWO and danger > 5
                and prev.main < CONTESTED):
            # Keep 2s and jokers to win back the lead later, not to cover a low card.
            score -= CONTROL_KEEP * (m.main - ACE)
        out.append((score, m))
    return out


def choose_play(k: Knowledge, style: Style = HARD, rng: random.Random | None = None,
                deadline: float | None = None) -> Play | None:
    """The play to make (``None`` = pass), RULES.md §4.

    Plays a proven win when the hand is small (:func:`engine.ai.endgame.forced_win`); else
    takes the best of :func:`rank_plays`, except that near the end (the other seats hold at
    most ``style.sample_cards`` cards) the best few are compared by exact search over sampled
    deals (:func:`engine.ai.endgame.sampled_choice`) and the one winning more deals is played.

    The searches spend at most ``style.forced_nodes`` and ``style.sample_nodes`` positions, so
    the decision is a function of ``k``, ``style`` and the state of ``rng`` (default: a
    generator seeded from ``k``); ``deadline`` (a ``time.perf_counter()`` value) optionally
    cuts the searches short on an overloaded machine, at the cost of that determinism.
    """
    size = sum(k.hand)
    small = size <= style.endgame_cards or hand_turns(k.hand) <= 3
    against = k.prev is None or k.is_enemy(k.prev_seat or 0) or size <= 6
    if style.endgame and small and against:
        win = forced_win(k, Budget(style.forced_nodes, deadline))
        if win is not None:
            return win
    ranked = rank_plays(k, style)
    choice = ranked[0][1]
    others = sum(k.counts) - size
    if style.sampling and others <= style.sample_cards and len(ranked) > 1:
        candidates = [p for _, p in ranked[:style.sample_candidates]]
        if k.prev is not None and None not in candidates:
            candidates.append(None)
        if rng is None:
            rng = random.Random(hash((k.hand, k.counts, k.prev.cards if k.prev else ())))
        found = sampled_choice(k, candidates, rng, samples=style.samples,
                               budget=Budget(style.sample_nodes, deadline))
        if found is not None:
            best, wins = found
            if wins[candidates.index(best)] > wins[0]:
                choice = best
    return choice


def hint_plays(k: Knowledge, limit: int = 5, rng: random.Random | None = None,
               deadline: float | None = None) -> list[Play]:
    """The best few plays for hints (no pass), best first (``rng``, ``deadline``: as
    :func:`choose_play`)."""
    return hint_choice(k, limit, rng, deadline)[1]


def hint_choice(k: Knowledge, limit: int = 5, rng: random.Random | None = None,
                deadline: float | None = None) -> tuple[Play | None, list[Play]]:
    """The AI's own choice at ``HARD`` (``None``: it passes) and :func:`hint_plays`' list: that
    choice first when it plays, then the ranked others."""
    first = choose_play(k, HARD, rng, deadline)
    ranked = [p for _, p in rank_plays(k) if p is not None]
    out = [first] if first is not None else []
    out += [p for p in ranked if p != first]
    return first, out[:limit]

