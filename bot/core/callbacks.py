"""Compact inline-button data, and a parser that trusts nothing.

Every button the bot draws carries ``KIND:TOKEN:VERSION:PAYLOAD`` (at most 64 bytes, Telegram's
limit), for example ``A:k3Xq9ZpT:12:bid3`` or ``S:k3Xq9ZpT:40:r7``:

* ``KIND``: one letter naming the kind of button (see :data:`PAYLOADS`):
  ``L`` lobby, ``A`` deal action (bidding, doubling, show cards, pass, auto-play),
  ``S`` card selection on the private hand message (a rank, Play, Hint, Clear, or an offered
  play ``p<ranks>``), ``M`` "My cards" on the group table message (payload ``""``), the card
  counter (``c``) and the last trick (``t``, 上一轮, on both), and on a hand the switch of
  where it is shown (``g`` into the group, ``p`` into the private chat),
  ``Q`` the confirmation of ``/leave`` during a deal, ``G`` "Play again" (payload ``""``) and
  "Leave" (``leave``) under a result, ``O`` a match
  lobby's option buttons (``deals+``, ``fee-``…). (``C`` is taken by the group settings menu,
  :mod:`bot.features.settings.menu`.)
* ``TOKEN``: the table's current token (8 letters/digits); it changes when a lobby opens and when a
  deal starts, so a button from an older lobby or deal no longer finds its table.
* ``VERSION``: the deal state's version the button was drawn for (``DealState.version``), 0 where a
  kind does not depend on it (lobby, "My cards", "Play again", the leave confirmation).
* ``PAYLOAD``: what the button does, from a fixed list per kind. The leave confirmation's
  ``yes<seat>`` / ``no<seat>`` name the seat that asked: only its player may answer.

Callback data comes from the client and can be forged: :func:`parse_callback` accepts only what
:func:`make_callback` could have produced and raises :class:`CallbackError` for anything else.

>>> make_callback("A", "k3Xq9ZpT", 12, "bid3")
'A:k3Xq9ZpT:12:bid3'
>>> parse_callback("S:k3Xq9ZpT:40:r7")
Callback(kind='S', token='k3Xq9ZpT', version=40, payload='r7')
"""

from __future__ import annotations

import re
import secrets
import string
from dataclasses import dataclass

from bot.core.selection import decode_ranks
from engine.action import ActionKind
from engine.cards import RANK_COUNT

MAX_BYTES = 64
TOKEN_LENGTH = 8
MAX_VERSION = 9_999_999

_TOKEN_ALPHABET = string.ascii_letters + string.digits
_TOKEN_RE = re.compile(rf"[A-Za-z0-9]{{{TOKEN_LENGTH}}}")
_VERSION_RE = re.compile(rf"0|[1-9][0-9]{{0,{len(str(MAX_VERSION)) - 1}}}")

LOBBY = "L"
ACTION = "A"
SELECT = "S"
MY_CARDS = "M"
#: The payload of :data:`MY_CARDS` that asks for the card counter instead of the hand.
COUNTER = "c"
#: The payload of :data:`MY_CARDS` that asks for the last trick that is over (上一轮), which
#: anyone may see: players and watchers.
LAST_TRICK = "t"
#: The payloads of :data:`MY_CARDS` on a hand that move it: into the group (an ephemeral
#: message only its player sees) or into the player's private chat, from now on.
HANDS_GROUP = "g"
HANDS_PRIVATE = "p"
CONFIRM_LEAVE = "Q"
PLAY_AGAIN = "G"
MATCH_OPTION = "O"

#: The ``/start`` argument of a lobby's "join in the private chat" link, before its token
#: (``t.me/<bot>?start=join_<token>``).
JOIN_LINK = "join_"
#: The ``/start`` argument of the link a challenge's Enter answers with when the bot cannot
#: write to the presser privately yet, before the challenge's id (``challenge_<id>``).
CHALLENGE_LINK = "challenge_"

#: A match lobby's options with −/+ buttons (see :mod:`bot.features.match.views`).
MATCH_OPTIONS = ("deals", "target", "chips", "base", "per", "out", "time", "rise", "redeal", "fee")

#: Deal-action payloads and the engine ``Action`` (kind, value) each stands for.
ACTION_PAYLOADS: dict[str, tuple[ActionKind, int | None]] = {
    "bid1": (ActionKind.BID, 1),
    "bid2": (ActionKind.BID, 2),
    "bid3": (ActionKind.BID, 3),
    "pass": (ActionKind.PASS, None),
    "call": (ActionKind.CALL, None),
    "decline": (ActionKind.DECLINE, None),
    "rob": (ActionKind.ROB, None),
    "norob": (ActionKind.NOROB, None),
    "double": (ActionKind.DOUBLE, None),
    "nodouble": (ActionKind.NODOUBLE, None),
    "show": (ActionKind.SHOW, None),
    "auto1": (ActionKind.AUTOPLAY, 1),
    "auto0": (ActionKind.AUTOPLAY, 0),
}

