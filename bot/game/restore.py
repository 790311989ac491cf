"""Reloading every stored table and running deal after a start ("Survives restarts").

The one module that knows both the lobby and the deal driver.
"""

from __future__ import annotations

import logging

from bot.core.i18n import t
from bot.core.table import DEAL, LOBBY, RESULT, Table
from bot.game import timers
from bot.game.context import GameContext
from bot.game.deal import DealDriver
from bot.game.lobby import Lobby
from bot.store import StoreError
from engine import DealState

log = logging.getLogger(__name__)


async def restore(ctx: GameContext, lobby: Lobby, deals: DealDriver) -> None:
    """A running deal continues: hands are drawn again, timers get the time that was left (the
    deadlines are absolute), and the table message says play continues. A deal that had
    finished but was not settled is settled now (exactly once, the store makes sure). An open
    lobby gets its expiry back. A deal's result that was settled but not posted yet
    (``DealProgress.result_due``) is posted now; a result still waiting for answers to Play again
    gets its timeout back (``DealProgress.ready``, :mod:`bot.game.again`). Tables whose deal is
    gone and running deals without a table are cleaned up."""
    st = ctx.store
    running = {deal.deal_id: deal for deal in await st.running_deals()}
    restored: set[int] = set()
    for key, data in (await st.load_tables()).items():
        try:
            table = ctx.tables.get(key) or Table.from_dict(data)
        except ValueError as exc:
            log.warning("dropping stored table %s: %s", key, exc)
            await st.delete_table(key)
            continue
        if table.phase == DEAL:
            deal_id = table.progress.deal_id
            record = running.get(deal_id) if deal_id is not None else None
            if record is None and await _match_deal_settled(ctx, table):
                table.phase = RESULT  # settled just before the restart: its match deals on
            elif record is None:
                log.warning("table %s lost its deal %s; closing it", key, table.progress.deal_id)
                await st.delete_table(key)
                continue
            else:
                table.state = DealState.from_json(record.state_json)
                restored.add(record.deal_id)
        ctx.tables.add(table)
        async with ctx.tables.lock(key):
            if table.phase == DEAL:
                assert table.state is not None
                table.messages.notice = t("table.continues", table.lang)
                if table.state.phase == "redeal":
                    await deals.redeal_now(table)
                else:
                    await deals.advance(table)
            elif table.phase == RESULT:
                if table.progress.result_due:
                    await deals.post_due_result(table)
                if table.progress.ready and deals.on_offer is not None:
                    deals.on_offer(table)  # Play again's timeout (at once when it passed)
            elif table.phase == LOBBY:
                if timers.seconds_left(table.progress.lobby_deadline) <= 0:
                    await lobby.expire(table)
                else:
                    lobby.arm_expiry(table)
    for deal_id, deal in running.items():
        if deal_id not in restored:
            log.warning("cancelling deal %s of %s: its table is gone", deal_id, deal.table_key)
            await st.cancel_deal(deal_id)


async def _match_deal_settled(ctx: GameContext, table: Table) -> bool:
    """The table's deal is a match deal that was settled (with the match's state) before the
    table was stored again: the match resumes between deals (:meth:`Matches.restore`)."""
    if table.competition.match_id is None or table.progress.deal_id is None:
        return False
    try:
        deal = await ctx.store.get_deal(table.progress.deal_id)
    except StoreError:
        return False
    return deal.status == "settled"
