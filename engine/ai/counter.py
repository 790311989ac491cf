"""The card counter (记牌器): how many of each rank are still out, from public information only.

For the viewing seat, a rank is *out* when its card is neither played yet nor in the seat's own
hand: it is in another seat's hand, or in the kitty while the kitty is still face down. The count
needs only what the seat may see (RULES.md §1.3): the deck composition of the rules, the seat's own
hand and the public history of plays. Cards that are public but unplayed (the revealed kitty in
the landlord's hand, shown hands, RULES.md §3) are still out and counted; ``known`` says how many
of them there are per rank, for a display that wants to mark them.

The deck comes from the rules (``rules.decks`` standard 54-card decks, as the engine deals them),
so the four-player two-deck game (RULES.md §11) counts 8 of each rank and 2 of each joker.

Privacy: with the public plays, a seat's counter gives away its own hand (deck − played − out), so
it belongs in that seat's private chat only, never in a group message (GUIDE: a hand is private).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.action import ActionKind
from engine.cards import BIG_JOKER, DECK, RANK_COUNT, RANK_LABELS, SMALL_JOKER, cards_to_ranks
from engine.presets import Rules
from engine.view import SeatView

#: Display order: big joker, small joker, 2, A, K, … 3 (strongest first, as the apps show it).
DISPLAY_ORDER = tuple(range(RANK_COUNT - 1, -1, -1))
#: Chinese card names used by :func:`format_counter` (GLOSSARY.md: 大王, 小王, 10 for ten).
CHINESE_LABELS = {BIG_JOKER: "大王", SMALL_JOKER: "小王"}


@dataclass(frozen=True, slots=True)
class CardCounter:
    """What a card counter shows one seat.

    Attributes:
        out: per rank ``0..14`` (``3 … 2, small joker, big joker``), how many cards are neither
            played nor in the seat's own hand.
        deck: per rank, how many cards the deal's deck holds (4 per rank and 1 per joker for
            each deck).
        known: per rank, how many of ``out`` the seat can place anyway (a subset of ``out``):
            cards of a shown hand, and revealed kitty cards the landlord surely still holds (a
            kitty rank counts until the landlord has played that many of it).
    """

    out: tuple[int, ...]
    deck: tuple[int, ...]
    known: tuple[int, ...]

    @property
    def total(self) -> int:
        """Cards out in all."""
        return sum(self.out)

    def rows(self) -> list[tuple[int, int]]:
        """``(rank, count out)`` for every rank, big joker first and 3 last."""
        return [(r, self.out[r]) for r in DISPLAY_ORDER]


def deck_counts(rules: Rules) -> tuple[int, ...]:
    """Copies of each rank in the deck the engine deals for ``rules`` (``rules.decks`` decks)."""
    one = [0] * RANK_COUNT
    for r in cards_to_ranks(DECK):
        one[r] += 1
    return tuple(n * rules.decks for n in one)


def card_counter(view: SeatView) -> CardCounter:
    """The card counter of ``view.seat`` (see the module doc), from the view alone.

    Works in every phase: before the kitty is revealed the kitty's cards are simply out.
    """
    deck = deck_counts(view.rules)
    out = list(deck)
    for r in view.hand_ranks:
        out[r] -= 1
    landlord_played = [0] * RANK_COUNT
    for action in view.history:
        if action.kind == ActionKind.PLAY and action.cards:
            for r in action.cards:
                out[r] -= 1
                if action.seat == view.landlord:
                    landlord_played[r] += 1
    known = [0] * RANK_COUNT
    for seat, shown in enumerate(view.shown_hands):
        if shown is not None and seat != view.seat:
            for r in cards_to_ranks(shown):
                known[r] += 1
    landlord = view.landlord
    if (view.kitty is not None and landlord is not None and landlord != view.seat
            and view.shown_hands[landlord] is None):
        kitty = [0] * RANK_COUNT
        for r in cards_to_ranks(view.kitty):
            kitty[r] += 1
        for r in range(RANK_COUNT):
            known[r] += max(0, kitty[r] - landlord_played[r])
    return CardCounter(out=tuple(max(0, n) for n in out), deck=deck,
                       known=tuple(min(k, max(0, n)) for k, n in zip(known, out, strict=True)))


def format_counter(counter: CardCounter, labels: dict[int, str] | None = None) -> str:
    """One line such as ``大王1 小王0 2×3 A×2 K×4 … 3×1``: jokers by name then their count,
    other ranks as ``rank×count``, strongest first. ``labels`` replaces the joker names (e.g.
    ``{14: "Big joker ", 13: "Small joker "}`` for English); other ranks use ``RANK_LABELS``."""
    names = CHINESE_LABELS if labels is None else labels
    parts = []
    for r, n in counter.rows():
        if r in (BIG_JOKER, SMALL_JOKER):
            parts.append(f"{names[r]}{n}")
        else:
            parts.append(f"{RANK_LABELS[r]}×{n}")
    return " ".join(parts)
