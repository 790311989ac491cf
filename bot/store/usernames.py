"""Usernames for ``/give @user`` and ``/audit @user``: Telegram offers no look-up
of a username, so the bot records who holds each one from the updates it sees, in the store
(:meth:`bot.store.Store.remember_username`), where every worker and every restart finds it.

:class:`UsernameBook` is what one process last stored per user, so that an update from a user
whose username and name did not change writes nothing: the first update of each user after a
start writes once (and again after a change of username or name), the rest only read memory.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from bot.store.records import username_key

if TYPE_CHECKING:
    from bot.store import Store

#: Users remembered; the least recently seen are forgotten first (they are written once more
#: when they come back).
MAX_USERS = 10_000


class UsernameBook:
    """Per user id, the (username, name) this process last stored, least recently seen first."""

    def __init__(self, limit: int = MAX_USERS) -> None:
        self.limit = limit
        self._stored: OrderedDict[int, tuple[str | None, str]] = OrderedDict()

    async def note(self, store: Store, user_id: int, username: str | None, name: str) -> bool:
        """Record that person ``user_id`` holds ``username`` (``None``: none) under display
        name ``name``, in the store unless this process stored exactly that last time.
        Returns ``True`` when it wrote. A store error propagates and nothing is remembered,
        so the next update tries again."""
        seen = (username_key(username), name)
        if self._stored.get(user_id) == seen:
            self._stored.move_to_end(user_id)
            return False
        await store.remember_username(user_id, username, name)
        self._stored[user_id] = seen
        self._stored.move_to_end(user_id)
        while len(self._stored) > self.limit:
            self._stored.popitem(last=False)
        return True

    def __len__(self) -> int:
        return len(self._stored)
