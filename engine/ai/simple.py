"""A simple, always-legal baseline player (RULES.md §2–§4).

It decides from a :class:`engine.view.SeatView` only:

* bidding by a crude hand-strength count (:func:`hand_strength`);
* leading the lowest play that keeps bombs and the rocket whole (longest first at equal rank);
* following with the cheapest beating play that does not break a bomb or the rocket;
* not beating the partner farmer's play unless the play is cheap (main rank J or lower);
* bombing only when an opponent is at the alarm (RULES.md §4.5), or to play out.

With a generator (``rng``) it also makes the mistakes beginners make, the ``easy`` level of
:mod:`engine.ai.levels`: it bombs (or rockets) an opponent's play early when it can
(:data:`EARLY_BOMB`), leads a lone low single out of a pair or a trio (:data:`BREAK_PAIR`), and
answers a single with the lowest card that beats it, pairs or not.
"""

from __future__ import annotations

import random

from engine.action import Action, ActionKind
from engine.cards import ACE, BIG_JOKER, SMALL_JOKER, TWO, rank_counts
from engine.combos import ComboType, Play
from engine.moves import legal_moves
from engine.view import SeatView

_BOMB_TYPES = (ComboType.BOMB, ComboType.ROCKET)
#: The rank of J: a play on the partner's is "cheap" up to this main rank.
CHEAP_MAIN = 8
#: hand_strength thresholds: score bids 1/2/3, rob call/rob, doubling.
BID_THRESHOLDS = (8, 10, 12)
CALL_AT, ROB_AT, DOUBLE_AT = 8, 11, 12
#: Beginner mistakes (with ``rng``): chance to bomb an opponent's play at once when able, and
#: chance to lead the lowest card as a single even when it belongs to a pair or a trio.
EARLY_BOMB = 0.6
BREAK_PAIR = 0.5


def choose_action(view: SeatView, level: str = "normal",
                  rng: random.Random | None = None) -> Action:
    """A legal action for ``view.seat``, which must be in ``view.to_act``.

    ``level`` is accepted for the stable entry point; this baseline plays every level alike.
    With ``rng`` it makes beginner mistakes drawn from it (see the module doc). Never shows
    cards.

    Raises:
        ValueError: the seat has nothing to decide now.
    """
    seat = view.seat
    if seat not in view.to_act:
        raise ValueError(f"seat {seat} is not to act")
    strength = hand_strength(view.hand_ranks)
    if view.phase == "bidding":
        return _bidding_action(view, strength)
    if view.phase == "doubling":
        return Action(ActionKind.DOUBLE if strength >= DOUBLE_AT else ActionKind.NODOUBLE, seat)
    play = _beginner_play(view, rng) if rng is not None else None
    if play is None:
        play = _choose_play(view)
    if play is None:
        return Action(ActionKind.PASS, seat)
    return Action(ActionKind.PLAY, seat, cards=play.cards, type=play.type)


def hints(view: SeatView, limit: int = 5) -> list[Play]:
    """Up to ``limit`` legal plays for the seat to play, best first (for the Hint button).

    A play that empties the hand first, then plays that keep bombs and the rocket whole by
    rising main rank (longer first), then plays that break them, then bombs and the rocket.
    Empty unless it is this seat's turn in the play phase.
    """
    if view.phase != "playing" or view.seat not in view.to_act:
        return []
    return _ordered_plays(view)[:limit]


def hand_strength(ranks: tuple[int, ...]) -> int:
    """Crude strength of a hand: rocket 8 (else big joker 4, small joker 3), each 2 counts 2,
    each A 1, each bomb 6. A typical 17-card hand scores about 6.

    >>> from engine.cards import parse_ranks
    >>> hand_strength(parse_ranks("XD22A3333"))
    19
    """
    counts = rank_counts(ranks)
    jokers = counts[SMALL_JOKER] + counts[BIG_JOKER]
    score = 8 if jokers == 2 else 4 * counts[BIG_JOKER] + 3 * counts[SMALL_JOKER]
    score += 2 * counts[TWO] + counts[ACE]
    return score + 6 * sum(1 for c in counts[:SMALL_JOKER] if c == 4)


