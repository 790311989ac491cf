"""Inputs of the pictures: small frozen values the bot fills in, checked on creation.

Every word a picture draws comes from the scene: players' names as they are (the picture cuts
them to fit and leaves out characters its fonts lack, :mod:`images.text`), action words already
translated, and the scene's :class:`~images.labels.Labels` for the rest.

Cards are card ids ``0..53`` (``engine.cards``); when only ranks are known (a play recorded as
ranks, RULES.md §5), :func:`cards_for_ranks` turns them into displayable card ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from engine.cards import BIG_JOKER, RANK_COUNT, SMALL_JOKER
from images.errors import RenderError
from images.labels import ENGLISH, Labels

Role = Literal["landlord", "farmer"]
Winner = Literal["landlord", "farmers"]

#: Longest text a seat's badge may carry (initials, a hanzi, a seat number).
MAX_SEAT_LABEL = 3
#: Longest name a scene may carry, in characters (the picture draws at most 12 width units).
MAX_NAME = 64
#: Longest action text shown instead of a play, e.g. ``"叫地主"`` or ``"No double"``.
MAX_ACTION = 16

__all__ = ["RenderError"]


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


def check_text(text: str, what: str, max_len: int, *, empty: bool = False) -> str:
    """Return ``text`` if it is a printable string of at most ``max_len`` characters (and not
    blank unless ``empty``), else raise :class:`RenderError`."""
    if not isinstance(text, str) or (not empty and not text.strip()):
        raise RenderError(f"{what} must be a non-empty string")
    if not text.isprintable():
        raise RenderError(f"{what} {text!r} must be printable (no newlines or control characters)")
    if len(text) > max_len:
        raise RenderError(f"{what} {text!r} is longer than {max_len} characters")
    return text


def clean_name(text: str, what: str = "name") -> str:
    """A player's name fit for a scene: control and format characters (newlines, bidi marks)
    removed, at most :data:`MAX_NAME` characters; a name is never refused for its spelling.

    Raises:
        RenderError: not a string.
    """
    if not isinstance(text, str):
        raise RenderError(f"{what} must be a string, not {text!r}")
    return "".join(ch if ch.isprintable() else " " for ch in text)[:MAX_NAME]


def _check_labels(labels: Labels) -> None:
    if not isinstance(labels, Labels):
        raise RenderError(f"labels must be images.Labels, not {labels!r}")


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
        label: 1–3 characters drawn in the seat's badge: initials, the name's first hanzi or a
            seat number (``bot.presentation.scenes.seat_label``).
        name: the player's name as it is (``""``: none drawn); the picture draws at most 6
            hanzi or 12 Latin letters and ``…``, without characters its fonts lack.
        role: ``"landlord"``, ``"farmer"`` or ``None`` before the landlord is known.
        card_count: cards left in the seat's hand.
        alarm: draw the card count in red (RULES.md §4.5: 2 or fewer, house option 3).
        last_play: the seat's last action in the current trick: card ids of the play, drawn
            in the order given (as people read it: the body, then the kickers), an action
            word already in the table's language (``"不出"``, ``"叫地主"``, ``"Pass"``), or
            ``None``.
        shown_cards: the hand face up (明牌, RULES.md §3), or ``None`` when not shown.
        is_turn: this seat is to act now (the countdown is drawn next to it).
        autoplay: the seat is on auto-play (托管, RULES.md §9).
        doubled: the seat chose to double (加倍, RULES.md §3).
        bombs_left: a four-player farmer's bomb allowance left (RULES.md §11: public), drawn as
            a tag; ``None`` for a seat that may play any number (or no limit applies).
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
    name: str = ""
    bombs_left: int | None = None

    def __post_init__(self) -> None:
        check_text(self.label, "seat label", MAX_SEAT_LABEL)
        if self.bombs_left is not None:
            _check_count(self.bombs_left, "bombs_left")
        object.__setattr__(self, "name", clean_name(self.name))
        if self.role not in ("landlord", "farmer", None):
            raise RenderError(f"role must be 'landlord', 'farmer' or None, not {self.role!r}")
        _check_count(self.card_count, "card_count")
        if isinstance(self.last_play, str):
            check_text(self.last_play, "last_play action", MAX_ACTION)
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
        multiplier: the current multiplier (倍数, RULES.md §7), ``>= 1``: the largest pair's.
        seconds_left: countdown for the seat whose turn it is, in seconds, or ``None``.
        labels: the words, in the group's language (:class:`~images.labels.Labels`).
        multipliers: each farmer–landlord pair's multiplier, in seat order, when a farmer's own
            doubling sets the pairs apart (RULES.md §3): drawn ``×64 / ×32`` as the result
            does; empty (or all alike): ``multiplier`` alone.
    """

    seats: tuple[SeatScene, ...]
    kitty: tuple[int, ...] | None = None
    kitty_size: int = 3
    base: int = 0
    multiplier: int = 1
    seconds_left: int | None = None
    labels: Labels = ENGLISH
    multipliers: tuple[int, ...] = ()

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
        object.__setattr__(self, "multipliers", tuple(self.multipliers))
        for m in self.multipliers:
            _check_count(m, "multipliers", 1)
        if self.seconds_left is not None:
            _check_count(self.seconds_left, "seconds_left")
        _check_labels(self.labels)


