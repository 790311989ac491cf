"""What a seat knows during play, derived from its :class:`engine.view.SeatView` only.

The AI never sees a :class:`engine.deal.DealState`; everything here is computed from the seat's
own hand, the public history (plays per seat), the kitty once revealed (RULES.md §1.3), shown
hands (RULES.md §3) and the card counts (RULES.md §4.5).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.ai.hand import counts_of
from engine.cards import RANK_COUNT, SMALL_JOKER, cards_to_ranks
from engine.combos import Play

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


def knowledge_from_view(view) -> Knowledge:
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
        if action.kind == "play" and action.cards:
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
    return Knowledge(
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
