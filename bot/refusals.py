"""A per-user rate limit on refused presses (issue 14, item 8): one user flooding forged, stale
or strangers' presses cannot keep the bot busy answering them while a table waits.

Each user has a token bucket of :data:`CAPACITY` refusals that refills at :data:`REFILL_PER_SECOND`.
A refusal with a token left is answered as usual; the first one without a token gets one polite
"slow down" pop-up; the rest, until the bucket has a token again, are not answered at all
(Telegram clears the button's spinner by itself). That is the one deliberate exception to
"every input gets an answer": answering a flood press by press is the flood's cost to everyone
else. Accepted presses never take a token, so a player acting in turn is never limited.
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
#: Users remembered before full buckets (nobody limited) are forgotten.
MAX_USERS = 10_000


class Verdict(Enum):
    """What to do with one refused press."""

    ANSWER = "answer"  # answer the refusal's pop-up
    WARN = "warn"  # answer the "slow down" pop-up instead (first press over the limit)
    DROP = "drop"  # do not answer (limited, and already warned)


@dataclass
class _Bucket:
    tokens: float
    at: float
    warned: bool = False


class RefusalLimiter:
    """Token buckets of refused presses by user id (see the module docstring).

    Args:
        capacity: refusals in a burst; refill: refusals regained per second;
        clock: monotonic seconds (tests pass their own).
    """

    def __init__(self, capacity: float = CAPACITY, refill: float = REFILL_PER_SECOND,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = capacity
        self.refill = refill
        self.clock = clock
        self._buckets: dict[int, _Bucket] = {}

    def take(self, user_id: int) -> Verdict:
        """Count one refused press of ``user_id`` and say how to answer it."""
        now = self.clock()
        bucket = self._buckets.get(user_id)
        if bucket is None:
            if len(self._buckets) >= MAX_USERS:
                self._forget_full(now)
            bucket = self._buckets[user_id] = _Bucket(self.capacity, now)
        bucket.tokens = min(self.capacity, bucket.tokens + (now - bucket.at) * self.refill)
        bucket.at = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            bucket.warned = False
            return Verdict.ANSWER
        if bucket.warned:
            return Verdict.DROP
        bucket.warned = True
        return Verdict.WARN

    def _forget_full(self, now: float) -> None:
        """Drop the buckets that have refilled (their users are not limited)."""
        full = [user for user, b in self._buckets.items()
                if b.tokens + (now - b.at) * self.refill >= self.capacity]
        for user in full:
            del self._buckets[user]
