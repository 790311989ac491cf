"""Inputs of the pictures: small frozen values the bot fills in, checked on creation.

Every text that ends up inside a picture must be printable ASCII, because the font Pillow ships
(``ImageFont.load_default``) has no CJK or emoji glyphs; a player's real name goes into the
message caption, and the picture shows :func:`safe_label` (initials or a seat number) instead.

Cards are card ids ``0..53`` (``engine.cards``); when only ranks are known (a play recorded as
ranks, RULES.md §5), :func:`cards_for_ranks` turns them into displayable card ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from engine.cards import BIG_JOKER, RANK_COUNT, SMALL_JOKER

Role = Literal["landlord", "farmer"]
Winner = Literal["landlord", "farmers"]

#: Longest text label a seat may carry (it is drawn inside a round badge).
MAX_SEAT_LABEL = 3
#: Longest ASCII name a leaderboard row may carry.
MAX_NAME = 16
#: Longest action text shown instead of a play, e.g. ``"bid 3"`` or ``"no double"``.
MAX_ACTION = 12


class RenderError(ValueError):
    """Input a picture cannot show: an unknown card, an empty hand, a non-ASCII label…"""


def check_cards(cards: Iterable[int], what: str = "cards") -> tuple[int, ...]:
    """Return ``cards`` as a tuple of card ids, or raise :class:`RenderError`.

    Card ids may repeat (the two-deck variant, RULES.md §11).
    """
    if isinstance(cards, str | bytes):
        raise RenderError(f"{what} must be card ids 0..53, not a string")
    out = tuple(cards)
    for c in out:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= 53:
            raise RenderError(f"unknown card {c!r} in {what} (card ids are 0..53)")
    return out


def check_ascii(text: str, what: str, max_len: int) -> str:
    """Return ``text`` if it is 1..``max_len`` printable ASCII characters, else raise."""
    if not isinstance(text, str) or not text:
        raise RenderError(f"{what} must be a non-empty string")
    if not text.isascii() or not text.isprintable():
        raise RenderError(f"{what} {text!r} must be printable ASCII (names go in the caption)")
    if len(text) > max_len:
        raise RenderError(f"{what} {text!r} is longer than {max_len} characters")
    return text


def safe_label(name: str, fallback: str = "P1") -> str:
    """Initials a picture can show for a player's name, e.g. ``"Ada Lovelace"`` → ``"AL"``.

    Takes the first ASCII letter or digit of up to two words. A name with none (Chinese, emoji)
    gives ``fallback``; the bot passes the seat number, e.g. ``f"P{seat + 1}"``.

    >>> safe_label("ada lovelace"), safe_label("张三", "P2"), safe_label("🔥 max")
    ('AL', 'P2', 'M')
    """
    initials = ""
    for word in name.split():
        first = next((ch for ch in word if ch.isascii() and ch.isalnum()), "")
        initials += first.upper()
        if len(initials) == 2:
            break
    return initials or fallback


def safe_name(name: str, fallback: str = "P1") -> str:
    """The name itself when it is printable ASCII (cut to 16 characters), else :func:`safe_label`.

    >>> safe_name("Ada Lovelace"), safe_name("张三 Li", "#4")
    ('Ada Lovelace', 'L')
    """
    text = " ".join(name.split())
    if text and text.isascii() and text.isprintable():
        return text if len(text) <= MAX_NAME else text[: MAX_NAME - 1] + "."
    return safe_label(name, fallback)


def cards_for_ranks(ranks: Iterable[int]) -> tuple[int, ...]:
    """Card ids that show the given ranks (RULES.md §1), for plays known only by rank.

    Copies of a rank get spades, hearts, clubs, diamonds in that order (a fifth copy, two decks,
    starts again), so the picture shows a real-looking set of cards.

    Raises:
        RenderError: a rank outside ``0..14``.

    >>> cards_for_ranks((0, 0, 14))
    (0, 1, 53)
    """
    seen = [0] * RANK_COUNT
    out = []
    for r in ranks:
        if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < RANK_COUNT:
            raise RenderError(f"unknown rank {r!r} (ranks are 0..14)")
        if r == SMALL_JOKER:
            out.append(52)
        elif r == BIG_JOKER:
            out.append(53)
        else:
            out.append(r * 4 + seen[r] % 4)
        seen[r] += 1
    return tuple(out)


def _check_count(value: int, what: str, low: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise RenderError(f"{what} must be an int >= {low}, not {value!r}")


@dataclass(frozen=True, slots=True)
class SeatScene:
    """One seat at the table (RULES.md §1, §3, §4).

    Attributes:
        label: 1–3 printable ASCII characters drawn in the seat's badge: initials or ``"P2"``
            (see :func:`safe_label`).
        role: ``"landlord"``, ``"farmer"`` or ``None`` before the landlord is known.
        card_count: cards left in the seat's hand.
        alarm: draw the card count in red (RULES.md §4.5: 2 or fewer, house option 3).
        last_play: the seat's last action in the current trick: card ids of the play, ``"pass"``,
            a short ASCII action such as ``"bid 2"`` / ``"rob"`` / ``"double"``, or ``None``.
        shown_cards: the hand face up (明牌, RULES.md §3), or ``None`` when not shown.
        is_turn: this seat is to act now (the countdown is drawn next to it).
        autoplay: the seat is on auto-play (托管, RULES.md §9).
        doubled: the seat chose to double (加倍, RULES.md §3).
    """

    label: str
    role: Role | None = None
    card_count: int = 0
    alarm: bool = False
    last_play: tuple[int, ...] | str | None = None
    shown_cards: tuple[int, ...] | None = None
    is_turn: bool = False
    autoplay: bool = False
    doubled: bool = False

    def __post_init__(self) -> None:
        check_ascii(self.label, "seat label", MAX_SEAT_LABEL)
        if self.role not in ("landlord", "farmer", None):
            raise RenderError(f"role must be 'landlord', 'farmer' or None, not {self.role!r}")
        _check_count(self.card_count, "card_count")
        if isinstance(self.last_play, str):
            check_ascii(self.last_play, "last_play action", MAX_ACTION)
        elif self.last_play is not None:
            object.__setattr__(self, "last_play", check_cards(self.last_play, "last_play"))
        if self.shown_cards is not None:
            object.__setattr__(self, "shown_cards", check_cards(self.shown_cards, "shown_cards"))


@dataclass(frozen=True, slots=True)
class TableScene:
    """The group's table picture (RULES.md §1–§4, §7).

    Attributes:
        seats: 3 seats (4 for the two-deck variant, RULES.md §11) in turn order; seat 0 is drawn
            at the bottom and turn order runs counter-clockwise (right, then top/left).
        kitty: the kitty's card ids once revealed (RULES.md §1.3), else ``None``.
        kitty_size: how many face-down cards to draw while the kitty is hidden (0 for none).
        base: base score (底分, RULES.md §7), ``>= 1``; 0 while bidding has not set it.
        multiplier: the current multiplier (倍数, RULES.md §7), ``>= 1``.
        seconds_left: countdown for the seat whose turn it is, in seconds, or ``None``.
    """

    seats: tuple[SeatScene, ...]
    kitty: tuple[int, ...] | None = None
    kitty_size: int = 3
    base: int = 0
    multiplier: int = 1
    seconds_left: int | None = None

    def __post_init__(self) -> None:
        seats = tuple(self.seats)
        if len(seats) not in (3, 4) or not all(isinstance(s, SeatScene) for s in seats):
            raise RenderError("a table has 3 or 4 SeatScene seats")
        object.__setattr__(self, "seats", seats)
        if self.kitty is not None:
            object.__setattr__(self, "kitty", check_cards(self.kitty, "kitty"))
        _check_count(self.kitty_size, "kitty_size")
        _check_count(self.base, "base")
        _check_count(self.multiplier, "multiplier", 1)
        if self.seconds_left is not None:
            _check_count(self.seconds_left, "seconds_left")


@dataclass(frozen=True, slots=True)
class ResultSeat:
    """One seat's line in the result picture (RULES.md §7, §8).

    Attributes:
        label: initials or seat number, 1–3 printable ASCII characters (:func:`safe_label`).
        role: ``"landlord"`` or ``"farmer"``.
        points: points won (+) or lost (−) in this deal.
        beans: beans won (+) or lost (−), after settlement (RULES.md §8).
        cards_left: card ids left in the seat's hand at the end (empty for the winner).
        autoplay: the seat ended on auto-play (RULES.md §9).
        escaped: the seat left the deal (逃跑, RULES.md §9).
    """

    label: str
    role: Role
    points: int
    beans: int
    cards_left: tuple[int, ...] = ()
    autoplay: bool = False
    escaped: bool = False

    def __post_init__(self) -> None:
        check_ascii(self.label, "seat label", MAX_SEAT_LABEL)
        if self.role not in ("landlord", "farmer"):
            raise RenderError(f"role must be 'landlord' or 'farmer', not {self.role!r}")
        for value, what in ((self.points, "points"), (self.beans, "beans")):
            if isinstance(value, bool) or not isinstance(value, int):
                raise RenderError(f"{what} must be an int, not {value!r}")
        object.__setattr__(self, "cards_left", check_cards(self.cards_left, "cards_left"))


@dataclass(frozen=True, slots=True)
class ResultScene:
    """The end-of-deal picture (RULES.md §4.4, §7).

    Attributes:
        winner: ``"landlord"`` or ``"farmers"``.
        seats: 3 or 4 :class:`ResultSeat` in seat order.
        base: base score (底分).
        bombs: bombs and rockets played (each ×2, RULES.md §7).
        spring: the landlord won a spring (春天, ×2).
        anti_spring: the farmers won an anti-spring (反春, ×2).
        multiplier: the final multiplier (the largest pair multiplier when farmers doubled
            differently, RULES.md §3).
    """

    winner: Winner
    seats: tuple[ResultSeat, ...]
    base: int
    multiplier: int
    bombs: int = 0
    spring: bool = False
    anti_spring: bool = False

    def __post_init__(self) -> None:
        if self.winner not in ("landlord", "farmers"):
            raise RenderError(f"winner must be 'landlord' or 'farmers', not {self.winner!r}")
        seats = tuple(self.seats)
        if len(seats) not in (3, 4) or not all(isinstance(s, ResultSeat) for s in seats):
            raise RenderError("a result has 3 or 4 ResultSeat seats")
        object.__setattr__(self, "seats", seats)
        _check_count(self.base, "base", 1)
        _check_count(self.multiplier, "multiplier", 1)
        _check_count(self.bombs, "bombs")


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One line of the leaderboard (beans won over a period, RULES.md §8).

    Attributes:
        rank: 1-based place.
        name: up to 16 printable ASCII characters (:func:`safe_name`).
        beans: beans won (+) or lost (−) over the period.
        games: deals played.
        wins: deals won (``0 <= wins <= games``); the win rate is drawn from these. ``None``:
            not known (the rate column shows ``-``).
    """

    rank: int
    name: str
    beans: int
    games: int
    wins: int | None = None

    def __post_init__(self) -> None:
        _check_count(self.rank, "rank", 1)
        check_ascii(self.name, "name", MAX_NAME)
        if isinstance(self.beans, bool) or not isinstance(self.beans, int):
            raise RenderError(f"beans must be an int, not {self.beans!r}")
        _check_count(self.games, "games")
        if self.wins is None:
            return
        _check_count(self.wins, "wins")
        if self.wins > self.games:
            raise RenderError(f"wins ({self.wins}) cannot exceed games ({self.games})")

    @property
    def win_rate(self) -> float | None:
        """Wins / games in ``0.0..1.0`` (0.0 before the first game); ``None`` if wins are not
        known."""
        if self.wins is None:
            return None
        return self.wins / self.games if self.games else 0.0
