"""Actions a seat takes during a deal, and the error for an illegal one (RULES.md §2–§4, §9).

An :class:`Action` is a small immutable value that prints as the notation of the judge protocol
(``shared/cases/README.md``) and parses back:

>>> str(Action.parse(0, "play 33344456"))
'play 33344456'
>>> Action.parse(2, "bid 3")
Action(kind=<ActionKind.BID: 'bid'>, seat=2, value=3, cards=None, type=None)
>>> Action.parse(2, "bid 3").kind == "bid"
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.cards import CardError, check_ranks, format_ranks, parse_ranks
from engine.combos import ComboType, Play


class ActionKind(StrEnum):
    """Every action kind, its value the judge protocol's word (also in stored JSON). Game
    decisions: bid/pass (score bidding, and pass in play), call/decline/rob/norob (rob bidding),
    double/nodouble, show, play (RULES.md §2–§6). Meta actions: timeout, autoplay, leave
    (RULES.md §9)."""

    BID = "bid"
    PASS = "pass"
    CALL = "call"
    DECLINE = "decline"
    ROB = "rob"
    NOROB = "norob"
    DOUBLE = "double"
    NODOUBLE = "nodouble"
    SHOW = "show"
    PLAY = "play"
    TIMEOUT = "timeout"
    AUTOPLAY = "autoplay"
    LEAVE = "leave"


_NO_VALUE = frozenset(ActionKind) - {ActionKind.BID, ActionKind.AUTOPLAY, ActionKind.PLAY}

#: Stable machine codes of :class:`IllegalAction`.
ERROR_CODES = (
    "bad_action", "wrong_phase", "not_your_turn", "bid_too_low", "bid_not_allowed",
    "leader_cannot_pass", "cannot_beat", "invalid_combination", "not_in_hand",
    "already_decided", "not_allowed", "bomb_limit", "must_bid", "barred",
)


class IllegalAction(ValueError):
    """An action the rules do not allow now; the state it was applied to is unchanged.

    Attributes:
        code: stable short machine code, one of :data:`ERROR_CODES` (e.g. ``"bid_too_low"``).
        message: a human-readable English sentence.
        reading: for ``cannot_beat``, the reading of the refused play that was compared (of the
            beaten play's type when the cards can be read so); else ``None``.
        beaten: for ``cannot_beat``, the play on the table it failed to beat; else ``None``.
        reason: for ``cannot_beat``, :func:`engine.combos.beat_reason`'s code
            (``"type_mismatch"``, ``"length_mismatch"``, ``"too_low"``); else ``None``.
    """

    def __init__(self, code: str, message: str, *, reading: Play | None = None,
                 beaten: Play | None = None, reason: str | None = None) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.reading = reading
        self.beaten = beaten
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Action:
    """One decision (or meta action) of one seat.

    Attributes:
        kind: the :class:`ActionKind` (its value, a plain string, is accepted and converted).
        seat: the acting seat, ``0..seats-1``.
        value: the bid (``1..3``) for ``"bid"``; ``1`` (on) / ``0`` (off) for ``"autoplay"``;
            else ``None``.
        cards: for ``"play"``, the ranks played (``0..14``, stored sorted); else ``None``.
        type: for ``"play"``, optionally the chosen reading when a set of cards has several
            (only possible under house options, RULES.md §5); ``None`` lets the engine choose.

    ``str(action)`` is the judge notation without the seat, e.g. ``"play 33344456"`` or
    ``"bid 2"``; the optional ``type`` is not printed.

    Raises:
        IllegalAction: ``"bad_action"`` for a malformed action (unknown kind, a missing or
            superfluous value or cards, an impossible rank).
    """

    kind: ActionKind
    seat: int
    value: int | None = None
    cards: tuple[int, ...] | None = None
    type: ComboType | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _kind(self.kind))
        if not isinstance(self.seat, int) or isinstance(self.seat, bool) or self.seat < 0:
            raise IllegalAction("bad_action", f"Invalid seat {self.seat!r}.")
        if self.kind == ActionKind.PLAY:
            self._check_play()
        elif self.cards is not None or self.type is not None:
            raise IllegalAction("bad_action", f"A {self.kind.value!r} action carries no cards.")
        if self.kind in _NO_VALUE and self.value is not None:
            raise IllegalAction("bad_action", f"A {self.kind.value!r} action carries no value.")
        if self.kind == ActionKind.BID and (not isinstance(self.value, int)
                                            or isinstance(self.value, bool)):
            raise IllegalAction("bad_action", "A bid needs a number: 1, 2 or 3.")
        if self.kind == ActionKind.AUTOPLAY and self.value not in (0, 1):
            raise IllegalAction("bad_action", "Auto-play is switched with 1 (on) or 0 (off).")

    def _check_play(self) -> None:
        if self.value is not None:
            raise IllegalAction("bad_action", "A play carries cards, not a value.")
        if not self.cards:
            raise IllegalAction("bad_action", "A play needs at least one card.")
        try:
            cards = tuple(sorted(self.cards))
            check_ranks(cards, decks=2)
        except (CardError, TypeError, IndexError):
            raise IllegalAction("bad_action", f"Invalid ranks {self.cards!r}.") from None
        object.__setattr__(self, "cards", cards)
        if self.type is not None:
            try:
                object.__setattr__(self, "type", ComboType(self.type))
            except ValueError:
                raise IllegalAction("bad_action", f"Unknown combination {self.type!r}.") from None

    @classmethod
    def parse(cls, seat: int, text: str) -> Action:
        """Parse the judge notation: ``"bid 2"``, ``"pass"``, ``"play 33344456"``,
        ``"play 333444555777 plane_single"`` (optional reading), ``"autoplay 1"``, ``"leave"``.

        Raises:
            IllegalAction: ``"bad_action"`` if the text is not an action.
        """
        if not isinstance(text, str):
            raise IllegalAction("bad_action", "An action must be text.")
        words = text.split()
        if not words:
            raise IllegalAction("bad_action", "Empty action.")
        kind, args = words[0].lower(), words[1:]
        if kind == ActionKind.PLAY:
            if not 1 <= len(args) <= 2:
                raise IllegalAction("bad_action", "Write a play as 'play <cards> [type]'.")
            try:
                cards = parse_ranks(args[0], decks=2)
            except CardError as exc:
                raise IllegalAction("bad_action", f"Invalid cards: {exc}.") from None
            type_ = None
            if len(args) == 2:
                try:
                    type_ = ComboType(args[1])
                except ValueError:
                    raise IllegalAction("bad_action", f"Unknown combination {args[1]!r}.") from None
            return cls(ActionKind.PLAY, seat, cards=cards, type=type_)
        if kind in (ActionKind.BID, ActionKind.AUTOPLAY):
            if len(args) != 1 or not args[0].isdigit():
                raise IllegalAction("bad_action", f"Write '{kind} <number>'.")
            return cls(_kind(kind), seat, value=int(args[0]))
        if args:
            raise IllegalAction("bad_action", f"{kind!r} takes no argument.")
        return cls(_kind(kind), seat)

    def __str__(self) -> str:
        if self.kind == ActionKind.PLAY:
            return f"play {format_ranks(self.cards or ())}"
        if self.value is not None:
            return f"{self.kind} {self.value}"
        return self.kind.value


def _kind(kind: object) -> ActionKind:
    """``kind`` as an :class:`ActionKind` (a member, or a plain string of one's value).

    Raises:
        IllegalAction: ``"bad_action"`` for anything else.
    """
    if isinstance(kind, str):
        try:
            return ActionKind(kind)
        except ValueError:
            pass
    raise IllegalAction("bad_action", f"Unknown action {kind!r}.")
