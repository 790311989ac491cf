"""Telegram's answers to an edit that are not failures of the bot.

"Message is not modified" is success; any other ``BadRequest`` to an edit (message deleted, not
found, no photo in it) means the message cannot be edited any more. Every other Telegram error
(``Forbidden``, ``RetryAfter``) propagates to the caller.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable

from telegram.error import BadRequest

log = logging.getLogger(__name__)


def not_modified(exc: BadRequest) -> bool:
    """True for Telegram's harmless "message is not modified" answer."""
    return "not modified" in exc.message.lower()


async def edited(edit: Awaitable[object], method: str, chat_id: int) -> bool:
    """Await an edit request (``method`` names it in the log); ``True`` when done or when
    Telegram answers "message is not modified", ``False`` (logged) for any other
    ``BadRequest`` (the message cannot be edited any more). Other errors propagate."""
    try:
        await edit
        return True
    except BadRequest as exc:
        if not_modified(exc):
            return True
        log.info("%s in %s failed: %s", method, chat_id, exc.message)
        return False