def _bidding_action(view: SeatView, strength: int) -> Action:
    """The bid for ``strength``; a seat that may not pass or decline (RULES.md §2.3,
    ``forced_bid``) takes its lowest bid or calls instead."""
    wanted = _wanted_bid(view, strength)
    legal = [a for a in view.legal_actions() if a.kind != ActionKind.SHOW]
    return wanted if wanted in legal else legal[0]


def _wanted_bid(view: SeatView, strength: int) -> Action:
    seat = view.seat
    choices = {a.kind: a for a in view.legal_actions() if a.kind != ActionKind.SHOW}
    if ActionKind.BID in choices or ActionKind.PASS in choices:
        wanted = sum(1 for t in BID_THRESHOLDS if strength >= t)
        if wanted > view.bidding.high_bid:
            bids = [a.value or 0 for a in view.legal_actions() if a.kind == ActionKind.BID]
            if wanted in bids:
                return Action(ActionKind.BID, seat, value=wanted)
        return Action(ActionKind.PASS, seat)
    if ActionKind.CALL in choices:
        return Action(ActionKind.CALL if strength >= CALL_AT else ActionKind.DECLINE, seat)
    return Action(ActionKind.ROB if strength >= ROB_AT else ActionKind.NOROB, seat)


def _choose_play(view: SeatView) -> Play | None:
    ordered = _ordered_plays(view)
    if not ordered:
        return None
    best = ordered[0]
    if len(best.cards) == len(view.hand) or view.leading:
        return best
    if _is_partner(view, view.trick.seat):
        cheap = best.type not in _BOMB_TYPES and best.main <= CHEAP_MAIN and not _breaks(view, best)
        return best if cheap else None
    if best.type not in _BOMB_TYPES and not _breaks(view, best):
        return best
    opponents = [s for s in range(len(view.counts)) if s != view.seat
                 and not _is_partner(view, s)]
    if any(view.alarm[s] for s in opponents):
        return best
    return None


def _beginner_play(view: SeatView, rng: random.Random) -> Play | None:
    """A beginner's impulse, if it has one now: an early bomb on an opponent, or a broken pair
    led as a single; ``None`` to play on as the baseline does."""
    plays = legal_moves(view.hand_ranks, view.trick.play, view.rules)
    if not view.leading and not _is_partner(view, view.trick.seat):
        bombs = [p for p in plays if p.type in _BOMB_TYPES]
        if bombs and rng.random() < EARLY_BOMB:
            return min(bombs, key=lambda p: (p.type is ComboType.ROCKET, p.main))
    if view.leading and rng.random() < BREAK_PAIR:
        low = min(view.hand_ranks)
        if rank_counts(view.hand_ranks)[low] in (2, 3):
            return next(p for p in plays if p.type is ComboType.SINGLE and p.main == low)
    return None


def _ordered_plays(view: SeatView) -> list[Play]:
    plays = legal_moves(view.hand_ranks, view.trick.play, view.rules)
    size = len(view.hand)
    return sorted(plays, key=lambda p: (len(p.cards) != size, p.type in _BOMB_TYPES,
                                        _breaks(view, p), p.main, -len(p.cards)))


def _breaks(view: SeatView, play: Play) -> bool:
    """True if a non-bomb play uses a card of a bomb in hand or one joker of the rocket."""
    if play.type in _BOMB_TYPES:
        return False
    hand = rank_counts(view.hand_ranks)
    used = rank_counts(play.cards)
    if any(used[r] and hand[r] == 4 for r in range(SMALL_JOKER)):
        return True
    return bool(hand[SMALL_JOKER] and hand[BIG_JOKER] and (used[SMALL_JOKER] or used[BIG_JOKER]))


def _is_partner(view: SeatView, seat: int | None) -> bool:
    landlord = view.landlord
    return seat is not None and seat != view.seat and landlord not in (seat, view.seat)
