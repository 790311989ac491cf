"""Whether the bot can write to a user privately, as far as this process has seen.

Telegram tells only by trying: a private message to a user who never opened a chat with the
bot (or who blocked it) is refused with 403 (:class:`~bot.game.outlet.Unreachable`). A press
that needs the private chat (Join, a challenge's Enter, a tournament's Sign up) would otherwise
learn it only after its answer; what was learned before lets it answer at once with a link that
opens the bot's chat instead (:func:`bot.telegram.handlers.common.ask_private_first`).

Learned from: a private message sent or refused (a Join's welcome, a challenge's welcome, a
seat's hand) and ``/start`` in the private chat (the user opened it). Kept in memory per process
(a restart, or another worker, starts not knowing: such a press is answered neutrally and the
player is told the outcome when the first message is tried).
"""

from __future__ import annotations

from collections import OrderedDict

#: How many users' answers are kept (the least recently learned go first).
MAX_KNOWN = 100_000


class PrivateChats:
    """What this process learned of each user's private chat with the bot.

    >>> chats = PrivateChats()
    >>> chats.known(7) is None
    True
    >>> chats.unreachable(7); chats.known(7)
    False
    >>> chats.reached(7); chats.known(7)
    True
    """

    def __init__(self, max_known: int = MAX_KNOWN) -> None:
        self._known: OrderedDict[int, bool] = OrderedDict()
        self._max = max_known

    def known(self, user_id: int) -> bool | None:
        """``True``: the bot wrote to the user privately (or they started the chat) last time;
        ``False``: the last private message was refused; ``None``: not known here."""
        return self._known.get(user_id)

    def reached(self, user_id: int) -> None:
        """A private message reached the user, or they wrote to the bot privately."""
        self._learn(user_id, True)

    def unreachable(self, user_id: int) -> None:
        """A private message to the user was refused (never started, or blocked)."""
        self._learn(user_id, False)

    def _learn(self, user_id: int, reachable: bool) -> None:
        self._known[user_id] = reachable
        self._known.move_to_end(user_id)
        while len(self._known) > self._max:
            self._known.popitem(last=False)
