"""The table's audience message (the group's table, or each seat's in a tournament): how it is
drawn from public facts only, the outbox's jobs that bring it up to date without the table's
lock, and the short messages the audience is told."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from bot.core.table import DEAL, RESULT, Table
from bot.game.context import GameContext
from bot.game.deal.common import padded, seconds_left
from bot.game.drawing import Drawing
from bot.game.outlet import WATCHER, Unreachable
from bot.presentation import scenes, views
from images import render_table

#: The key of the audience's table message in ``TableMessages.rendered`` /
#: ``TableMessages.pictured``.
TABLE = "table"


class TablePicture:
    """Draws and updates the audience's table message of every table, and tells the audience
    things."""

    def __init__(self, ctx: GameContext) -> None:
        self.ctx = ctx

    def table_drawing(self, table: Table) -> Drawing:
        """The audience's table message: in pictures mode the table's picture from public facts
        only (:func:`bot.presentation.scenes.table_scene`) with the table text as caption. The
        picture is a palette PNG: about 40 % of the table's JPEG and no slower to render."""
        assert table.state is not None
        view = table.state.view(0)
        seconds = seconds_left(table)
        text, markup = views.table_view(table, view, seconds, table.messages.notice)
        if not table.options.pictures:
            return Drawing(text, markup)
        scene = scenes.table_scene(table, view, seconds)
        return Drawing(text, markup, scene, partial(render_table, scene, fmt="PNG"), "table.png")

    def update_table(self, table: Table) -> None:
        """Ask the outlet to bring the audience's table message to the current state; the
        outbox runs :meth:`_table_job` when the chat's flood budget allows (never waits)."""
        key = table.key
        if table.competition.tournament is not None:  # each seat sees the table in its private chat
            for seat, player in table.humans():
                if player.user_id is not None and not player.blocked:
                    self.ctx.outlet.update_audience(f"{key}#view{seat}", player.user_id,
                                                    _TableJob(self, key, seat))
            for user_id in table.messages.watchers:
                self.update_watch(table, user_id)
            return
        self.ctx.outlet.update_audience(key, table.chat_id, _TableJob(self, key))

    def update_watch(self, table: Table, user_id: int) -> None:
        """Ask the outlet to bring the message of a member who watches tournament table
        ``table`` (观战, :attr:`TableMessages.watchers`) to its current state: the table's picture
        as its seats see it, without buttons and never a hand, edited in place at a watcher's
        rank in the member's private chat (the outbox paces it; never waits)."""
        self.ctx.outlet.update_seat(f"{table.key}#watch{user_id}", user_id,
                                    _TableJob(self, table.key, watcher=user_id))

    def watch(self, table: Table, user_id: int) -> int | None:
        """``user_id`` watches tournament table ``table`` (观战) from now on, in a new message
        of their private chat (:meth:`update_watch`; lock held); returns the message that
        showed it to them so far, if any (the caller deletes it)."""
        old = self.unwatch(table, user_id)
        table.messages.watchers[user_id] = (None, False)
        self.update_watch(table, user_id)
        return old

    def unwatch(self, table: Table, user_id: int) -> int | None:
        """``user_id`` watches ``table`` no more (lock held); returns the message that showed
        it to them, if it was sent."""
        shown = table.messages.watchers.pop(user_id, None)
        mark = _viewed(None, user_id)
        table.messages.rendered.pop(mark, None)
        table.messages.pictured.pop(mark, None)
        return None if shown is None else shown[0]

    async def _prepare_table(self, key: str, viewer: int | None = None,
                             watcher: int | None = None) -> None:
        """Render the picture the table's audience message is about to show (the outbox calls
        this just before the chat's slot): its edit then goes as soon as the slot is there,
        not a render later (the table's lag at the flood limit's floor)."""
        table = self.ctx.tables.get(key)
        if table is None or table.state is None or table.phase not in (DEAL, RESULT):
            return
        drawing = self.table_drawing(table)
        if drawing.render is not None \
                and drawing.key != table.messages.pictured.get(_viewed(viewer, watcher)):
            await self.ctx.outlet.prepare(drawing)

    def _table_fresh(self, key: str, viewer: int | None = None,
                     watcher: int | None = None) -> bool:
        """Nothing of the running deal was drawn on the audience's message yet (dealt, or
        dealt again after everybody passed): its first picture is new to the audience, so the
        outbox sends it at the chat's first free slot, not at an edit's pace."""
        table = self.ctx.tables.get(key)
        return table is not None and table.state is not None and table.phase == DEAL \
            and _viewed(viewer, watcher) not in table.messages.rendered

    async def _table_job(self, key: str, viewer: int | None = None,
                         watcher: int | None = None) -> bool:
        """Draw the table's latest state on its audience message, without the table's lock (the
        outbox's job); ``False`` when nothing changed. A message that is gone or changes between
        text and picture is posted again, and the table stored with its new id."""
        table = self.ctx.tables.get(key)
        if table is None or table.state is None:
            return False
        if table.phase not in (DEAL, RESULT):
            return False
        drawing = self.table_drawing(table)
        if watcher is not None:
            return await self._watch_job(table, watcher, drawing)
        if viewer is not None:
            return await self._view_job(table, viewer, drawing)
        if table.messages.rendered.get(TABLE) == drawing.signature:
            return False
        before = (table.messages.message_id, table.messages.message_photo)
        try:
            shown = await self.ctx.outlet.present(
                table.chat_id, table.messages.message_id, table.messages.message_photo,
                table.messages.pictured.get(TABLE), drawing, table.thread_id)
        except Unreachable:
            return True
        if shown is None:
            return True
        table.messages.pictured[TABLE] = drawing.key
        table.messages.rendered[TABLE] = drawing.signature
        if shown != before:
            # stored under the table's lock: a step stored meanwhile (here or, with several
            # workers, elsewhere: the lock reloads it) is not overwritten by this copy
            async with self.ctx.tables.lock(key):
                current = self.ctx.tables.get(key)
                if current is not None \
                        and (current.messages.message_id, current.messages.message_photo) == before:
                    current.messages.message_id, current.messages.message_photo = shown
                    await self.ctx.save(current)
        return True

    async def _view_job(self, table: Table, viewer: int, drawing: Drawing) -> bool:
        """A tournament table's picture in seat ``viewer``'s private chat (the outbox's job,
        without the table's lock; :meth:`_table_job`); ``False`` when nothing changed."""
        mark = _viewed(viewer)
        player = table.seats[viewer] if viewer < len(table.seats) else None
        if player is None or player.user_id is None or table.messages.rendered.get(mark) == \
                drawing.signature:
            return False
        ids = padded(list(table.messages.view_message_ids), len(table.seats))
        photos = table.messages.view_photos
        photos = photos + [False] * (len(table.seats) - len(photos))
        before = (ids[viewer], photos[viewer])
        try:
            shown = await self.ctx.outlet.present(player.user_id, before[0], before[1],
                                                  table.messages.pictured.get(mark), drawing)
        except Unreachable:
            return True
        if shown is None:
            return True
        table.messages.pictured[mark] = drawing.key
        table.messages.rendered[mark] = drawing.signature
        if shown != before:
            # not under the table's lock: its holder may be waiting for this very chat (the
            # seat's hand); the ids are stored with the table's next step
            ids = padded(list(table.messages.view_message_ids), len(table.seats))
            photos = table.messages.view_photos
            photos = photos + [False] * (len(table.seats) - len(photos))
            if (ids[viewer], photos[viewer]) == before:
                ids[viewer], photos[viewer] = shown
                table.messages.view_message_ids, table.messages.view_photos = ids, photos
        return True

    async def _watch_job(self, table: Table, user_id: int, drawing: Drawing) -> bool:
        """A tournament table's picture in the private chat of a member who watches it (the
        outbox's job, without the table's lock; :meth:`update_watch`): the seats' table
        message without its buttons; ``False`` when nothing changed or they watch no more. A
        member the bot cannot write to stops watching."""
        mark = _viewed(None, user_id)
        watched = Drawing(drawing.text, None, drawing.key, drawing.render, drawing.filename)
        before = table.messages.watchers.get(user_id)
        if before is None or table.messages.rendered.get(mark) == watched.signature:
            return False
        try:
            shown = await self.ctx.outlet.present(user_id, before[0], before[1],
                                                  table.messages.pictured.get(mark), watched,
                                                  rank=WATCHER)
        except Unreachable:
            self.ctx.private_chats.unreachable(user_id)
            table.messages.watchers.pop(user_id, None)
            return True
        if shown is None:
            return True
        table.messages.pictured[mark] = watched.key
        table.messages.rendered[mark] = watched.signature
        if shown != before and table.messages.watchers.get(user_id) == before:
            table.messages.watchers[user_id] = shown  # stored with the table's next step
        return True

    def say(self, table: Table, text: str) -> None:
        """Tell the table's audience something in a short message of its own (sent in the
        background: never waits for the chat's flood budget); at a tournament's table, each
        seat's player in their private chat."""
        if table.competition.tournament is not None:
            for _, player in table.humans():
                if player.user_id is not None and not player.blocked:
                    self.ctx.outlet.tell(player.user_id, text)
            return
        self.ctx.outlet.tell(table.chat_id, text, table.thread_id)


@dataclass(frozen=True)
class _TableJob:
    """The outbox's job for a table's audience message (:meth:`TablePicture._table_job`), with
    :meth:`prepare` for the picture it will draw (:meth:`TablePicture._prepare_table`)."""

    picture: TablePicture
    key: str
    viewer: int | None = None  # a tournament table's seat whose private chat shows it
    watcher: int | None = None  # a member who watches a tournament table (user id)

    async def __call__(self) -> bool:
        return await self.picture._table_job(self.key, self.viewer, self.watcher)

    async def prepare(self) -> None:
        await self.picture._prepare_table(self.key, self.viewer, self.watcher)

    def fresh(self) -> bool:
        """The deal's table was not drawn yet: its first picture is new to the group."""
        return self.picture._table_fresh(self.key, self.viewer, self.watcher)


def _viewed(viewer: int | None, watcher: int | None = None) -> str:
    """The ``rendered``/``pictured`` key of the table message seen by ``viewer`` (a
    tournament table's seat), by ``watcher`` (a member who watches it, by user id), or of the
    audience's (both ``None``)."""
    if watcher is not None:
        return f"{TABLE}@{watcher}"
    return TABLE if viewer is None else f"{TABLE}{viewer}"