@dataclass(frozen=True, slots=True)
class ResultSeat:
    """One seat's line in the result picture (RULES.md §3, §7, §8, §9).

    Attributes:
        label: the seat's badge, 1–3 characters (see :class:`SeatScene`).
        role: ``"landlord"`` or ``"farmer"``; ``None`` in a deal that ended before a landlord
            was decided (a seat left during the bidding, RULES.md §9).
        points: points won (+) or lost (−) in this deal, as settled.
        beans: beans won (+) or lost (−), as settled (RULES.md §8).
        cards_left: card ids left in the seat's hand at the end (empty for the winner).
        autoplay: the seat ended on auto-play (RULES.md §9).
        escaped: the seat left the deal (逃跑, RULES.md §9).
        name: the player's name as it is (see :class:`SeatScene`).
        doubled: the seat doubled (加倍, RULES.md §3).
        shown: the show-cards factor the seat took (明牌: 4 before bidding, 2 after), 0 if it did
            not show; the deal's largest one multiplies every pair (RULES.md §3).
        multiplier: a farmer's own pair multiplier with the landlord, final and capped
            (RULES.md §7); ``None`` for the landlord.
        penalized: the auto-play penalty fell on this farmer (RULES.md §9).
        short: the seat could not cover its loss: it paid every bean it held, less than
            ``points × stake``, and the winners shared that (RULES.md §8).
    """

    label: str
    role: Role | None
    points: int
    beans: int
    cards_left: tuple[int, ...] = ()
    autoplay: bool = False
    escaped: bool = False
    name: str = ""
    doubled: bool = False
    shown: int = 0
    multiplier: int | None = None
    penalized: bool = False
    short: bool = False

    def __post_init__(self) -> None:
        check_text(self.label, "seat label", MAX_SEAT_LABEL)
        object.__setattr__(self, "name", clean_name(self.name))
        if self.role not in ("landlord", "farmer", None):
            raise RenderError(f"role must be 'landlord', 'farmer' or None, not {self.role!r}")
        for value, what in ((self.points, "points"), (self.beans, "beans")):
            if isinstance(value, bool) or not isinstance(value, int):
                raise RenderError(f"{what} must be an int, not {value!r}")
        object.__setattr__(self, "cards_left", check_cards(self.cards_left, "cards_left"))
        _check_count(self.shown, "shown")
        if self.multiplier is not None:
            _check_count(self.multiplier, "multiplier", 1)


