"""An event loop with a virtual clock, for tests of code that waits (pacing, flood windows,
retry_after) without I/O: what they see depends on the code only, never on the machine's load."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock jumps to its next timer whenever nothing else is ready: sleeps
    and timeouts take no real time, and what a test sees depends on the code only, never on
    how busy the machine is (for code without I/O)."""

    def __init__(self) -> None:
        super().__init__()
        self._now = 0.0

    def time(self) -> float:
        return self._now

    def _run_once(self) -> None:
        scheduled = self._scheduled  # type: ignore[attr-defined]
        if not self._ready and scheduled:  # type: ignore[attr-defined]
            self._now = max(self._now, scheduled[0].when())
        super()._run_once()  # type: ignore[misc]


def run_in_virtual_time(scenario: Callable[[asyncio.AbstractEventLoop], Awaitable[None]]) -> None:
    """Run ``scenario(loop)`` to the end on a :class:`VirtualTimeLoop`."""
    loop = VirtualTimeLoop()
    try:
        loop.run_until_complete(scenario(loop))
    finally:
        loop.close()
