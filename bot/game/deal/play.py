"""Playing a deal: every change runs the same loop (:meth:`Play.act`). **Apply** the action to
the engine state (``engine.apply``; an :class:`engine.IllegalAction` leaves everything as it
was), acknowledge it to whoever asked (the press is answered before anything slow),
**persist** the state and the table's value in one store call, **show** what changed (the
presser's own hand first, the other hands, then the audience message through the outlet's
outbox) and **schedule** what the new state needs (a bot move, the turn's timeout, a "your
turn" notice, the clock's refreshes). Consequences of an action that are actions themselves (a
seat that cannot be written to goes on auto-play) are queued and run by the same loop; a
redeal starts a new deal in place; nothing calls back into display code.

The timers (:meth:`Play.on_bot_move`, :meth:`Play.on_turn_timeout`, :meth:`Play.on_clock`,
:meth:`Play.on_notice`) take the table's lock themselves; the AI thinks without it
(:class:`bot.game.ai.AiWorker`), and its move counts only if the state did not move on
meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence

from bot.core.i18n import t
from bot.core.table import DEAL, Table
from bot.game import timers
from bot.game.config import TableConfig
from bot.game.context import GameContext
from bot.game.deal.common import ACTIVE, hand_order, is_auto, running_deal_id, turn_timeout
from bot.game.deal.dealing import Dealer
from bot.game.deal.hands import Hands
from bot.game.deal.hooks import Hooks
from bot.game.deal.notices import Notices
from bot.game.deal.picture import TablePicture
from bot.game.deal.result import Results
from bot.game.outlet import PRESSER
from bot.presentation import views
from engine import Action, ActionKind, DealState, IllegalAction, apply, auto_action
from engine.ai import Advice

log = logging.getLogger(__name__)

#: The AI level of auto-play seats when the group chose "ai"; bot seats use the
#: group's ``bot_level``.
AUTOPLAY_LEVEL = "hard"
#: Seconds after the bot starts taking updates (:attr:`Play.started`) before a turn that
#: began before it started times out: presses made while the bot was down wait at Telegram
#: and are handled first (polling: the first getUpdates; webhook workers: Telegram's
#: redelivery), so a press made in time is not refused for a deadline that passed meanwhile.
RESTART_GRACE = 5.0

#: Called once the action is accepted, before anything is stored or shown (answers the press).
Ack = Callable[[], Awaitable[None]]


def _turn(state: DealState) -> tuple:
    """What makes a new turn (a fresh deadline): the phase and who is to act, except that in
    the doubling round the seats deciding one after another share one deadline."""
    return (state.phase, () if state.phase == "doubling" else state.to_act)


class Play:
    """Plays the deals of every table: actions, the steps that follow them, and the timers."""

    def __init__(self, ctx: GameContext, hooks: Hooks, hands: Hands, picture: TablePicture,
                 notices: Notices, results: Results, dealer: Dealer) -> None:
        self.ctx = ctx
        self.hooks = hooks
        self.hands = hands
        self.picture = picture
        self.notices = notices
        self.results = results
        self.dealer = dealer
        #: (table key, seat): Hint's advice for the seat to play, asked for when its turn was
        #: drawn (:meth:`advice`), with the state version it is for.
        self._advice: dict[tuple[str, int], tuple[int, asyncio.Task[Advice]]] = {}
        #: When this process began taking updates (UTC seconds; :func:`bot.telegram.app._post_init`
        #: sets it again once start-up is over): see :data:`RESTART_GRACE`.
        self.started = time.time()

    async def deal(self, table: Table, config: TableConfig | None = None,
                   barred: Sequence[bool] = ()) -> None:
        """Start a deal and show it (lock held): :meth:`Dealer.start` (with ``config`` and
        ``barred`` if given), then the same show and schedule steps as after an action."""
        await self.dealer.start(table, config=config, barred=barred)
        await self.advance(table)

    # --- Applying actions ----------------------------------------------------------------------

    async def act(self, table: Table, action: Action, *, ack: Ack | None = None,
                  presser: int | None = None) -> None:
        """Apply ``action`` and everything it leads to (lock held): the loop of the module
        docstring. ``ack`` is awaited once the action is accepted, before anything is stored or
        shown; ``presser`` (a seat) gets its hand message redrawn before the others.

        Raises:
            IllegalAction: the engine refused ``action``; nothing changed and ``ack`` was not
                called.
        """
        await self._apply(table, action, ack)
        await self.advance(table, presser=presser)

    async def _apply(self, table: Table, action: Action, ack: Ack | None = None) -> bool:
        """Apply one action to the table's state, await ``ack`` once the engine accepted it,
        then store it (lock held); ``True`` when the deal was dealt again (everybody passed)
        instead."""
        prev = table.state
        assert prev is not None
        state = apply(prev, action)
        if ack is not None:
            await ack()  # the press is answered before the store's write
        table.state = state
        table.messages.notice = None
        if action.kind not in (ActionKind.AUTOPLAY, ActionKind.SHOW):
            table.reset_turn_memory()
        if _turn(prev) != _turn(state):
            table.progress.deadline = (time.time() + turn_timeout(table, state) if state.to_act
                                       else None)
            self.dealer.fresh.add(table.key)
        if state.phase == "redeal":
            # stored first: a restart deals again from it (``redeal_now``)
            await self.ctx.store.save_deal_state(running_deal_id(table), state.version,
                                                 state.to_json())
            await self.dealer.redeal(table)
            return True
        if prev.landlord is None and state.landlord is not None:
            table.progress.redeals = 0
        if action.kind == ActionKind.LEAVE:
            table.seats[action.seat].left = True
        await self.ctx.store.save_deal_state(running_deal_id(table), state.version, state.to_json(),
                                             table.to_dict())
        return False

    async def advance(self, table: Table, queued: list[Action] | None = None,
                      presser: int | None = None) -> None:
        """Show the current state, then finish the deal or schedule the next step; actions that
        follow from what was shown (a seat that cannot be written to goes on auto-play) are
        applied in the same loop (lock held)."""
        queued = queued if queued is not None else []
        while True:
            state = table.state
            assert state is not None
            if table.phase != DEAL or self.ctx.tables.get(table.key) is not table:
                return  # closed (too many redeals) or moved on
            if state.phase == "finished":  # settled first: the hands show won or lost
                await self.results.finish(table, presser)
                return
            blocked = await self.show(table, presser)
            presser = None
            if table.key in self.dealer.fresh:
                self.dealer.fresh.discard(table.key)
                if state.to_act:  # the turn's clock starts when its prompt was drawn
                    table.progress.deadline = time.time() + turn_timeout(table, state)
            self.schedule(table)
            if self.ctx.settings.turn_notice_delay <= 0:
                await self.notices.send_notices(table)
            for seat in dict.fromkeys(blocked):
                if state.phase in ACTIVE and not state.autoplay[seat]:
                    name = views.seat_name(table.seats[seat], seat, table.lang)
                    self.picture.say(table, t("table.blocked", table.lang, name=name))
                    queued.append(Action(ActionKind.AUTOPLAY, seat, value=1))
            if not queued:
                return
            action = queued.pop(0)
            if table.state is None or table.state.phase not in ACTIVE \
                    or table.state.autoplay[action.seat]:
                continue
            await self._apply(table, action)

    async def redeal_now(self, table: Table) -> None:
        """Deal again a deal whose stored state says everybody passed (after a restart), and
        show it (lock held)."""
        await self.dealer.redeal(table)
        if table.phase == DEAL:
            await self.advance(table)

    async def show(self, table: Table, first: int | None = None) -> list[int]:
        """Bring every human's hand message (seat ``first`` before the others) and the
        audience's table message up to date (asked for right after the presser's own hand, so it
        is drawn while the other hands are); withdraw "your turn" notices of seats no longer to
        act. Returns the seats whose private chat is closed to the bot (marked ``blocked``)
        (lock held).

        The presser's hand and the prompts of the seats now to act are sent before this
        returns (the turn's clock starts when its prompt was sent); the hands of seats that
        only watch are brought up to date in the background (:meth:`Hands.update_watcher`): under
        a busy bot budget they wait behind every presser, prompt and table, and show the latest
        state when they go, never one that a later press made stale. While the bot is to act
        (a bot seat, auto-play, a seat it passes for) a hand that shows its seat waiting is
        left as it is: the bot's move, moments later, draws it once (one caption edit per
        waiting seat, not two)."""
        state = table.state
        assert state is not None
        blocked = []
        order = hand_order(table, first)
        presser = 1 if first in order else 0
        # the bot acts next (a bot seat, auto-play, a pass 自动要不起): a hand that shows its
        # seat waiting is drawn with the bot's move, BOT_MOVE_DELAY from now, not twice
        bot_next = state.phase in ACTIVE and bool(state.to_act) \
            and all(is_auto(table, state, s) for s in state.to_act)
        for i, seat in enumerate(order):
            if i == presser:  # the audience's message, drawn alongside the other hands
                self.picture.update_table(table)
            if seat != first and bot_next and self.hands.shows_waiting(table, seat):
                continue
            if seat != first and self.hands.watching(table, seat):
                self.hands.update_watcher(table, seat)
            elif not await self.hands.show_hand(table, seat,
                                                rank=PRESSER if seat == first else None):
                blocked.append(seat)
        if len(order) == presser:
            self.picture.update_table(table)
        await self.notices.withdraw_notices(table)
        return blocked

    async def leave(self, table: Table, seat: int, *, ack: Ack | None = None) -> None:
        """The seat's player leaves the running deal: the engine's ``leave`` (escape penalty,
        RULES.md §9); the seat is auto-played to the end (lock held). The caller tells the
        audience (the /leave prompt becomes the announcement).

        Raises:
            IllegalAction: the engine refused (e.g. the seat already left).
        """
        await self.act(table, Action(ActionKind.LEAVE, seat), ack=ack)

    # --- Timers --------------------------------------------------------------------------------

    def schedule(self, table: Table) -> None:
        """Arm the bot-move timer (a bot or auto-play seat is to act), the turn timeout, the
        "your turn" notice and the clock's next refresh (a human is to act,
        :meth:`arm_clock`) for the current state; cancel what is not needed. The turn's clock
        starts when its prompt was drawn (this runs after :meth:`show`)."""
        state = table.state
        assert state is not None
        outlet = self.ctx.outlet
        stamp = timers.Stamp(table.key, table.token, state.version)
        auto = [s for s in state.to_act if is_auto(table, state, s)]
        human = [s for s in state.to_act if s not in auto]
        now = time.time()
        if auto:
            outlet.arm(timers.BOT_MOVE, stamp, now + self.ctx.settings.bot_move_delay,
                       self.on_bot_move)
        else:
            outlet.cancel(timers.BOT_MOVE, table.key)
        if human and table.progress.deadline is not None:
            outlet.arm(timers.TURN, stamp, table.progress.deadline, self.on_turn_timeout)
            delay = self.ctx.settings.turn_notice_delay
            due = [s for s in human if not table.messages.turn_notices[s]]
            if due and delay > 0:
                outlet.arm(timers.NOTICE, stamp, now + delay, self.on_notice)
        else:
            outlet.cancel(timers.TURN, table.key)
            outlet.cancel(timers.NOTICE, table.key)
        self.arm_clock(table, stamp, bool(human))
        if state.phase == "playing":
            for seat in human:
                self._ask_advice(table, state, seat)

    def _ask_advice(self, table: Table, state: DealState, seat: int) -> asyncio.Task[Advice]:
        """Start computing Hint's advice for ``seat`` in ``state`` in the AI worker (once per
        state version), so that a Hint press finds it ready and is answered at once."""
        key = (table.key, seat)
        known = self._advice.get(key)
        if known is not None and known[0] == state.version:
            return known[1]
        task = asyncio.get_running_loop().create_task(self.ctx.ai.hints(state, seat))
        task.add_done_callback(_quiet)
        self._advice[key] = (state.version, task)
        return task

    async def advice(self, table: Table, seat: int) -> Advice:
        """Hint's advice for ``seat`` in the table's current state (``engine.ai.hint_advice``
        off the event loop; usually computed already, since the turn's prompt was drawn)."""
        assert table.state is not None
        return await self._ask_advice(table, table.state, seat)

    def arm_clock(self, table: Table, stamp: timers.Stamp, human: bool = True) -> None:
        """Arm the clock's next refresh of the turn (:func:`bot.game.timers.next_mark`: 10 s
        and 5 s left) while a human is to act, else cancel it. Only a turn
        that runs long reaches a mark: a quick player's deal costs no extra call. After a
        restart :meth:`schedule` arms it again from the stored absolute deadline."""
        mark = timers.next_mark(table.progress.deadline) if human else None
        if mark is None:
            self.ctx.outlet.cancel(timers.CLOCK, table.key)
        else:
            self.ctx.outlet.arm(timers.CLOCK, stamp, mark, self.on_clock)

    def _current(self, stamp: timers.Stamp) -> Table | None:
        """The table a timer was armed for, if its deal and state are still the same."""
        table = self.ctx.tables.get(stamp.key)
        if table is None or table.token != stamp.token or table.phase != DEAL:
            return None
        if table.state is None or table.state.version != stamp.version:
            return None
        return table

    async def on_bot_move(self, stamp: timers.Stamp) -> None:
        """Timer: the first bot or auto-play seat to act plays (bot seats: ``engine.ai`` at the
        group's level; auto-play: the group's choice of the seeds' rule or the AI, RULES.md §9;
        a seat that cannot follow at a table with ``auto_pass``: pass).
        The AI thinks in the worker without the table's lock; its move is applied only if the
        state is still the one it thought about."""
        ctx = self.ctx
        table = self._current(stamp)
        if table is None or table.state is None:
            return
        state = table.state
        seat = next((s for s in state.to_act if is_auto(table, state, s)), None)
        if seat is None:
            return
        seed = None
        if table.competition.challenge_id is not None and self.hooks.challenge is not None:
            seed = await self.hooks.challenge.ai_seed(table, state)
        if table.seats[seat].is_bot:
            action = await ctx.ai.decide(state, seat, table.options.bot_level, seed=seed)
        elif table.options.autoplay_mode == "ai" and state.autoplay[seat]:
            action = await ctx.ai.decide(state, seat, AUTOPLAY_LEVEL, seed=seed)
        else:  # the seeds' rule, which passes a seat that cannot follow (要不起)
            action = auto_action(state, seat)
        async with ctx.tables.lock(stamp.key):
            table = self._current(stamp)
            if table is None:
                return
            try:
                await self.act(table, action)
            except IllegalAction as exc:
                log.warning("AI move refused at %s (%s); playing the seeds' default", stamp.key,
                            exc.code)
                await self.act(table, auto_action(state, seat))

    async def on_turn_timeout(self, stamp: timers.Stamp) -> None:
        """Timer: every human seat still to act when the deadline passed gets the engine's
        timeout action and goes on auto-play (RULES.md §9). A turn that began before the bot
        started (a restart, in either mode) times out :data:`RESTART_GRACE` seconds after the
        start at the earliest: the presses that waited at Telegram meanwhile go first."""
        async with self.ctx.tables.lock(stamp.key):
            table = self._current(stamp)
            if table is None or table.state is None:
                return
            due = self._due_after_start(table, table.state)
            if due > time.time():
                self.ctx.outlet.arm(timers.TURN, stamp, due, self.on_turn_timeout)
                return
            late = [s for s in table.state.to_act if not is_auto(table, table.state, s)]
            for seat in late:
                state = table.state
                if table.token != stamp.token or state is None:
                    break  # the timeout ended the deal or dealt again
                if state.phase in ACTIVE and seat in state.to_act and not state.autoplay[seat]:
                    await self.act(table, Action(ActionKind.TIMEOUT, seat))
                    await self.notices.tell_timeout(table, seat, stamp.token)

    def _due_after_start(self, table: Table, state: DealState) -> float:
        """When the table's turn times out: its deadline, or for a turn that began before
        this process started, :data:`RESTART_GRACE` seconds after the start if that is later."""
        deadline = table.progress.deadline or 0.0
        if deadline - turn_timeout(table, state) < self.started:
            return max(deadline, self.started + RESTART_GRACE)
        return deadline

    async def on_clock(self, stamp: timers.Stamp) -> None:
        """Timer: a human's turn reached a clock mark (10 s or 5 s left). If that turn is still
        open (same deal and state version: a stale refresh after the player acted does
        nothing), the private prompts of the seats to act show the time left first (a caption
        edit each), then the group table through its outbox and flood budget; the next mark
        is armed."""
        async with self.ctx.tables.lock(stamp.key):
            table = self._current(stamp)
            if table is None or table.state is None or table.progress.deadline is None:
                return
            state = table.state
            for seat in state.to_act:
                if not is_auto(table, state, seat):
                    await self.hands.show_hand(table, seat)
            self.picture.update_table(table)
            self.arm_clock(table, stamp)

    async def on_notice(self, stamp: timers.Stamp) -> None:
        """Timer: the human seats to act that have not acted within
        ``settings.turn_notice_delay`` get a notifying "your turn" message in private (edits of
        the hand message do not notify); it is deleted when the turn passes."""
        async with self.ctx.tables.lock(stamp.key):
            table = self._current(stamp)
            if table is not None:
                await self.notices.send_notices(table)


def _quiet(task: asyncio.Task[Advice]) -> None:
    """Retrieve a finished advice task's error (logged by whoever awaits it, if anyone)."""
    if not task.cancelled():
        task.exception()
