"""The game layer's entry points (:class:`Game`): what handlers and timers call.

Handlers parse an update, take the table's lock (``game.tables.lock(key)``), call one of these and
answer; they never reach into the driver's internals. A table is addressed by its key
(:func:`bot.core.table.table_key` of the audience's chat and topic) or by the token its buttons
carry (``game.tables.by_token``).
"""

from __future__ import annotations

from bot.core.selection import hint_order, tap
from bot.core.settings import Settings
from bot.core.table import DEAL, Table, Tables
from bot.features.challenge.driver import Challenges
from bot.features.match.driver import Matches
from bot.features.tournament.driver import Tournaments
from bot.game.again import PlayAgain
from bot.game.ai import AiWorker
from bot.game.context import GameContext
from bot.game.deal import Ack, DealDriver
from bot.game.lobby import Lobby, Person
from bot.game.migration import move_tables
from bot.game.outlet import PRESSER, Outlet
from bot.game.restore import restore
from bot.store import Store
from engine import Action
from engine.combos import Play

__all__ = ["Game", "Person"]


class Game:
    """Every table of this process and the code that runs them.

    Args:
        store, settings, outlet: see :class:`~bot.game.context.GameContext`.
        ai: the AI worker (default: ``settings.ai_workers`` threads).
        deal_seed, first_bidder: test hooks (see :class:`~bot.game.context.GameContext`); also
            settable later as attributes of the same name.
        bot_username: the bot's @username, for deep links.
    """

    def __init__(self, store: Store, settings: Settings, outlet: Outlet, *,
                 ai: AiWorker | None = None, deal_seed: int | None = None,
                 first_bidder: int | None = None, bot_username: str = "") -> None:
        self.ctx = GameContext(store, settings, outlet, Tables(),
                               ai or AiWorker(settings.ai_workers), bot_username=bot_username,
                               deal_seed=deal_seed, first_bidder=first_bidder)
        self.deals = DealDriver(self.ctx)
        self.lobby = Lobby(self.ctx, self.deals)
        self.again = PlayAgain(self.ctx, self.lobby, self.deals)
        self.deals.on_offer = self.again.arm
        self.matches = Matches(self.ctx, self.lobby, self.deals)
        self.challenges = Challenges(self.ctx, self.deals)
        self.tournaments = Tournaments(self.ctx, self.deals)

    @property
    def tables(self) -> Tables:
        """The registry of tables (locks, seats, tokens)."""
        return self.ctx.tables

    @property
    def deal_seed(self) -> int | None:
        """Test hook: the shuffle's seed of every deal (``None``: random)."""
        return self.ctx.deal_seed

    @deal_seed.setter
    def deal_seed(self, seed: int | None) -> None:
        self.ctx.deal_seed = seed

    @property
    def first_bidder(self) -> int | None:
        """Test hook: the first bidder of a table's first deal (``None``: random)."""
        return self.ctx.first_bidder

    @first_bidder.setter
    def first_bidder(self, seat: int | None) -> None:
        self.ctx.first_bidder = seat

    async def restore(self) -> None:
        """Reload stored tables and running deals after a start (:mod:`bot.game.restore`)."""
        await restore(self.ctx, self.lobby, self.deals)
        await self.matches.restore()
        await self.challenges.restore(alone=True)  # one process: no claim of another lives
        await self.tournaments.restore(alone=True)  # one process: no claim of another lives

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        """A group became a supergroup: move its open tables to the new id (timers, messages;
        :mod:`bot.game.migration`), after the store moved its rows; returns how many moved."""
        moved = await move_tables(self.ctx, self.lobby, self.deals, old_chat_id, new_chat_id)
        return moved + await self.challenges.chat_migrated(new_chat_id)

    async def close_table(self, table: Table, text: str) -> None:
        """Forget the table and replace its audience message by ``text`` (lock held)."""
        await self.ctx.close_table(table, text)

    def shutdown(self) -> None:
        """Stop the AI worker's threads."""
        self.ctx.ai.shutdown()

    def group_settings_changed(self, chat_id: int, group: dict) -> None:
        """A group's settings changed. Rules, stake and timeouts count from the next deal (the
        running one keeps its snapshot); ``pictures`` (how messages look) applies to the running
        deals from their next change."""
        pictures = bool(group.get("pictures", True))
        for table in self.tables:
            if table.chat_id == chat_id and table.phase == DEAL \
                    and table.options.pictures != pictures:
                table.options.pictures = pictures
                table.messages.rendered.clear()

    # --- Presses of a seated player (lock held) ------------------------------------------------

    async def act(self, table: Table, seat: int, action: Action, ack: Ack) -> None:
        """A seat's decision (bid, double, show, pass, play, auto-play, leave): see
        :meth:`bot.game.deal.DealDriver.act`. ``ack`` answers the press once accepted.

        Raises:
            IllegalAction: refused; nothing changed, ``ack`` not called (the handler answers
                with the error's code, reading and reason).
        """
        self._back(table, seat)
        await self.deals.act(table, action, ack=ack, presser=seat)

    async def redraw_hand(self, table: Table, seat: int) -> None:
        """Draw the seat's hand message again after a press that changed no state (a
        selection, Hint, Clear, an auto-play switch already so): edited only if what it shows
        changed, not for the seconds left alone (Hint saying to pass costs no edit).
        It is the presser's own hand: it goes first in the token's line (:data:`PRESSER`), as
        after a play (at 10 tables of three humans a Hint's edit drawn at a prompt's
        rank waited behind other tables' prompts, p95 324 ms)."""
        self._back(table, seat)
        await self.deals.show_hand(table, seat, clock=False, rank=PRESSER)

    @staticmethod
    def _back(table: Table, seat: int) -> None:
        """A press from the seat's private chat: if it was marked blocked, the player is back
        and their hand is drawn again."""
        player = table.seats[seat]
        if player.blocked:
            player.blocked = False
            table.messages.rendered.pop(seat, None)

    def select(self, table: Table, seat: int, rank: int) -> bool:
        """Tap a rank of the hand keyboard (lock held): cycles how many cards of that rank are
        selected; ``False`` (nothing changed) for a rank the hand does not hold."""
        assert table.state is not None
        view = table.state.view(seat)
        if rank not in view.hand_ranks:
            return False
        selections = table.progress.selections
        selections[seat] = tap(view.hand_ranks, selections[seat], rank)
        return True

    def clear(self, table: Table, seat: int) -> None:
        """Clear the seat's selection (lock held)."""
        table.progress.selections[seat] = []

    async def hint(self, table: Table, seat: int) -> str | None:
        """Select the next hint (lock held): every legal play in turn, the AI's recommendation
        (computed off the event loop) first, then the others from the lowest up, bombs and the
        rocket last (:func:`bot.core.selection.hint_order`; the advice was asked for when the turn
        was drawn: :meth:`bot.game.deal.DealDriver.advice`). When the AI's own choice is to pass
        (e.g. a partner's play wins the trick), the cycle starts with Pass instead, so Hint never
        opens with a bomb over the partner. Returns ``"play"`` (a play is
        selected), ``"pass"`` (the selection is cleared: the caller says to pass), or ``None``
        when nothing can be played."""
        plays = await self._hint_cycle(table, seat)
        if not plays:
            return None
        choice = plays[table.progress.hint_index[seat] % len(plays)]
        table.progress.hint_index[seat] += 1
        table.progress.selections[seat] = [] if choice is None else sorted(choice.cards)
        return "pass" if choice is None else "play"

    async def next_hint(self, table: Table, seat: int) -> str | None:
        """What :meth:`hint` would return now, changing nothing (a press answered before its
        table's lock)."""
        plays = await self._hint_cycle(table, seat)
        if not plays:
            return None
        return "pass" if plays[table.progress.hint_index[seat] % len(plays)] is None else "play"

    async def _hint_cycle(self, table: Table, seat: int) -> list[Play | None]:
        assert table.state is not None
        legal = table.state.view(seat).legal_plays()
        if not legal:
            return []
        advice = await self.deals.advice(table, seat)
        if advice.pass_first:
            return [None, *hint_order(legal)]
        return list(hint_order(legal, advice.plays))
