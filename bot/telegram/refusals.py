"""A per-user rate limit on refused presses: one user flooding forged, stale
or strangers' presses cannot keep the bot busy answering them while a table waits.

Each user has a token bucket of :data:`CAPACITY` refusals that refills at :data:`REFILL_PER_SECOND`.
A refusal with a token left is answered as usual; the first one without a token gets one polite
"slow down" pop-up; the ones after it get a silent answer (no pop-up: it only stops the button's
spinner, so every press a human can make is answered) from a second bucket of
:data:`QUIET_CAPACITY` answers refilled at :data:`QUIET_REFILL_PER_SECOND`. Only presses beyond
that are not answered at all: 8 + 1 + 30 presses in a burst and then more than 5 a second, far
beyond human speed (a person taps a button at most about 5 times a second, and a Telegram
client sends no second press of a button whose spinner still turns), i.e. a script; answering
such a flood press by press would be its cost to everyone else. Accepted presses never take a
token, so a player acting in turn is never limited.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

#: Refused presses a user may make in a burst before they are limited.
CAPACITY = 8.0
#: Refused presses per second a user regains (a steady slow rate is never limited).
REFILL_PER_SECOND = 1.0
#: Silent answers a user gets in a burst once warned (human tapping never exhausts them).
QUIET_CAPACITY = 30.0
#: Silent answers per second a user regains: faster than a person can tap.
QUIET_REFILL_PER_SECOND = 5.0
#: Users remembered before full buckets (nobody limited) are forgotten.
MAX_USERS = 10_000


class Verdict(Enum):
    """What to do with one refused press."""

    ANSWER = "answer"  # answer the refusal's pop-up
    WARN = "warn"  # answer the "slow down" pop-up instead (first press over the limit)
    QUIET = "quiet"  # answer with no pop-up (limited, already warned, at human speed)
    DROP = "drop"  # do not answer (faster than a human: a flood)


@dataclass
class _Bucket:
    tokens: float
    quiet: float
    at: float
    warned: bool = False


class RefusalLimiter:
    """Token buckets of refused presses by user id (see the module docstring).

    Args:
        capacity: refusals in a burst; refill: refusals regained per second;
        quiet_capacity, quiet_refill: the same for the silent answers once warned;
        clock: monotonic seconds (tests pass their own).
    """

    def __init__(self, capacity: float = CAPACITY, refill: float = REFILL_PER_SECOND,
                 clock: Callable[[], float] = time.monotonic, *,
                 quiet_capacity: float = QUIET_CAPACITY,
                 quiet_refill: float = QUIET_REFILL_PER_SECOND) -> None:
        self.capacity = capacity
        self.refill = refill
        self.quiet_capacity = quiet_capacity
        self.quiet_refill = quiet_refill
        self.clock = clock
        self._buckets: dict[int, _Bucket] = {}

    def take(self, user_id: int) -> Verdict:
        """Count one refused press of ``user_id`` and say how to answer it."""
        now = self.clock()
        bucket = self._buckets.get(user_id)
        if bucket is None:
            if len(self._buckets) >= MAX_USERS:
                self._forget_full(now)
            bucket = self._buckets[user_id] = _Bucket(self.capacity, self.quiet_capacity, now)
        bucket.tokens = min(self.capacity, bucket.tokens + (now - bucket.at) * self.refill)
        bucket.quiet = min(self.quiet_capacity,
                           bucket.quiet + (now - bucket.at) * self.quiet_refill)
        bucket.at = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            bucket.warned = False
            return Verdict.ANSWER
        if not bucket.warned:
            bucket.warned = True
            return Verdict.WARN
        if bucket.quiet >= 1:
            bucket.quiet -= 1
            return Verdict.QUIET
        return Verdict.DROP

    def _forget_full(self, now: float) -> None:
        """Drop the buckets that have refilled (their users are not limited)."""
        full = [user for user, b in self._buckets.items()
                if b.tokens + (now - b.at) * self.refill >= self.capacity
                and b.quiet + (now - b.at) * self.quiet_refill >= self.quiet_capacity]
        for user in full:
            del self._buckets[user]
