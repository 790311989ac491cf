"""The game layer's one interface to the outside world.

A table's **audience** is a chat (``chat_id``, and ``thread_id`` in a forum topic): a group, a
topic, or a player's private chat (``/practice``). Each human **seat** has a private message with
its hand, in the chat ``seat.user_id``. The game layer says what these messages should show now
(:class:`~bot.game.drawing.Drawing`) and which timers to arm; the outlet decides how (edits,
uploads, flood budgets, retries). :class:`bot.telegram.outlet.telegram.TelegramOutlet` implements it
with the Bot API and PTB's JobQueue; tests may implement it with anything.

Failures the game must know about come back as :class:`Unreachable` (the chat is closed to the
bot: that seat goes on auto-play); every other failure is the outlet's (logged, retried, or the
message posted again).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol

from bot.game.drawing import Drawing
from bot.game.timers import Stamp
from bot.presentation.keyboards import Keyboard

#: How much a player feels a message being late, most first: the presser's own hand, the
#: prompt of a seat now to act, the audience's table, a seat that only watches. When the bot's
#: overall budget cannot carry every request at once, they are sent in this order
#: (:meth:`Outlet.present` ``rank``).
PRESSER, PROMPT, AUDIENCE, WATCHER = 0, 1, 2, 3

#: A timer's callback: called with the stamp it was armed with.
TimerCallback = Callable[[Stamp], Awaitable[None]]
#: Called once a posted message was sent (:meth:`Outlet.post`), with its message id.
Sent = Callable[[int], Awaitable[None]]


class Claim(Protocol):
    """A claim on sending one new message (:meth:`Outlet.post`), for a message that must not be
    posted twice by two workers, or again after a worker died having sent it."""

    async def take(self) -> bool:
        """Right before the message is sent: ``False`` when it must not be (it was, or is
        being, posted by someone else)."""
        ...

    async def give_back(self) -> None:
        """The message could not be sent after :meth:`take`: it may be posted again."""
        ...


#: An audience message's job in the outbox: called when the chat's flood budget allows one
#: call; returns ``False`` when it found nothing to change (the budget is given back). A job
#: may also have an ``async prepare()`` method, called just before the chat's slot comes
#: (e.g. to render the picture it will send, :meth:`Outlet.prepare`); a ``fresh()`` method,
#: ``True`` when what it will send is new to the chat (a deal's first table picture: it goes
#: at the chat's first free slot after the replies to commands, not at an edit's pace);
#: and a ``board`` attribute, ``True`` for a lobby's or a board's message (:class:`BoardJob`:
#: its edits go after the tables' pictures in a group's line, :mod:`bot.telegram.outlet.limiter`).
OutboxJob = Callable[[], Awaitable[bool]]


@dataclass(frozen=True)
class BoardJob:
    """The :data:`OutboxJob` ``job`` of a lobby's or a board's message (``board``: in a
    group's line its edits come after the replies to commands and the tables' pictures)."""

    job: OutboxJob
    board: ClassVar[bool] = True

    async def __call__(self) -> bool:
        return await self.job()


class Unreachable(Exception):
    """The bot cannot write to this chat (the user blocked it, or never started it)."""


class Outlet(Protocol):
    """What the game layer needs from the outside (see the module docstring)."""

    async def present(
        self, chat_id: int, message_id: int | None, is_photo: bool, shown_key: object,
        drawing: Drawing, thread_id: int | None = None, *, rank: int = PROMPT,
    ) -> tuple[int, bool] | None:
        """Make message ``message_id`` (a photo if ``is_photo``, showing the picture of
        ``shown_key``) show ``drawing``, editing in place where possible; returns the id of the
        message that shows it now and whether it is a photo, or ``None`` when it failed (logged).
        ``rank`` (:data:`PRESSER` … :data:`WATCHER`): how soon it must go when the bot's
        requests wait for its overall budget (by default a prompt's: what is drawn under a
        lock must not wait behind the outbox's table edits).

        Raises:
            Unreachable: the chat is closed to the bot.
        """
        ...

    async def present_hand(
        self, chat_id: int, receiver_id: int, ephemeral_id: int | None, is_photo: bool,
        shown_key: object, drawing: Drawing, *, rank: int = PROMPT,
    ) -> tuple[int, bool] | None:
        """A hand shown in the group: make the ephemeral message ``ephemeral_id`` that only
        ``receiver_id`` sees in group ``chat_id`` show ``drawing``, editing in place; a new one
        is sent when there is none or it cannot be edited any more, as far as Telegram lets
        the bot now (within 15 s of a press of the receiver's that is being handled, or at
        any time as the group's administrator). Returns ``(ephemeral_message_id, is_photo)``
        of the message that shows it now, or ``None`` when none does (the player's next press
        brings it). Needs no private chat: never raises :class:`Unreachable`."""
        ...

    async def withdraw_hand(self, chat_id: int, receiver_id: int, ephemeral_id: int) -> None:
        """Delete a hand shown in the group (:meth:`present_hand`); one gone already is no
        error."""
        ...

    def update_audience(self, key: str, chat_id: int, job: OutboxJob) -> None:
        """Ask for the table ``key``'s audience message to be brought up to date: ``job`` runs
        when ``chat_id``'s flood budget allows, reading the table's latest state then; a newer
        request replaces one not yet run (only the latest state is ever sent). Never waits."""
        ...

    def update_seat(self, key: str, chat_id: int, job: OutboxJob) -> None:
        """Ask for a seat's private message that only watches (``key`` names it) to be
        brought up to date in chat ``chat_id``: ``job`` runs in the background after the more
        wanted requests (:data:`WATCHER`), reading the table's latest state then; a newer
        request replaces one not yet run. Never waits."""
        ...

    async def prepare(self, drawing: Drawing) -> None:
        """Render ``drawing``'s picture now (kept for a moment), so that showing it soon after
        needs no render."""
        ...

    async def send(self, chat_id: int, text: str, markup: Keyboard | None = None,
                   thread_id: int | None = None, *, notify: bool = False,
                   rank: int | None = None) -> int | None:
        """Send a text message (``notify``: with a notification even where the chat is muted
        by default); its id, or ``None`` when it failed (logged). ``rank`` as for
        :meth:`present` (a Join's welcome, which a Start may wait for: :data:`PRESSER`);
        ``None``: the rank of what the caller runs in (a prompt's by default).

        Raises:
            Unreachable: the chat is closed to the bot.
        """
        ...

    def tell(self, chat_id: int, text: str, thread_id: int | None = None) -> None:
        """Send a short text message in the background, in order with the other messages told
        to that chat (failures are logged). Never waits (a group's flood budget may)."""
        ...

    def post(self, key: str, chat_id: int, drawing: Drawing,
             thread_id: int | None = None, *, sent: Sent | None = None,
             claim: Claim | None = None) -> None:
        """Send a new message showing ``drawing`` (a picture rendered in a worker thread, or
        text) in the background, once the chat's flood budget allows (``key`` names it, e.g.
        a deal's result); failures are logged. ``sent`` is awaited once the message was sent
        (not after a failure: the caller retries later). ``claim`` is taken right before the
        message is sent (not sent when refused) and given back when the send failed. New
        messages in one chat are sent in the order they were asked for. Never waits."""
        ...

    def posting(self, key: str) -> bool:
        """A :meth:`post` of ``key`` asked for in this process waits or is being sent (its
        ``sent`` not done yet): posting it again would post it twice."""
        ...

    async def close(self, chat_id: int, message_id: int, is_photo: bool, text: str) -> bool:
        """Replace a message's text (or caption) by ``text`` and take its keyboard away;
        ``False`` when it cannot be edited any more."""
        ...

    async def strip(self, chat_id: int, message_id: int) -> None:
        """Take a message's keyboard away, leaving its text or picture (failures are logged);
        in a group possibly later, when the chat's flood budget has a slot no other message
        wants (never waits for it)."""
        ...

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a message; one already gone is no error."""
        ...

    def arm(self, kind: str, stamp: Stamp, at: float, callback: TimerCallback) -> None:
        """Call ``callback(stamp)`` at the absolute UTC time ``at`` (however late), replacing the
        pending timer of ``kind`` for table ``stamp.key``."""
        ...

    def cancel(self, kind: str, key: str) -> None:
        """Cancel the pending timer of ``kind`` for table ``key``, if any."""
        ...
