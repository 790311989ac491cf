"""The deal driver's façade: :class:`DealDriver`, what the lobby, the features, restore and the
Telegram layer call, composed of the parts that do the work (see :mod:`bot.game.deal`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.core.table import Table
from bot.game import timers
from bot.game.config import TableConfig
from bot.game.context import GameContext
from bot.game.deal.dealing import Dealer
from bot.game.deal.hands import Hands
from bot.game.deal.hooks import ChallengeHook, MatchHook, Standings
from bot.game.deal.notices import Notices
from bot.game.deal.picture import TablePicture
from bot.game.deal.play import Ack, Play
from bot.game.deal.result import Results
from bot.game.drawing import Drawing
from engine import Action
from engine.ai import Advice


class DealDriver:
    """Runs the deals of every table: the methods below hand each call to its part. Those whose
    docstring says "lock held" must be called under the table's lock (``Tables.lock``); the
    timers take it themselves."""

    def __init__(self, ctx: GameContext) -> None:
        self.ctx = ctx
        #: The competitions (set by :class:`bot.features.service.Game`); used at match tables only.
        self.match: MatchHook | None = None
        #: Arms the Play again timeout of a table whose result offers it
        #: (:meth:`bot.game.again.PlayAgain.arm`, set by :class:`bot.features.service.Game`).
        self.on_offer: Callable[[Table], None] | None = None
        #: The duplicate challenges (set by :class:`bot.features.service.Game`); used at challenge
        #: tables only.
        self.challenge: ChallengeHook | None = None
        #: The group tournaments (set by :class:`bot.features.service.Game`); used at tournament
        #: tables only.
        self.tournament: MatchHook | None = None
        #: The audience's table message.
        self.picture = TablePicture(ctx)
        #: The players' hand messages.
        self.hands = Hands(ctx)
        #: The turn and auto-play notices.
        self.notices = Notices(ctx, self.picture)
        #: The end of a deal: settled, shown, its result posted; or stopped.
        self.results = Results(ctx, self, self.hands, self.picture, self.notices)
        #: Dealing and dealing again.
        self.dealer = Dealer(ctx, self, self.hands, self.picture, self.notices, self.results)
        #: Actions, the steps after them, and the timers.
        self.play = Play(ctx, self, self.hands, self.picture, self.notices, self.results,
                         self.dealer)

    @property
    def started(self) -> float:
        """When this process began taking updates (UTC seconds): :attr:`Play.started`."""
        return self.play.started

    @started.setter
    def started(self, value: float) -> None:
        self.play.started = value

    # --- Playing (bot.game.deal.play) ----------------------------------------------------------

    async def deal(self, table: Table, config: TableConfig | None = None,
                   barred: Sequence[bool] = ()) -> None:
        """Deal a new deal and show it (lock held): :meth:`Play.deal`."""
        await self.play.deal(table, config, barred)

    async def act(self, table: Table, action: Action, *, ack: Ack | None = None,
                  presser: int | None = None) -> None:
        """Apply ``action`` and everything it leads to (lock held): :meth:`Play.act`.

        Raises:
            IllegalAction: the engine refused ``action``; nothing changed and ``ack`` was not
                called.
        """
        await self.play.act(table, action, ack=ack, presser=presser)

    async def advance(self, table: Table) -> None:
        """Show the current state, then finish the deal or schedule its next step (lock held):
        :meth:`Play.advance`."""
        await self.play.advance(table)

    async def redeal_now(self, table: Table) -> None:
        """Deal again a deal whose stored state says everybody passed (lock held):
        :meth:`Play.redeal_now`."""
        await self.play.redeal_now(table)

    async def leave(self, table: Table, seat: int, *, ack: Ack | None = None) -> None:
        """The seat's player leaves the running deal (lock held): :meth:`Play.leave`.

        Raises:
            IllegalAction: the engine refused (e.g. the seat already left).
        """
        await self.play.leave(table, seat, ack=ack)

    async def advice(self, table: Table, seat: int) -> Advice:
        """Hint's advice for ``seat`` in the table's current state: :meth:`Play.advice`."""
        return await self.play.advice(table, seat)

    async def on_bot_move(self, stamp: timers.Stamp) -> None:
        """Timer: the first bot or auto-play seat to act plays: :meth:`Play.on_bot_move`."""
        await self.play.on_bot_move(stamp)

    async def on_turn_timeout(self, stamp: timers.Stamp) -> None:
        """Timer: the turn's deadline passed: :meth:`Play.on_turn_timeout`."""
        await self.play.on_turn_timeout(stamp)

    async def on_clock(self, stamp: timers.Stamp) -> None:
        """Timer: a human's turn reached a clock mark: :meth:`Play.on_clock`."""
        await self.play.on_clock(stamp)

    async def on_notice(self, stamp: timers.Stamp) -> None:
        """Timer: the "your turn" notices are due: :meth:`Play.on_notice`."""
        await self.play.on_notice(stamp)

    # --- The hands (bot.game.deal.hands) -------------------------------------------------------

    async def show_hand(self, table: Table, seat: int, *, clock: bool = True,
                        rank: int | None = None) -> bool:
        """Send or edit one seat's hand message where it changed (lock held);
        ``False`` when the player's chat is closed to the bot: :meth:`Hands.show_hand`."""
        return await self.hands.show_hand(table, seat, clock=clock, rank=rank)

    async def bring_hand(self, table: Table, seat: int) -> bool:
        """🂠 My cards: send the seat's hand afresh in the group (lock held);
        ``False`` when it could not be sent: :meth:`Hands.bring_hand`."""
        return await self.hands.bring_hand(table, seat)

    def move_refusal(self, table: Table, seat: int, to_group: bool) -> str | None:
        """Why the seat's hand cannot move, as an i18n key, or ``None``:
        :meth:`Hands.move_refusal`."""
        return self.hands.move_refusal(table, seat, to_group)

    async def move_hand(self, table: Table, seat: int, to_group: bool) -> str | None:
        """Move the seat's hand into the group or the private chat (lock held); the i18n key
        of why not, if so: :meth:`Hands.move_hand`."""
        return await self.hands.move_hand(table, seat, to_group)

    # --- The audience (bot.game.deal.picture) --------------------------------------------------

    def table_drawing(self, table: Table) -> Drawing:
        """The audience's table message: :meth:`TablePicture.table_drawing`."""
        return self.picture.table_drawing(table)

    def say(self, table: Table, text: str) -> None:
        """Tell the table's audience something in a message of its own (in the background):
        :meth:`TablePicture.say`."""
        self.picture.say(table, text)

    def watch(self, table: Table, user_id: int) -> int | None:
        """``user_id`` watches tournament table ``table`` (观战) from now on (lock held); the
        message that showed it to them so far, if any: :meth:`TablePicture.watch`."""
        return self.picture.watch(table, user_id)

    def unwatch(self, table: Table, user_id: int) -> int | None:
        """``user_id`` watches ``table`` no more (lock held); the message that showed it to
        them, if any: :meth:`TablePicture.unwatch`."""
        return self.picture.unwatch(table, user_id)

    # --- The end of a deal (bot.game.deal.result) ----------------------------------------------

    def post_result(self, table: Table, points: list[int], beans: list[int],
                    standings: Standings | None = None) -> None:
        """Post the result of the table's last deal (in the background, until it was sent):
        :meth:`Results.post_result`."""
        self.results.post_result(table, points, beans, standings)

    async def post_due_result(self, table: Table) -> None:
        """Post the stored result of the table's last deal, still due (lock held):
        :meth:`Results.post_due_result`."""
        await self.results.post_due_result(table)

    async def close_hands(self, table: Table) -> None:
        """Take the buttons off the hand messages of a stopped deal (lock held):
        :meth:`Results.close_hands`."""
        await self.results.close_hands(table)

    async def stop(self, table: Table) -> None:
        """Cancel the running deal, nobody paying (lock held; the caller closes the table):
        :meth:`Results.stop`."""
        await self.results.stop(table)
