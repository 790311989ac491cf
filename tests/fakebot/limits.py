"""Telegram's flood limits, enforced strictly: the fake Bot API's opt-in strict mode.

Telegram does not publish exact limits; its FAQ and what bots observe are: about 20 messages a
minute into one group, about 30 messages a second in all, about one a second into one private
chat (that one is not enforced here). Beyond them Telegram answers 429 "Too Many Requests:
retry after N" with ``parameters.retry_after`` = N seconds.

The strict model counts, in *sliding* windows (never a bucket that lets a burst through):

- per group chat (a "group" or "supergroup", or any negative chat id): every send, edit and
  delete (`GROUP_LIMITED`): at most ``group_per_minute`` in any 60 s;
- overall: every request that names a chat (``chat_id``), which is what Telegram's and PTB's
  ``AIORateLimiter``'s 30 per second apply to: at most ``overall_per_second`` in any 1 s.
  ``answerCallbackQuery``, ``getUpdates``, ``getMe`` and the command menu are not counted.

Ephemeral messages (``tests/fakebot/ephemeral.py``): whether their sends, edits and deletes
count against a group's minute is not published; ``FloodLimits.ephemeral`` says how the strict
server counts them: "group" (default, like any message), "own" (a window of their own per
group) or "none".

A refused request is not counted. ``retry_after`` is the whole number of seconds (at least 1)
until the window has room again, as Telegram rounds it.

Use ``StrictFakeBotApi()`` instead of ``FakeBotApi()``: same server, plus the limits, the 429s it
answered (``rate_limited``) and the HTTP body size of every call (``request_bytes``, by call
index), which benchmarks use to count bytes uploaded.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from .ephemeral import METHODS as EPHEMERAL_METHODS
from .models import Call
from .rules import ApiError
from .server import BOT_USERNAME, DEFAULT_TOKEN, FakeBotApi, _chat_id_param

#: Methods that count against a group's per-minute budget: sends, edits and deletes.
GROUP_LIMITED = frozenset(
    name.lower()
    for name in (
        "sendMessage", "sendPhoto", "sendDocument", "sendMediaGroup", "sendAnimation",
        "sendSticker", "sendPoll", "sendDice", "copyMessage", "forwardMessage",
        "editMessageText", "editMessageCaption", "editMessageMedia", "editMessageReplyMarkup",
        "deleteMessage", "deleteMessages",
    )
)


class SlidingWindow:
    """At most ``limit`` events in any ``period`` seconds (a sliding log, not a bucket)."""

    def __init__(self, limit: int, period: float) -> None:
        self.limit = limit
        self.period = period
        self._times: deque[float] = deque()

    def wait(self, now: float) -> float:
        """Seconds from ``now`` until one more event fits (0.0: it fits now)."""
        while self._times and self._times[0] <= now - self.period:
            self._times.popleft()
        if len(self._times) < self.limit:
            return 0.0
        return self._times[0] + self.period - now

    def add(self, now: float) -> None:
        """Count an event at ``now`` (call only after ``wait(now)`` said it fits)."""
        self._times.append(now)


@dataclass
class FloodLimits:
    """Telegram's flood limits as the strict fake server applies them (see the module doc)."""

    group_per_minute: int = 20
    overall_per_second: int = 30
    #: How ephemeral sends, edits and deletes count (Telegram does not say): "group" like any
    #: message into the group, "own" in a window of their own per group (same size, refusals
    #: name the window "ephemeral"), "none" only in the bot's overall second.
    ephemeral: str = "group"
    _groups: dict[int, SlidingWindow] = field(default_factory=dict, repr=False)
    _ephemeral: dict[int, SlidingWindow] = field(default_factory=dict, repr=False)
    _overall: SlidingWindow | None = field(default=None, repr=False)

    def check(
        self, method: str, chat_id: int | None, is_group: bool, now: float,
        ephemeral: bool = False,
    ) -> tuple[int, str] | None:
        """Count a request of ``method`` into ``chat_id`` at ``now`` (seconds; ``ephemeral``:
        it sends, edits or deletes an ephemeral message); returns None if it is allowed, else
        the ``retry_after`` (whole seconds, ≥ 1) of a 429 answer and the window that refused it
        ("group", "ephemeral" or "overall")."""
        if chat_id is None:
            return None
        if self._overall is None:
            self._overall = SlidingWindow(self.overall_per_second, 1.0)
        windows = [("overall", self._overall)]
        if is_group and ephemeral and self.ephemeral == "own":
            own = self._ephemeral.setdefault(chat_id,
                                             SlidingWindow(self.group_per_minute, 60.0))
            windows.insert(0, ("ephemeral", own))
        elif is_group and (method.lower() in GROUP_LIMITED or ephemeral) and not (
                ephemeral and self.ephemeral == "none"):
            group = self._groups.setdefault(chat_id, SlidingWindow(self.group_per_minute, 60.0))
            windows.insert(0, ("group", group))
        for name, window in windows:
            wait = window.wait(now)
            if wait > 0:
                return max(1, math.ceil(wait)), name
        for _, window in windows:
            window.add(now)
        return None


@dataclass(frozen=True)
class RateLimited:
    """One request the strict server refused with 429."""

    method: str
    chat_id: int
    retry_after: int
    time: float
    window: str  # "group" (the group's minute), "ephemeral" (its own minute), "overall"


class StrictFakeBotApi(FakeBotApi):
    """The fake Bot API with Telegram's flood limits enforced (:class:`FloodLimits`).

    ``clock`` (default ``time.monotonic``) lets a test move time on. Also records the HTTP body
    size of every call in ``request_bytes[call.index]`` (0 for a body-less request).
    """

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        bot_username: str = BOT_USERNAME,
        *,
        limits: FloodLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(token, bot_username)
        self.limits = limits or FloodLimits()
        self.clock = clock
        self.rate_limited: list[RateLimited] = []
        self.request_bytes: dict[int, int] = {}

    def uploaded(self, call: Call) -> int:
        """The bytes of the HTTP body the bot sent for ``call``."""
        return self.request_bytes.get(call.index, 0)

    def _raise_requested_failure(self, method: str, params: dict[str, Any]) -> None:
        super()._raise_requested_failure(method, params)
        chat_id = _chat_id_param(params)
        chat = self.chats.get(chat_id) if chat_id is not None else None
        is_group = chat.type in ("group", "supergroup") if chat else (chat_id or 0) < 0
        now = self.clock()
        ephemeral = method in EPHEMERAL_METHODS or (
            method in {"sendMessage", "sendPhoto"} and self.ephemeral.wanted(params))
        refusal = self.limits.check(method, chat_id, is_group, now, ephemeral)
        if refusal is not None:
            assert chat_id is not None
            retry_after, window = refusal
            self.rate_limited.append(RateLimited(method, chat_id, retry_after, now, window))
            raise ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after)

    async def _handle(self, request: web.Request) -> web.Response:
        size = request.content_length or 0
        response = await super()._handle(request)
        # The base class appends the call and returns without awaiting in between, so the call
        # this request recorded (if it got that far) is the newest one.
        newest = self.calls[-1] if self.calls else None
        if (
            newest is not None
            and response.status == newest.status
            and newest.method.lower() == request.match_info["method"].lower()
            and newest.index not in self.request_bytes
        ):
            self.request_bytes[newest.index] = size
        return response
