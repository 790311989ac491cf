"""The AI off the event loop: bot decisions and hints in a worker thread pool,
each with a deadline, so that a slow decision at one table never delays another table's press.

A decision that misses its deadline is replaced by the seeds' simple rule
(``engine.auto_action``, RULES.md §9), which needs no search; a hint that misses it offers
nothing. Work is submitted with the engine's own immutable values (``SeatView``), so nothing is
shared with the event loop while it runs.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from engine import Action, DealState, auto_action
from engine.ai import Advice, choose_action, hint_advice

log = logging.getLogger(__name__)

#: Seconds a decision may take before the simple rule plays instead.
DECISION_DEADLINE = 2.0
#: Seconds a hint may take before the player is told there is none.
HINT_DEADLINE = 1.0


class AiWorker:
    """A small thread pool running ``engine.ai`` for every table of the process.

    Args:
        workers: threads (at least 1).
        decision_deadline, hint_deadline: seconds, see the module docstring.
    """

    def __init__(self, workers: int = 2, *, decision_deadline: float = DECISION_DEADLINE,
                 hint_deadline: float = HINT_DEADLINE) -> None:
        self._pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="ddz-ai")
        self.decision_deadline = decision_deadline
        self.hint_deadline = hint_deadline

    async def decide(self, state: DealState, seat: int, level: str, *,
                     seed: str | None = None) -> Action:
        """The AI's action for ``seat`` at ``level``; the seeds' rule if it is late or fails.
        ``seed`` makes the decision reproducible (a duplicate challenge's AI seats)."""
        loop = asyncio.get_running_loop()
        decide = partial(choose_action, state.view(seat), level)
        if seed is not None:
            decide = partial(decide, seed=seed)
        future = loop.run_in_executor(self._pool, decide)
        try:
            return await asyncio.wait_for(future, self.decision_deadline)
        except TimeoutError:
            log.warning("AI decision for seat %s missed its %.1f s deadline", seat,
                        self.decision_deadline)
        except Exception:
            log.exception("AI decision for seat %s failed", seat)
        return auto_action(state, seat)

    async def hints(self, state: DealState, seat: int) -> Advice:
        """What Hint offers ``seat`` (``engine.ai.hint_advice``): whether the AI would pass, and
        the plays best first; no advice and no plays if late."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._pool, hint_advice, state.view(seat))
        try:
            return await asyncio.wait_for(future, self.hint_deadline)
        except TimeoutError:
            log.warning("hint for seat %s missed its %.1f s deadline", seat, self.hint_deadline)
            return Advice(False, [])

    def shutdown(self) -> None:
        """Stop the threads (work in progress finishes; nothing new starts)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
