"""What every part of the game layer shares: the store, the bot's settings, the outlet, the table
registry, the AI worker and the test hooks, plus the few steps they all take (read a group's
settings snapshot, store a table, close a table)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from bot.core.settings import Settings
from bot.core.table import SeatClaims, Table, Tables
from bot.game import timers
from bot.game.ai import AiWorker
from bot.game.config import TableConfig
from bot.game.outlet import Outlet
from bot.game.reach import PrivateChats
from bot.store import Store


@dataclass
class GameContext:
    """The services of the game layer.

    Attributes:
        store: the open store. settings: the bot's settings. outlet: see :mod:`bot.game.outlet`.
        tables: every table of this process (one seat per player, one lock per table).
        ai: the AI worker (decisions and hints off the event loop).
        bot_username: the bot's @username, for deep links in lobbies.
        deal_seed: test hook: fixes every deal's shuffle (plus the redeals in a row, so a redeal
            deals other cards); ``None``: random.
        first_bidder: test hook: the first bidder of a table's first deal; ``None``: random.
        seat_claims: with several worker processes, the seats being taken and given up on
            any of them (players being seated, Joins answered as seated, Leaves on their way:
            :class:`~bot.core.table.SeatClaims`); ``None``: this process alone.
        private_chats: whether each user's private chat took this process's messages
            (:class:`~bot.game.reach.PrivateChats`).
    """

    store: Store
    settings: Settings
    outlet: Outlet
    tables: Tables
    ai: AiWorker
    bot_username: str = ""
    deal_seed: int | None = None
    first_bidder: int | None = None
    seat_claims: SeatClaims | None = None
    private_chats: PrivateChats = field(default_factory=PrivateChats)

    async def config(self, table: Table) -> TableConfig:
        """The table's group settings now, frozen (:class:`~bot.game.config.TableConfig`); a
        private table (``/practice``) keeps its own language and plays for no beans."""
        group = await self.store.get_group_settings(table.chat_id)
        config = TableConfig.of(group, default_language=self.settings.default_language,
                                play_timeout=self.settings.play_timeout,
                                bid_timeout=self.settings.bid_timeout,
                                default_hands=self.settings.default_hands)
        if table.private:
            config = replace(config, lang=table.lang, min_balance=0, hands="private")
        return config

    async def save(self, table: Table) -> None:
        """Store the table's persistent value (not the engine state: that goes with the deal)."""
        await self.store.save_table(table.key, table.to_dict())

    def cancel_timers(self, key: str) -> None:
        """Cancel every timer of table ``key``."""
        for kind in timers.KINDS:
            self.outlet.cancel(kind, key)

    async def close_table(self, table: Table, text: str) -> None:
        """Forget the table and replace its audience message by ``text`` (lock held)."""
        self.cancel_timers(table.key)
        self.tables.remove(table)
        await self.store.delete_table(table.key)
        if table.messages.message_id is not None:
            await self.outlet.close(table.chat_id, table.messages.message_id,
                                    table.messages.message_photo, text)