@dataclass(frozen=True, slots=True)
class ResultScene:
    """The end-of-deal picture (RULES.md §3, §4.4, §7, §9).

    The multiplier's parts (RULES.md §3, §7): ``2^robs``, the largest show factor any seat took
    and the landlord's doubling (in every pair), ``2^bombs`` (bombs and rockets), spring or
    anti-spring ×2, and per farmer its own doubling; ``cap`` is drawn when the pair multipliers
    were cut to it.

    Attributes:
        winner: ``"landlord"`` or ``"farmers"``; ``None`` for a deal that ended without a
            winner (RULES.md §9): a seat left during the bidding (a flat payment, no roles yet)
            or every seat left (nobody pays).
        seats: 3 or 4 :class:`ResultSeat` in seat order, exactly one of them the landlord and
            the others farmers; with no winner, at least one left, and none has a role if the
            bidding had not ended.
        base: base score (底分), ``>= 1``; any with no winner (not drawn).
        multiplier: the largest pair multiplier (the farmers' own ones are in their seats).
        bombs: bombs and rockets played (each ×2); ``rockets`` of them rockets.
        robs: robs in the rob preset (each ×2, RULES.md §2.2).
        spring: the landlord won a spring (春天, ×2).
        anti_spring: the farmers won an anti-spring (反春, ×2).
        cap: the table's multiplier cap (RULES.md §7), ``None`` for none.
        labels: the words, in the group's language.
        bombs_double: bombs double the multiplier (always in the three-player game; in the
            four-player one only with the house option, RULES.md §11).
        bonus: points each pair gains after the multiplier (the four-player 头撂 bonus,
            RULES.md §11), else 0.
        with_beans: the deal moved beans (a group deal); ``False`` at a table that plays for
            points only (practice, a match or challenge deal): no beans column is drawn, and
            a leaver's line names the points only.
        practice: a practice deal (``/practice``): nobody pays for leaving, so the title says
            who left the practice and no payment line is drawn.
    """

    winner: Winner | None
    seats: tuple[ResultSeat, ...]
    base: int
    multiplier: int
    bombs: int = 0
    spring: bool = False
    anti_spring: bool = False
    rockets: int = 0
    robs: int = 0
    cap: int | None = None
    labels: Labels = ENGLISH
    bombs_double: bool = True
    bonus: int = 0
    with_beans: bool = True
    practice: bool = False

    def __post_init__(self) -> None:
        if self.winner not in ("landlord", "farmers", None):
            raise RenderError(f"winner must be 'landlord', 'farmers' or None, not "
                              f"{self.winner!r}")
        seats = tuple(self.seats)
        if len(seats) not in (3, 4) or not all(isinstance(s, ResultSeat) for s in seats):
            raise RenderError("a result has 3 or 4 ResultSeat seats")
        if self.winner is None and not any(s.escaped for s in seats):
            raise RenderError("a result without a winner has a seat that left")
        no_roles = self.winner is None and all(s.role is None for s in seats)
        if not no_roles and (sum(s.role == "landlord" for s in seats) != 1
                             or any(s.role is None for s in seats)):
            raise RenderError("a result has exactly one landlord seat, the others farmers")
        object.__setattr__(self, "seats", seats)
        _check_count(self.base, "base", 0 if self.winner is None else 1)
        _check_count(self.multiplier, "multiplier", 1)
        _check_count(self.bombs, "bombs")
        _check_count(self.rockets, "rockets")
        _check_count(self.robs, "robs")
        if self.rockets > self.bombs:
            raise RenderError(f"rockets ({self.rockets}) are counted in bombs ({self.bombs})")
        if self.cap is not None:
            _check_count(self.cap, "cap", 1)
        _check_count(self.bonus, "bonus")
        _check_labels(self.labels)

    @property
    def landlord(self) -> ResultSeat | None:
        """The landlord's seat, ``None`` in a deal without a winner."""
        return next((s for s in self.seats if s.role == "landlord"), None)


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One line of the leaderboard (RULES.md §8).

    Attributes:
        rank: 1-based place.
        name: the player's name as it is (cut to fit when drawn).
        beans: beans won (+) or lost (−) over the period, or the balance on a balance board.
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
        object.__setattr__(self, "name", clean_name(self.name))
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
        """Wins / games in ``0.0..1.0``; ``None`` when wins are not known or no deal was
        played (a rate of nothing is not 0 %)."""
        if self.wins is None or not self.games:
            return None
        return self.wins / self.games


#: Most rows a leaderboard picture holds.
MAX_ROWS = 25
#: Longest leaderboard title, in characters.
MAX_TITLE = 60


@dataclass(frozen=True, slots=True)
class LeaderboardScene:
    """A leaderboard picture (RULES.md §8).

    Attributes:
        title: the board's title in the group's language (characters the fonts lack, such as a
            leading emoji, are left out).
        rows: up to 25 :class:`LeaderboardRow`, best first.
        balances: the values are balances (drawn without a sign) rather than beans won over a
            period (drawn ``+12`` / ``-3`` / ``0``).
        labels: the words, in the group's language.
    """

    title: str
    rows: tuple[LeaderboardRow, ...] = field(default=())
    balances: bool = False
    labels: Labels = ENGLISH

    def __post_init__(self) -> None:
        check_text(self.title, "title", MAX_TITLE)
        rows = tuple(self.rows)
        if len(rows) > MAX_ROWS:
            raise RenderError(f"at most {MAX_ROWS} leaderboard rows fit, not {len(rows)}")
        if not all(isinstance(r, LeaderboardRow) for r in rows):
            raise RenderError("leaderboard rows must be LeaderboardRow values")
        object.__setattr__(self, "rows", rows)
        _check_labels(self.labels)
