"""The deals of a duplicate challenge (复式挑战, RULES.md §10) from its seed: pure, shared by the
bot (which deals them) and the referee (``{"op": "challenge"}`` in :mod:`engine.judge`, which
lets anyone check them once the seed is revealed).

A challenge is fixed by its **seed**, a string of lowercase hex digits kept secret while the
challenge runs; its **hash** is the SHA-256 of the seed's text (``printf %s SEED | sha256sum``),
published when the challenge opens (provably fair: nobody can change the cards afterwards).

Deal ``n`` (1-based) shuffles one 54-card deck with ``random.Random`` seeded by the integer of
``SHA-256("<seed>:<n>")`` and deals it as :func:`engine.new_deal` does: 17 cards to each seat in
seat order, the last 3 as the kitty (RULES.md §1). Every member plays from :data:`MEMBER_SEAT`;
the first bidder is that seat in deal 1 and rotates one seat per deal (RULES.md §1.4), so deal
``n`` is first bid by seat ``(n - 1) % 3``.
"""

from __future__ import annotations

import hashlib
import random
import re
import secrets
from dataclasses import dataclass

from engine.cards import cards_to_ranks, format_ranks, shuffled_deck
from engine.deal import DealState, new_deal
from engine.presets import Rules

#: The seat every member plays in every deal of a challenge (the AI plays the other two).
MEMBER_SEAT = 0
#: Seats of a challenge deal (the three-player game of RULES.md §1–§9).
SEATS = 3
HAND_SIZE = 17
#: Deals a challenge may have (inclusive).
MIN_DEALS, MAX_DEALS = 1, 12
#: Hex digits of a seed the bot draws (128 bits).
SEED_HEX_DIGITS = 32

_SEED_RE = re.compile(r"[0-9a-f]{16,128}")


class ChallengeSeedError(ValueError):
    """A seed that is not 16–128 lowercase hex digits, or a number of deals out of range."""


@dataclass(frozen=True, slots=True)
class ChallengeDeal:
    """One deal of a challenge: ``number`` (1-based), the card ids of each seat's ``hands``
    (sorted, 17 each), the ``kitty`` (3) and the ``first_bidder`` seat."""

    number: int
    hands: tuple[tuple[int, ...], ...]
    kitty: tuple[int, ...]
    first_bidder: int

    def to_dict(self) -> dict[str, object]:
        """The deal as the referee prints it: ``{"deal", "first_bidder", "hands": [rank strings],
        "kitty": rank string, "hand_cards": [[card ids]], "kitty_cards": [card ids]}``; the rank
        strings are canonical (``3456789TJQKA2XD``), the form ``{"op": "replay"}`` reads."""
        return {
            "deal": self.number,
            "first_bidder": self.first_bidder,
            "hands": [format_ranks(cards_to_ranks(h)) for h in self.hands],
            "kitty": format_ranks(cards_to_ranks(self.kitty)),
            "hand_cards": [list(h) for h in self.hands],
            "kitty_cards": list(self.kitty),
        }


def new_seed() -> str:
    """A fresh random seed: :data:`SEED_HEX_DIGITS` lowercase hex digits."""
    return secrets.token_hex(SEED_HEX_DIGITS // 2)


def check_seed(seed: object) -> str:
    """``seed`` if it is 16–128 lowercase hex digits.

    Raises:
        ChallengeSeedError: anything else.
    """
    if not isinstance(seed, str) or not _SEED_RE.fullmatch(seed):
        raise ChallengeSeedError("seed: 16 to 128 lowercase hex digits are expected")
    return seed


def seed_hash(seed: str) -> str:
    """The published hash of a seed: SHA-256 of its text, as 64 lowercase hex digits.

    >>> seed_hash("00112233445566778899aabbccddeeff")[:16]
    '5947d7c33d783f94'

    Raises:
        ChallengeSeedError: a malformed seed.
    """
    return hashlib.sha256(check_seed(seed).encode("ascii")).hexdigest()


def challenge_deal(seed: str, number: int) -> ChallengeDeal:
    """Deal ``number`` (1-based) of the challenge with ``seed`` (see the module docstring).

    Raises:
        ChallengeSeedError: a malformed seed or a number outside ``1..MAX_DEALS``.
    """
    check_seed(seed)
    if isinstance(number, bool) or not isinstance(number, int) \
            or not MIN_DEALS <= number <= MAX_DEALS:
        raise ChallengeSeedError(f"deal: a number from {MIN_DEALS} to {MAX_DEALS} is expected")
    digest = hashlib.sha256(f"{seed}:{number}".encode("ascii")).digest()
    dealt = shuffled_deck(random.Random(int.from_bytes(digest, "big")))
    hands = tuple(tuple(sorted(dealt[i * HAND_SIZE:(i + 1) * HAND_SIZE])) for i in range(SEATS))
    kitty = tuple(sorted(dealt[SEATS * HAND_SIZE:]))
    return ChallengeDeal(number, hands, kitty, (MEMBER_SEAT + number - 1) % SEATS)


def challenge_deals(seed: str, count: int) -> tuple[ChallengeDeal, ...]:
    """Deals ``1..count`` of the challenge with ``seed``.

    Raises:
        ChallengeSeedError: a malformed seed or a count outside ``1..MAX_DEALS``.
    """
    if isinstance(count, bool) or not isinstance(count, int) \
            or not MIN_DEALS <= count <= MAX_DEALS:
        raise ChallengeSeedError(f"deals: a number from {MIN_DEALS} to {MAX_DEALS} is expected")
    return tuple(challenge_deal(seed, n) for n in range(1, count + 1))


def deal_state(deal: ChallengeDeal, rules: Rules) -> DealState:
    """The engine's new deal with the challenge deal's cards and first bidder.

    Raises:
        ValueError: ``rules`` are not a three-seat, one-deck game.
    """
    return new_deal(rules, first_bidder=deal.first_bidder, hands=deal.hands, kitty=deal.kitty)


def ai_seed(seed: str, number: int, actions: int) -> str:
    """The seed of an AI seat's decision in deal ``number`` after ``actions`` actions of its
    history: two members who play a deal the same way get the same answers from the AI."""
    return f"{seed}:{number}:{actions}"
