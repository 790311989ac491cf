"""What a seat knows during play, derived from its :class:`engine.view.SeatView` only.

The AI never sees a :class:`engine.deal.DealState`; everything here is computed from the seat's
own hand, the public history (plays per seat), the kitty once revealed (RULES.md §1.3), shown
hands (RULES.md §3) and the card counts (RULES.md §4.5).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.action import ActionKind, IllegalAction
from engine.ai.hand import counts_of
from engine.cards import BIG_JOKER, RANK_COUNT, SMALL_JOKER, cards_to_ranks
from engine.combos import ComboType, Play
from engine.trick import read_play
from engine.view import SeatView

#: Copies of each rank in one deck.
FULL_DECK = tuple(4 if r < SMALL_JOKER else 1 for r in range(RANK_COUNT))


@dataclass(frozen=True, slots=True)
class Knowledge:
    """A seat's knowledge in the play phase (RULES.md §4).

    Attributes:
        seat: the deciding seat.
        landlord: the landlord seat.
        hand: own hand as a count vector (length 15).
        counts: cards left per seat.
        prev: the play to beat, or ``None`` when leading.
        prev_seat: the seat that made ``prev`` (``None`` when leading).
        unseen: count vector of the cards whose holder this seat does not know (in other hidden
            hands); shown hands are excluded.
        known: per seat, the exact hand as a count vector when it is shown, else ``None``.
        landlord_kitty: kitty ranks the landlord has not played yet (a count vector; all zero
            when this seat is the landlord or the kitty is unknown).
        played_by: per seat, count vector of the ranks it has played.
        passes: the passes in play that say something about a hand: ``(seat, play, later)``
            for each time ``seat`` passed on ``play`` made by the other side, with ``later``
            the count vector of what ``seat`` played after that pass (so that its hand then
            was its hand now plus ``later``).
        follows: the follows in play that say something about a hand: ``(seat, play, top,
            later)`` for each time ``seat`` beat ``play`` made by the other side with one of
            the same type of main rank ``top``, ``later`` the count vector of what ``seat``
            played from then on (that follow included).
        likely: per seat, what it may hold once its passes and follows are believed
            (:func:`likely_cards`; the landlord keeps the kitty cards it has not played),
            ``None`` where none says anything (then :meth:`cards_of` applies).
    """

    seat: int
    landlord: int
    hand: tuple[int, ...]
    counts: tuple[int, ...]
    prev: Play | None
    prev_seat: int | None
    unseen: tuple[int, ...]
    known: tuple[tuple[int, ...] | None, ...]
    landlord_kitty: tuple[int, ...]
    played_by: tuple[tuple[int, ...], ...]
    passes: tuple[tuple[int, Play, tuple[int, ...]], ...] = ()
    likely: tuple[tuple[int, ...] | None, ...] = ()
    follows: tuple[tuple[int, Play, int, tuple[int, ...]], ...] = ()

    @property
    def seats(self) -> int:
        return len(self.counts)

    @property
    def is_landlord(self) -> bool:
        return self.seat == self.landlord

    def next_seat(self, seat: int | None = None) -> int:
        """The seat that acts after ``seat`` (default: after this seat)."""
        return ((self.seat if seat is None else seat) + 1) % self.seats

    @property
    def partner(self) -> int | None:
        """The other farmer, or ``None`` for the landlord."""
        if self.is_landlord:
            return None
        return next(s for s in range(self.seats) if s not in (self.seat, self.landlord))

    @property
    def enemies(self) -> tuple[int, ...]:
        """Seats on the other side."""
        if self.is_landlord:
            return tuple(s for s in range(self.seats) if s != self.seat)
        return (self.landlord,)

    def is_enemy(self, seat: int) -> bool:
        return seat != self.seat and (self.is_landlord or seat == self.landlord)

    def cards_of(self, seat: int) -> tuple[int, ...]:
        """What ``seat`` may hold: its shown hand, else all unseen cards (count vector)."""
        known = self.known[seat]
        return known if known is not None else self.unseen

    def likely_cards_of(self, seat: int) -> tuple[int, ...]:
        """What ``seat`` may hold if its passes mean what they usually mean (a seat passes on
        the other side's single, pair or trio when it has none higher): a subset of
        :meth:`cards_of`, for judging plays, never for proofs."""
        likely = self.likely[seat] if self.likely else None
        return likely if likely is not None and self.known[seat] is None else self.cards_of(seat)


def knowledge_from_view(view: SeatView) -> Knowledge:
    """Build :class:`Knowledge` from a :class:`engine.view.SeatView` in the play phase.

    Raises:
        ValueError: the view is not in the play phase or has no landlord.
    """
    if view.landlord is None:
        raise ValueError("no landlord yet")
    seats = len(view.counts)
    hand = tuple(counts_of(view.hand_ranks))
    played_by = [[0] * RANK_COUNT for _ in range(seats)]
    for action in view.history:
        if action.kind == ActionKind.PLAY and action.cards:
            row = played_by[action.seat]
            for r in action.cards:
                row[r] += 1
    known: list[tuple[int, ...] | None] = [None] * seats
    unseen = [FULL_DECK[r] - hand[r] for r in range(RANK_COUNT)]
    for seat in range(seats):
        for r in range(RANK_COUNT):
            unseen[r] -= played_by[seat][r]
    for seat, shown in enumerate(view.shown_hands):
        if shown is not None and seat != view.seat:
            shown_counts = tuple(counts_of(cards_to_ranks(shown)))
            known[seat] = shown_counts
            for r in range(RANK_COUNT):
                unseen[r] -= shown_counts[r]
    unseen = [max(0, u) for u in unseen]  # never negative, even on a malformed view
    kitty_left = [0] * RANK_COUNT
    if view.kitty is not None and view.seat != view.landlord:
        kc = counts_of(cards_to_ranks(view.kitty))
        for r in range(RANK_COUNT):
            kitty_left[r] = max(0, kc[r] - played_by[view.landlord][r])
    trick = view.trick
    passes, follows = _passes(view)
    likely = list(likely_cards(tuple(unseen), passes, seats, follows))
    landlord_likely = likely[view.landlord]
    if landlord_likely is not None and any(kitty_left):  # kitty cards it holds, whatever it played
        likely[view.landlord] = tuple(max(a, b)
                                      for a, b in zip(landlord_likely, kitty_left, strict=True))
    return Knowledge(
        passes=passes,
        follows=follows,
        likely=tuple(likely),
        seat=view.seat,
        landlord=view.landlord,
        hand=hand,
        counts=tuple(view.counts),
        prev=trick.play,
        prev_seat=trick.seat if trick.play is not None else None,
        unseen=tuple(unseen),
        known=tuple(known),
        landlord_kitty=tuple(kitty_left),
        played_by=tuple(tuple(p) for p in played_by),
    )


def _passes(view: SeatView) -> tuple[tuple[tuple[int, Play, tuple[int, ...]], ...],
                           tuple[tuple[int, Play, int, tuple[int, ...]], ...]]:
    """The passes of :attr:`Knowledge.passes` and the follows of :attr:`Knowledge.follows`,
    read from the history in order."""
    seats = len(view.counts)
    landlord = view.landlord
    events: list[tuple[int, Play, list[int]]] = []
    follows: list[tuple[int, Play, int, list[int]]] = []
    current: Play | None = None
    owner = -1
    passes = 0
    for action in view.history:
        if action.kind == ActionKind.PLAY and action.cards:
            for seat, _, later in events:
                if seat == action.seat:
                    for r in action.cards:
                        later[r] += 1
            for seat, _, _, later in follows:
                if seat == action.seat:
                    for r in action.cards:
                        later[r] += 1
            try:
                play = read_play(action.cards, action.type, None, view.rules)
            except IllegalAction:
                play = None
            if (current is not None and play is not None
                    and (action.seat == landlord) != (owner == landlord)):
                if play.type in _BOMB_TYPES and current.type not in _BOMB_TYPES:
                    events.append((action.seat, current, counts_of(action.cards)))
                elif play.type is current.type:
                    follows.append((action.seat, current, play.main,
                                    counts_of(action.cards)))
            current = play
            owner, passes = action.seat, 0
        elif action.kind == ActionKind.PASS and current is not None:
            if (action.seat == landlord) != (owner == landlord):
                events.append((action.seat, current, [0] * RANK_COUNT))
            passes += 1
            if passes >= seats - 1:
                current = None
    return (tuple((seat, play, tuple(later)) for seat, play, later in events),
            tuple((seat, play, top, tuple(later)) for seat, play, top, later in follows))


_BOMB_TYPES = (ComboType.BOMB, ComboType.ROCKET)
#: Widths of the plays a pass or a follow is read from (single, pair, trio, with kicker too).
_WIDTH = {ComboType.SINGLE: 1, ComboType.PAIR: 2, ComboType.TRIO: 3, ComboType.TRIO_SINGLE: 3,
          ComboType.TRIO_PAIR: 3}


def likely_cards(unseen: tuple[int, ...], passes: tuple[tuple[int, Play, tuple[int, ...]], ...],
                 seats: int, follows: tuple[tuple[int, Play, int, tuple[int, ...]], ...] = (),
                 ) -> tuple[tuple[int, ...] | None, ...]:
    """Per seat, the unseen cards it may hold if each pass on the other side's single, pair or
    trio (with a kicker or not) of rank ``m`` means it then held fewer than that many of every
    rank above ``m``, and each follow of such a play with the same type of rank ``t`` means it
    held fewer of every rank between (players beat with the lowest play that does; RLCard's
    rule agent always does, and it breaks any combination to).

    Bombs and the rocket are not read into passes (a seat keeps them whole): a rank whose four
    cards are all unseen, and the jokers while both are unseen, stay possible. A bomb or the
    rocket played on such a play counts as a pass on it.
    """
    out: list[list[int] | None] = [None] * seats
    rocket = unseen[SMALL_JOKER] and unseen[BIG_JOKER]
    limits = [(seat, play, RANK_COUNT, later) for seat, play, later in passes]
    limits += follows
    for seat, play, top, later in limits:
        width = _WIDTH.get(play.type)
        if width is None:
            continue
        row = out[seat]
        if row is None:
            row = out[seat] = list(unseen)
        for r in range(play.main + 1, top):
            if width > 1 and r >= SMALL_JOKER:
                break
            if unseen[r] == 4 or (r >= SMALL_JOKER and rocket):
                continue
            row[r] = min(row[r], max(0, width - 1 - later[r]))
    return tuple(tuple(row) if row is not None else None for row in out)