#: Card-selection payloads: ``r0``..``r14`` add one card of that rank (cycling), and the controls.
SELECT_PAYLOADS: frozenset[str] = frozenset(
    [f"r{rank}" for rank in range(RANK_COUNT)] + ["play", "hint", "clear"]
)

#: An offered play's payload: ``p`` and its ranks as judge characters (``p33344456``,
#: :func:`bot.core.selection.encode_ranks`), checked by :func:`bot.core.selection.decode_ranks`.
OFFER = "p"

#: Seats a leave confirmation may name (four for the two-deck variant, RULES.md §11).
MAX_SEATS = 4

#: Every kind and the payloads it accepts.
PAYLOADS: dict[str, frozenset[str]] = {
    LOBBY: frozenset({"join", "leave", "bot", "start", "close"}),
    ACTION: frozenset(ACTION_PAYLOADS),
    SELECT: SELECT_PAYLOADS,
    MY_CARDS: frozenset({"", COUNTER, LAST_TRICK, HANDS_GROUP, HANDS_PRIVATE}),
    CONFIRM_LEAVE: frozenset(f"{answer}{seat}" for answer in ("yes", "no")
                             for seat in range(MAX_SEATS)),
    PLAY_AGAIN: frozenset({"", "leave"}),
    MATCH_OPTION: frozenset(f"{name}{sign}" for name in MATCH_OPTIONS for sign in "+-"),
}


class CallbackError(ValueError):
    """Callback data that this bot did not draw (malformed, unknown kind or payload, too long)."""


@dataclass(frozen=True, slots=True)
class Callback:
    """One parsed button press: ``kind``, table ``token``, state ``version``, ``payload``."""

    kind: str
    token: str
    version: int
    payload: str

    @property
    def rank(self) -> int:
        """The rank ``0..14`` of a card-selection payload ``r<rank>``.

        Raises:
            CallbackError: the payload is not a rank payload.
        """
        if self.kind != SELECT or not self.payload.startswith("r"):
            raise CallbackError("not a rank button")
        return int(self.payload[1:])

    @property
    def offer(self) -> tuple[int, ...] | None:
        """The ranks of an offered play's payload ``p<ranks>``, else ``None``."""
        if self.kind != SELECT or not self.payload.startswith(OFFER):
            return None
        return decode_ranks(self.payload[1:])

    @property
    def seat(self) -> int:
        """The seat named by a leave confirmation's ``yes<seat>`` / ``no<seat>`` payload.

        Raises:
            CallbackError: not a leave confirmation.
        """
        if self.kind != CONFIRM_LEAVE:
            raise CallbackError("not a leave confirmation")
        return int(self.payload[-1])

    def __str__(self) -> str:
        return f"{self.kind}:{self.token}:{self.version}:{self.payload}"


def new_token() -> str:
    """A fresh random table token of :data:`TOKEN_LENGTH` letters and digits."""
    return "".join(secrets.choice(_TOKEN_ALPHABET) for _ in range(TOKEN_LENGTH))


def make_callback(kind: str, token: str, version: int = 0, payload: str = "") -> str:
    """Button data for a press of ``kind`` on table ``token`` drawn at ``version``.

    Raises:
        CallbackError: the pieces would not parse back (a bug in the caller).
    """
    data = f"{kind}:{token}:{version}:{payload}"
    parse_callback(data)
    return data


def parse_callback(data: object) -> Callback:
    """Parse and check button data; the inverse of :func:`make_callback`.

    Raises:
        CallbackError: not a string, longer than 64 bytes, not four ``:``-separated fields, an
            unknown kind, a malformed token, a version that is not a plain decimal in
            ``0..9999999``, or a payload the kind does not accept.
    """
    if not isinstance(data, str):
        raise CallbackError("callback data is not text")
    if len(data.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise CallbackError("callback data is too long")
    parts = data.split(":")
    if len(parts) != 4:
        raise CallbackError("callback data needs four fields")
    kind, token, version, payload = parts
    allowed = PAYLOADS.get(kind)
    if allowed is None:
        raise CallbackError("unknown button kind")
    if not _TOKEN_RE.fullmatch(token):
        raise CallbackError("malformed token")
    if not _VERSION_RE.fullmatch(version):
        raise CallbackError("malformed version")
    if payload not in allowed and not (kind == SELECT and payload.startswith(OFFER)
                                       and decode_ranks(payload[1:]) is not None):
        raise CallbackError("unknown payload")
    return Callback(kind, token, int(version), payload)


def pattern(kind: str) -> str:
    """Regex prefix for ``CallbackQueryHandler(pattern=...)`` routing one kind of button."""
    return f"^{re.escape(kind)}:"
