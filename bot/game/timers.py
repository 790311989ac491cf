"""What a timer is armed for, and absolute deadlines ("Survives restarts").

The game layer asks its outlet to arm timers (:meth:`bot.game.outlet.Outlet.arm`); each kind has
one timer per table, so arming replaces the previous one of that kind. A timer carries a
:class:`Stamp` (table key, token, state version) and the game checks it under the table's lock
when it fires: a timer armed for an older deal or an older state does nothing.

Deadlines are absolute UTC timestamps (``time.time()``) kept in the table's value, so that after
a restart a turn gets exactly the time that was left.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

#: A human seat's turn ran out (RULES.md §9).
TURN = "turn"
#: A bot or auto-play seat is to act.
BOT_MOVE = "bot"
#: An unstarted lobby expires.
LOBBY = "lobby"
#: A human seat has not acted for a while: tell them with a notifying message.
NOTICE = "notice"
#: A deal's result not posted yet (its send failed): post it again.
RESULT = "result"
#: The seats that did not answer "Play again" in time are freed.
AGAIN = "again"
#: A human's turn reached one of :data:`CLOCK_MARKS`: show the time left again.
CLOCK = "clock"
KINDS = (TURN, BOT_MOVE, LOBBY, NOTICE, RESULT, CLOCK, AGAIN)

#: Seconds left in a turn at which the prompts show the time again.
CLOCK_MARKS = (10.0, 5.0)
#: A mark this close (seconds) to now is not armed: the prompt was just drawn with that time.
CLOCK_LEAD = 0.5


@dataclass(frozen=True, slots=True)
class Stamp:
    """What a timer was armed for: table ``key``, table ``token`` and deal state ``version``."""

    key: str
    token: str
    version: int = 0


def seconds_left(deadline: float | None, now: float | None = None) -> float:
    """Seconds from ``now`` (default: the current UTC time) to ``deadline``, never below zero."""
    if deadline is None:
        return 0.0
    return max(0.0, deadline - (time.time() if now is None else now))


def next_mark(deadline: float | None, now: float | None = None,
              marks: tuple[float, ...] = CLOCK_MARKS) -> float | None:
    """The absolute UTC time of the turn's next clock refresh: the first of ``deadline - m``
    (``m`` in ``marks``, seconds left) that is more than :data:`CLOCK_LEAD` seconds after
    ``now``; ``None`` when no mark is left (or no deadline).

    >>> next_mark(100.0, 80.0), next_mark(100.0, 89.6), next_mark(100.0, 95.0)
    (90.0, 95.0, None)
    """
    if deadline is None:
        return None
    now = time.time() if now is None else now
    due = [deadline - mark for mark in marks if deadline - mark > now + CLOCK_LEAD]
    return min(due) if due else None
