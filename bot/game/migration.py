"""A group upgraded to a supergroup: its open tables move to the new chat id.

The store moves what it keeps (:meth:`bot.store.Store.migrate_chat`, called by the migration
handler first); this module moves what lives in memory: each table of the old group gets the
new chat id (so its key and token registry entries), its timers are armed again under the new
key, and its group messages are posted again in the supergroup, since Telegram refuses every
call into the old id (``ChatMigrated``): a running deal's table message (then play goes on), a
lobby (with a fresh expiry), or a result still to post. Private messages (hands, notices) stay.
"""

from __future__ import annotations

import logging

from bot.core.table import DEAL, LOBBY, RESULT, Table, table_key
from bot.game.context import GameContext
from bot.game.deal import TABLE, DealDriver
from bot.game.lobby import LOBBY_MESSAGE, Lobby

log = logging.getLogger(__name__)


async def move_tables(ctx: GameContext, lobby: Lobby, deals: DealDriver, old_chat_id: int,
                      new_chat_id: int) -> int:
    """Move every open table of group ``old_chat_id`` to ``new_chat_id`` (see the module
    docstring); returns how many moved. Safe to repeat: the second of Telegram's two
    migration messages finds none. A table already open under the new id keeps its place; the
    old group's table is then closed (its deal cancelled: nobody pays)."""
    moved = 0
    for table in list(ctx.tables):
        if table.chat_id != old_chat_id or table.private:
            continue
        old_key = table.key
        new_key = table_key(new_chat_id, table.thread_id)
        async with ctx.tables.lock(old_key), ctx.tables.lock(new_key):
            if ctx.tables.get(old_key) is not table:
                continue
            if ctx.tables.get(new_key) is not None:
                log.warning("table %s: %s is taken; closing the old group's table", old_key,
                            new_key)
                if table.phase == DEAL:
                    await deals.stop(table)
                ctx.cancel_timers(old_key)
                ctx.tables.remove(table)
                await ctx.store.delete_table(old_key)
                continue
            await _move(ctx, lobby, deals, table, new_chat_id)
            moved += 1
    return moved


async def _move(ctx: GameContext, lobby: Lobby, deals: DealDriver, table: Table,
                new_chat_id: int) -> None:
    """Re-key one table and post its group message again (both tables' locks held)."""
    old_key = table.key
    ctx.cancel_timers(old_key)
    ctx.tables.remove(table)
    table.chat_id = new_chat_id
    table.messages.message_id = None  # the old group's messages answer ChatMigrated
    table.messages.message_photo = False
    for key in (TABLE, LOBBY_MESSAGE):
        table.messages.rendered.pop(key, None)
        table.messages.pictured.pop(key, None)
    table.messages.leave_prompts = [None] * len(table.seats)
    ctx.tables.add(table)
    await ctx.store.delete_table(old_key)  # a save that raced the store's move
    await ctx.save(table)
    log.info("table %s moved to %s (%s)", old_key, table.key, table.phase)
    if table.phase == DEAL:
        await deals.advance(table)
    elif table.phase == LOBBY:
        if not await lobby.post_lobby(table):
            log.warning("lobby of %s could not be posted in the supergroup", table.key)
    elif table.phase == RESULT:
        table.messages.result_message_id = None  # in the old group
        if table.progress.result_due:
            await deals.post_due_result(table)
        if table.progress.ready and deals.on_offer is not None:
            deals.on_offer(table)
