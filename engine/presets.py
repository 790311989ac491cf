"""Rule presets: every rule that varies between tables is data here (RULES.md §1–§11).

A :class:`Rules` value is immutable and JSON-friendly (``to_dict``/``from_dict``), so it travels
with a deal's state and with a group's settings. Seat count, deck count, hand and kitty size are
fields, not constants, so that the four-player two-deck variant (RULES.md §11) is a preset too:
:data:`FOUR`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

BiddingPreset = Literal["score", "rob"]
Variant = Literal["three", "four"]
#: RULES.md §2.3: what happens when all pass again and again.
RedealRule = Literal["redeal", "forced_bid", "penalty"]
REDEAL_RULES: tuple[RedealRule, ...] = ("redeal", "forced_bid", "penalty")


@dataclass(frozen=True, slots=True)
class Rules:
    """The rule options of one deal.

    Attributes:
        variant: ``"three"`` (RULES.md §1–§9) or ``"four"`` (four players, two decks, RULES.md
            §11: its own combinations, bidding end, bomb allowances and score).
        bidding: ``"score"`` (叫分, RULES.md §2.1, the default) or ``"rob"`` (叫/抢地主, §2.2).
        seats: number of seats (3; RULES.md §1.2; 4 in the four-player game).
        decks: number of 54-card decks (1; 2 in the four-player game).
        hand_size: cards dealt to each seat (17; 25).
        kitty_size: cards left face down as the kitty (3; 8).
        third_min_two: §2.1 house option, after two passes the third seat may only bid 2 or 3.
        all_pass_forced_landlord: §2.1/§2.2 house option, when all pass the first bidder becomes
            landlord at base 1 instead of a redeal.
        doubling: §3 doubling round after the kitty is taken (on by default for ``rob``).
        show_cards: §3 show cards (明牌) allowed.
        rocket_kickers: §5 house option, the two jokers may be kickers together.
        four_two_is_bomb: §5 house option (off: 四带二 is not a bomb).
        alarm_at: §4.5 alarm threshold in cards (2; house option 3).
        multiplier_cap: §7 cap on each pair's multiplier (封顶), ``None`` = unlimited.
        autoplay_penalty: §9 auto-play penalty for farmers (on by default).
        escape_factor: §9 the leaver pays ``escape_factor × base × multiplier`` points (3).
        farmer_bomb_limits: §11 the farmers' bomb allowances (four-player game; on, the seed's
            rule).
        bomb_doubling: §11 house option of the four-player game: every bomb played doubles each
            pair's points (off; the three-player game always doubles, RULES.md §7).
        redeal_rule: §2.3 house option when all pass again and again: ``"redeal"`` (without
            end, the default), ``"forced_bid"`` (the first bidder of the third deal in a row
            may not pass) or ``"penalty"`` (the third all-pass deal in a row costs the first
            bidder 4 points, 2 to each other seat); see :mod:`engine.redeal`.
        winner_bids_first: §1.4 option, the seat that played out last deal bids first in the
            next one (instead of the rotation).

    Raises:
        ValueError: a four-player rule set with options §11 does not have (another seat, deck,
            hand or kitty size, rob bidding, doubling, show cards, rocket kickers, four-with-two
            bombs, the third seat's 2+ rule, a redeal rule); the four-player game always
            forces a landlord when all pass (逼打). An unknown ``redeal_rule``.
    """

    variant: Variant = "three"
    bidding: BiddingPreset = "score"
    seats: int = 3
    decks: int = 1
    hand_size: int = 17
    kitty_size: int = 3
    third_min_two: bool = False
    all_pass_forced_landlord: bool = False
    doubling: bool = False
    show_cards: bool = False
    rocket_kickers: bool = False
    four_two_is_bomb: bool = False
    alarm_at: int = 2
    multiplier_cap: int | None = None
    autoplay_penalty: bool = True
    escape_factor: int = 3
    farmer_bomb_limits: bool = True
    bomb_doubling: bool = False
    redeal_rule: RedealRule = "redeal"
    winner_bids_first: bool = False

    def __post_init__(self) -> None:
        if self.variant == "four":
            fixed = {"seats": 4, "decks": 2, "hand_size": 25, "kitty_size": 8, "bidding": "score",
                     "doubling": False, "show_cards": False, "rocket_kickers": False,
                     "four_two_is_bomb": False, "third_min_two": False,
                     "all_pass_forced_landlord": True, "redeal_rule": "redeal"}
            wrong = sorted(k for k, v in fixed.items() if getattr(self, k) != v)
            if wrong:
                raise ValueError(f"the four-player game (RULES.md §11) has no option {wrong}")
        elif self.variant != "three":
            raise ValueError(f"unknown variant {self.variant!r}")
        if self.redeal_rule not in REDEAL_RULES:
            raise ValueError(f"unknown redeal rule {self.redeal_rule!r} (RULES.md §2.3)")

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Inverse of :meth:`to_dict`; unknown keys raise ``ValueError``."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown rule options: {sorted(unknown)}")
        return cls(**data)

    def with_options(self, **changes: Any) -> Rules:
        """A copy with some options changed."""
        return replace(self, **changes)


#: RULES.md §2.1: tournament 叫分 bidding, no doubling.
SCORE = Rules()
#: RULES.md §2.2: the big online rooms' 叫地主/抢地主 with doubling.
ROB = Rules(bidding="rob", doubling=True)

#: RULES.md §11: four players, two decks, 叫分 bidding with 逼打, the farmers' bomb allowances,
#: the alarm at 10 cards.
FOUR = Rules(variant="four", seats=4, decks=2, hand_size=25, kitty_size=8,
             all_pass_forced_landlord=True, alarm_at=10)

PRESETS: dict[str, Rules] = {"score": SCORE, "rob": ROB, "four": FOUR}


def preset(name: str, **options: Any) -> Rules:
    """The named preset (``"score"``, ``"rob"`` or ``"four"``) with house options applied.

    Raises:
        ValueError: unknown preset name or option.
    """
    try:
        base = PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}") from None
    return Rules.from_dict({**base.to_dict(), **options})
