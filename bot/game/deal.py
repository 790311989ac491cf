"""The deal driver: start, accept an action, redeal, finish, leave, stop.

Every change runs the same loop (:meth:`DealDriver.act`): **apply** the action to the engine
state (``engine.apply``; an :class:`engine.IllegalAction` leaves everything as it was),
acknowledge it to whoever asked (the press is answered before anything slow), **persist** the
state and the table's value in one store call, **show** what changed (the presser's own hand
first, the other hands, then the audience message through the outlet's outbox) and **schedule**
what the new state needs (a bot move, the turn's timeout, a "your turn" notice). Consequences of
an action that are actions themselves (a seat that cannot be written to goes on auto-play) are
queued and run by the same loop; a redeal starts a new deal in place; nothing calls back into
display code.

Everything on one table runs under that table's lock (``Tables.lock``); the methods here whose
docstring says "lock held" must be called with it. Timers (:meth:`on_bot_move`,
:meth:`on_turn_timeout`, :meth:`on_notice`) take the lock themselves; the AI thinks without it
(:class:`bot.game.ai.AiWorker`), and its move counts only if the state did not move on meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Protocol

from bot.core.i18n import t
from bot.core.rooms import preset_name
from bot.core.table import DEAL, RESULT, Seat, Table
from bot.game import timers
from bot.game.config import TableConfig
from bot.game.context import GameContext
from bot.game.drawing import Drawing, keyboard_signature
from bot.game.outlet import PRESSER, PROMPT, WATCHER, Unreachable
from bot.presentation import hands, scenes, views
from bot.presentation.keyboards import Keyboard
from bot.store import SeatFacts, SeatRecord, Settlement
from engine import (
    Action,
    ComboType,
    DealState,
    IllegalAction,
    SeatView,
    apply,
    auto_action,
    classify,
    new_deal,
    next_first_bidder,
)
from engine.ai import Advice
from engine.presets import Rules
from engine.redeal import REDEAL_VALVE
from images import render_hand, render_result, render_table
from images.standings import StandingsScene, render_result_with_standings, render_standings

log = logging.getLogger(__name__)

ACTIVE = ("bidding", "doubling", "playing")
#: The AI level of auto-play seats when the group chose "ai"; bot seats use the
#: group's ``bot_level``.
AUTOPLAY_LEVEL = "hard"
#: The key of the audience's table message in ``Table.rendered`` / ``Table.pictured``.
TABLE = "table"
#: Redeals in a row (everybody passed) after which a table closes rather than deal forever: the
#: documented safety valve of ``redeal_rule`` ``redeal`` (RULES.md §2.3); the other rules never
#: redeal more than twice in a row.
MAX_REDEALS = REDEAL_VALVE
#: Seconds after which a result that was not sent yet (``Table.result_due``) is posted again.
RESULT_RETRY_SECONDS = 30.0
#: Seconds after the bot starts taking updates (:attr:`DealDriver.started`) before a turn that
#: began before it started times out: presses made while the bot was down wait at Telegram
#: and are handled first (polling: the first getUpdates; webhook workers: Telegram's
#: redelivery), so a press made in time is not refused for a deadline that passed meanwhile.
RESTART_GRACE = 5.0

#: Plays counted as bombs in a player's statistics (RULES.md §5, §11: 天尊 too).
BOMB_TYPES = (ComboType.BOMB, ComboType.ROCKET, ComboType.JOKER_BOMB)

#: Called once the action is accepted, before anything is stored or shown (answers the press).
Ack = Callable[[], Awaitable[None]]


def is_auto(table: Table, state: DealState, seat: int) -> bool:
    """A seat the bot plays for now: a bot seat, a human seat on auto-play (RULES.md §9), or a
    human seat that cannot follow at a table with ``auto_pass``
    (:func:`bot.presentation.views.passes_itself`: the bot passes for it)."""
    return table.seats[seat].is_bot or state.autoplay[seat] \
        or views.passes_itself(table, state.view(seat))


def _turn(state: DealState) -> tuple:
    """What makes a new turn (a fresh deadline): the phase and who is to act, except that in
    the doubling round the seats deciding one after another share one deadline."""
    return (state.phase, () if state.phase == "doubling" else state.to_act)


@dataclass(frozen=True, slots=True)
class Standings:
    """A competition's standings after a deal, for the deal's result message: ``text`` is added
    to its caption, ``scene`` (if any) drawn under its picture."""

    text: str
    scene: StandingsScene | None = None


class MatchHook(Protocol):
    """What the driver asks of the competitions (:class:`bot.features.match.driver.Matches`) at a
    table that plays a match (``Table.match_id`` set): the three points where a match deal differs
    from a single deal."""

    def rules(self, table: Table, rules: Rules) -> Rules:
        """The rules a deal of this match is played with (from the group's)."""
        ...

    async def settle(self, table: Table, state: DealState) -> tuple[Settlement, Standings]:
        """Settle the finished deal for the match (no beans) with the table's data
        (``table.to_dict()``, in the same store transaction), record it in the standings and
        return the settlement with the standings for the result message."""
        ...

    async def deal_over(self, table: Table) -> None:
        """The deal's result (with the standings) is posted: deal the next deal, or end the
        match (lock held)."""
        ...


class ChallengeHook(MatchHook, Protocol):
    """What the driver asks of the duplicate challenges
    (:class:`bot.features.challenge.driver.Challenges`) at a challenge's table
    (``Table.challenge_id`` set): a match's three points (``settle`` records the member's result,
    ``deal_over`` frees the table), plus the deal's fixed cards and the seeds of the AI seats'
    decisions."""

    def new_state(self, table: Table, rules: Rules) -> DealState:
        """The challenge deal's initial state: its fixed cards and first bidder."""
        ...

    async def ai_seed(self, table: Table, state: DealState) -> str:
        """The seed of the AI's next decision at this table (the same deal and history give
        the same seed)."""
        ...


class DealDriver:
    """Runs the deals of every table (see the module docstring)."""

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
        #: Tables whose turn changed since they were last shown: the clock restarts once the
        #: new turn's prompt is drawn.
        self._fresh: set[str] = set()
        #: (table key, seat): Hint's advice for the seat to play, asked for when its turn was
        #: drawn (:meth:`advice`), with the state version it is for.
        self._advice: dict[tuple[str, int], tuple[int, asyncio.Task[Advice]]] = {}
        #: (table key, seat) whose hand message shows the seat waiting (not a prompt): while
        #: the bot is to act it waits for the bot's move (:meth:`show`).
        self._waiting_drawn: set[tuple[str, int]] = set()
        #: (table key, seat): the seconds left that the seat's hand message shows.
        self._drawn_seconds: dict[tuple[str, int], float] = {}
        #: Per table key, each seat's last line once its deal is settled
        #: (:func:`bot.presentation.views.outcome_line`: won or lost, points, beans, balance).
        self.outcomes: dict[str, list[str | None]] = {}
        #: Per table key, the match deal's result asked to be posted, done once it was sent.
        #: (table key, seat): held while the seat's hand message is drawn and sent, so that a
        #: watcher's edit in the background and a direct one never overtake each other.
        self._hand_locks: dict[tuple[str, int], asyncio.Lock] = {}
        #: When this process began taking updates (UTC seconds; :func:`bot.telegram.app._post_init`
        #: sets it again once start-up is over): see :data:`RESTART_GRACE`.
        self.started = time.time()

    # --- Starting a deal -----------------------------------------------------------------------

    async def start(self, table: Table, *, redeal: bool = False,
                    config: TableConfig | None = None, barred: Sequence[bool] = ()) -> None:
        """Deal a new deal at a full table (lock held): a snapshot of the group's settings
        (:class:`~bot.game.config.TableConfig`), a ``store.create_deal`` record, each human's
        hand in private, the table message for the audience.

        The first bidder is random for a table's first deal and rotates afterwards (RULES.md
        §1.4), or is the last deal's winner with the option ``winner_bids_first`` (§1.4). After
        a redeal (everybody passed, RULES.md §2) the same seat bids first, the deal counts the
        all-pass deals in a row before it (``redeal_rule``, RULES.md §2.3), the hand
        messages are reused, and seats that were on auto-play stay on it (RULES.md §9: until the
        owner takes back control). The table is stored with the new deal, and a redeal's old
        deal is cancelled in that same transaction (``store.create_deal(replaces=...)``).
        Only a deal for beans (:attr:`Table.plays_for_beans`) holds its players' beans
        (``store.deal_hold``): a practice, challenge or match deal can take none.
        ``config``: the snapshot to deal with (the one the lobby showed), else read now.
        ``barred``: per seat, may only pass in the bidding (a match's seats with three deals
        lost as landlord, RULES.md §11; ``engine.new_deal``), applied to a four-player deal
        only; a redeal keeps the old deal's.
        Test hooks: ``GameContext.deal_seed``, ``first_bidder``.
        """
        ctx = self.ctx
        if config is None:
            config = await ctx.config(table)
        hook = self._hook(table)
        if hook is not None:  # the table takes the competition's seats and preset too
            config = replace(config, rules=hook.rules(table, config.match_rules or config.rules))
        self._take_config(table, config)
        rules = config.rules
        old = table.state if redeal else None
        if old is not None:
            first = next_first_bidder(old)
            barred = old.bidding.barred
        elif table.first_bidder is None:
            first = ctx.first_bidder if ctx.first_bidder is not None \
                else random.randrange(rules.seats)
        elif rules.winner_bids_first and table.last_winner is not None \
                and table.last_winner < rules.seats:
            first = table.last_winner
        else:
            first = (table.first_bidder + 1) % rules.seats
        seed = ctx.deal_seed
        if seed is not None and old is not None:
            seed += table.redeals
        all_passed = old.all_passed + 1 if old is not None else 0
        bar = barred if rules.variant == "four" else ()  # RULES.md §11 only
        state = new_deal(rules, seed=seed, first_bidder=first, all_passed=all_passed,
                         barred=bar)
        if table.challenge_id is not None and self.challenge is not None:
            state = self.challenge.new_state(table, rules)  # its fixed cards
            first = state.first_bidder
        for seat, _ in table.humans():
            if old is not None and old.autoplay[seat]:
                state = apply(state, Action("autoplay", seat, value=1))
        if old is not None:
            await self._strip_autoplay_notices(table, every=True)
        ctx.tables.retoken(table)
        table.leave_prompts = [None] * len(table.seats)  # drawn for the old token: void
        table.phase = DEAL
        table.first_bidder = first
        table.state = state
        table.lobby_deadline = None
        table.reset_turn_memory()
        table.rendered.clear()
        if old is None:
            table.redeals = 0
            table.notice = None
            table.reset_messages()
            for player in table.seats:
                player.left = False
            await self._place_hands(table)
        records = [
            SeatRecord(None, views.seat_name(s, i, table.lang), True) if s.is_bot
            else SeatRecord(s.user_id, s.name, False)
            for i, s in enumerate(table.seats)
        ]
        table.deadline = time.time() + self._timeout(table, state)
        table.result_due = False
        replaces = table.deal_id if old is not None else None
        table.deal_id = await ctx.store.create_deal(
            table.key, table.chat_id, records, rules.to_dict(), max(1, table.stake),
            state.to_json(), state.version, match_id=table.match_id, replaces=replaces,
            table=table.to_dict(), for_beans=table.plays_for_beans,
        )
        self._fresh.add(table.key)
        self.outcomes.pop(table.key, None)
        ctx.outlet.cancel(timers.LOBBY, table.key)

    async def _place_hands(self, table: Table) -> None:
        """Where each human seat's hand goes for a new deal: into the group (an ephemeral
        message only its player sees) at a table whose hands may be there
        (:func:`bot.presentation.hands.may_be_in_group`) when the player chose so, or left it
        to the table (``table.hands``, the group's setting), or cannot be written to
        privately; else into their private chat."""
        ctx = self.ctx
        allowed = hands.may_be_in_group(table)
        for _, player in table.humans():
            player.in_group = False
            if not allowed or player.user_id is None:
                continue
            record = await ctx.store.get_player(player.user_id)
            choice = (record.hands if record is not None else None) or table.hands
            player.in_group = choice == "group" \
                or ctx.private_chats.known(player.user_id) is False
            if player.in_group:
                player.blocked = False  # the private chat is not needed

    def _hook(self, table: Table) -> MatchHook | None:
        """The competition that plays at this table, if any (a match's or a challenge's)."""
        if table.match_id is not None:
            return self.match
        if table.challenge_id is not None:
            return self.challenge
        if table.tournament is not None:
            return self.tournament
        return None

    def _take_config(self, table: Table, config: TableConfig) -> None:
        table.lang = config.lang
        table.seat_count = config.rules.seats
        table.preset = preset_name(config.rules)
        table.stake = config.stake if table.plays_for_beans else 0
        table.play_timeout = config.play_timeout
        table.bid_timeout = config.bid_timeout
        table.autoplay_mode = config.autoplay_mode
        table.bot_level = config.bot_level
        table.pictures = config.pictures
        table.card_counter = config.card_counter
        table.auto_pass = config.auto_pass
        table.hands = config.hands

    async def deal(self, table: Table, config: TableConfig | None = None,
                   barred: Sequence[bool] = ()) -> None:
        """Start a deal and show it (lock held): :meth:`start` (with ``config`` and ``barred``
        if given), then the same show and schedule steps as after an action."""
        await self.start(table, config=config, barred=barred)
        await self.advance(table)

    @staticmethod
    def _timeout(table: Table, state: DealState) -> float:
        return table.play_timeout if state.phase == "playing" else table.bid_timeout

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
        table.notice = None
        if action.kind not in ("autoplay", "show"):
            table.reset_turn_memory()
        if _turn(prev) != _turn(state):
            table.deadline = time.time() + self._timeout(table, state) if state.to_act else None
            self._fresh.add(table.key)
        if state.phase == "redeal":
            # stored first: a restart deals again from it (``redeal_now``)
            await self.ctx.store.save_deal_state(_deal_id(table), state.version,
                                                 state.to_json())
            await self._redeal(table)
            return True
        if prev.landlord is None and state.landlord is not None:
            table.redeals = 0
        if action.kind == "leave":
            table.seats[action.seat].left = True
        await self.ctx.store.save_deal_state(_deal_id(table), state.version, state.to_json(),
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
                await self.finish(table, presser)
                return
            blocked = await self.show(table, presser)
            presser = None
            if table.key in self._fresh:
                self._fresh.discard(table.key)
                if state.to_act:  # the turn's clock starts when its prompt was drawn
                    table.deadline = time.time() + self._timeout(table, state)
            self.schedule(table)
            if self.ctx.settings.turn_notice_delay <= 0:
                await self.send_notices(table)
            for seat in dict.fromkeys(blocked):
                if state.phase in ACTIVE and not state.autoplay[seat]:
                    name = views.seat_name(table.seats[seat], seat, table.lang)
                    self.say(table, t("table.blocked", table.lang, name=name))
                    queued.append(Action("autoplay", seat, value=1))
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
        await self._redeal(table)
        if table.phase == DEAL:
            await self.advance(table)

    async def _redeal(self, table: Table) -> None:
        """Everybody passed (RULES.md §2): cancel this deal (nobody pays) and deal again, in one
        store transaction (:meth:`start`). The table's line says so, and on a third deal in a
        row under ``redeal_rule`` ``forced_bid`` who must bid (RULES.md §2.3). After
        :data:`MAX_REDEALS` redeals in a row (``redeal_rule`` ``redeal``, its safety valve) the
        table closes instead, nobody paying, and the group is told in a message of its own
        (lock held)."""
        state = table.state
        assert state is not None
        table.redeals += 1
        if table.redeals >= MAX_REDEALS:
            text = t(f"table.no_bids_{table.preset}", table.lang, n=table.redeals)
            await self.ctx.store.cancel_deal(_deal_id(table), state.to_json())
            await self.close_hands(table)
            self.say(table, text)  # a new message: the table message's edit notifies nobody
            await self.ctx.close_table(table, text)
            return
        await self.start(table, redeal=True)
        notice = t(f"table.redeal_{table.preset}", table.lang)
        must = table.state.bidding.must_bid if table.state is not None else None
        if must is not None:
            name = views.seat_name(table.seats[must], must, table.lang)
            notice += "\n" + t(f"table.must_bid_{table.preset}", table.lang, name=name)
        table.notice = notice

    # --- Showing -------------------------------------------------------------------------------

    async def show(self, table: Table, first: int | None = None) -> list[int]:
        """Bring every human's hand message (seat ``first`` before the others) and the
        audience's table message up to date (asked for right after the presser's own hand, so it
        is drawn while the other hands are); withdraw "your turn" notices of seats no longer to
        act. Returns the seats whose private chat is closed to the bot (marked ``blocked``)
        (lock held).

        The presser's hand and the prompts of the seats now to act are sent before this
        returns (the turn's clock starts when its prompt was sent); the hands of seats that
        only watch are brought up to date in the background (:meth:`update_watcher`): under
        a busy bot budget they wait behind every presser, prompt and table, and show the latest
        state when they go, never one that a later press made stale. While the bot is to act
        (a bot seat, auto-play, a seat it passes for) a hand that shows its seat waiting is
        left as it is: the bot's move, moments later, draws it once (one caption edit per
        waiting seat, not two)."""
        state = table.state
        assert state is not None
        blocked = []
        order = _hand_order(table, first)
        presser = 1 if first in order else 0
        # the bot acts next (a bot seat, auto-play, a pass 自动要不起): a hand that shows its
        # seat waiting is drawn with the bot's move, BOT_MOVE_DELAY from now, not twice
        bot_next = state.phase in ACTIVE and bool(state.to_act) \
            and all(is_auto(table, state, s) for s in state.to_act)
        for i, seat in enumerate(order):
            if i == presser:  # the audience's message, drawn alongside the other hands
                self.update_table(table)
            if seat != first and bot_next and (table.key, seat) in self._waiting_drawn:
                continue
            if seat != first and self._watching(table, seat):
                self.update_watcher(table, seat)
            elif not await self.show_hand(table, seat, rank=PRESSER if seat == first else None):
                blocked.append(seat)
        if len(order) == presser:
            self.update_table(table)
        await self._withdraw_notices(table)
        return blocked

    @staticmethod
    def _watching(table: Table, seat: int) -> bool:
        """The seat only watches the running deal (not to act, its hand message sent)."""
        state = table.state
        return state is not None and state.phase in ACTIVE and seat not in state.to_act \
            and seat < len(table.hand_message_ids) and table.hand_message_ids[seat] is not None

    def update_watcher(self, table: Table, seat: int) -> None:
        """Ask the outlet to bring a watching seat's hand message to the table's state in the
        background (:meth:`_watcher_job`; never waits)."""
        player = table.seats[seat]
        if player.blocked or player.user_id is None:
            return
        self.ctx.outlet.update_seat(f"{table.key}#seat{seat}", player.user_id,
                                    partial(self._watcher_job, table.key, seat))

    async def _watcher_job(self, key: str, seat: int) -> bool:
        """Draw a watching seat's hand from the table's latest state, without the table's lock
        (the outbox's job); ``False`` when nothing changed or the deal moved on."""
        table = self.ctx.tables.get(key)
        if table is None or table.state is None or table.phase != DEAL \
                or seat >= len(table.seats):
            return False
        lock = self._hand_lock(key, seat)
        if lock.locked():  # being drawn directly, from a state as new as this job's or newer
            return False
        async with lock:
            try:
                return await self._draw_hand(table, seat, WATCHER, clock=True)
            except Unreachable:
                log.info("table %s: seat %s cannot be written to", key, seat)
                return True  # the seat is marked blocked when it is to act

    def _hand_lock(self, key: str, seat: int) -> asyncio.Lock:
        return self._hand_locks.setdefault((key, seat), asyncio.Lock())

    async def show_hand(self, table: Table, seat: int, *, clock: bool = True,
                        rank: int | None = None) -> bool:
        """Send or edit one seat's private hand message where it changed; ``False`` when the
        player's chat is closed to the bot (the seat is marked ``blocked``) (lock held).

        A seat that is not to act is redrawn with the others' decisions and whom it waits for
        (a caption edit per decision), not when only a call-out
        gave way (:func:`_gone_callout`); a seat that left the
        running deal is drawn once as left, then only with its outcome. Without ``clock`` (a press
        that may have changed nothing, e.g. Hint saying to pass with nothing selected) the
        seconds left alone are no reason to edit either: the clock's own marks refresh them.
        ``rank``: the outlet's (:data:`bot.game.outlet.PRESSER` …); by default a prompt's:
        what is drawn under the table's lock never waits at a watcher's rank."""
        state = table.state
        assert state is not None
        if rank is None:
            rank = PROMPT
        try:
            async with self._hand_lock(table.key, seat):
                await self._draw_hand(table, seat, rank, clock=clock)
        except Unreachable:
            player = table.seats[seat]
            player.blocked = True
            if player.user_id is not None:
                self.ctx.private_chats.unreachable(player.user_id)
            return False
        return True

    async def bring_hand(self, table: Table, seat: int) -> bool:
        """🂠 My cards, pressed by the player of a seat whose hand is shown in the group: send
        the current hand afresh, within the press's own 15 s (so a hand that was never
        delivered, was lost from the player's app or went stale comes back), and delete the
        one it replaces; ``False`` when it could not be sent (lock held)."""
        player = table.seats[seat]
        if not player.in_group or player.user_id is None:
            return False
        old = table.hand_message_ids[seat]
        table.hand_message_ids[seat] = None
        table.rendered.pop(seat, None)
        table.pictured.pop(seat, None)
        await self.show_hand(table, seat, rank=PRESSER)
        if table.hand_message_ids[seat] is None:
            table.hand_message_ids[seat] = old  # not sent: the old one (if any) stays
            return False
        if old is not None:
            await self.ctx.outlet.withdraw_hand(table.chat_id, player.user_id, old)
        await self.ctx.save(table)
        return True

    def move_refusal(self, table: Table, seat: int, to_group: bool) -> str | None:
        """Why the seat's hand cannot move (:meth:`move_hand`), as an i18n key, or ``None``:
        ``pop.hands_four`` (a table whose hands stay private), ``pop.hands_need_private``
        (the bot is known not to reach the player privately)."""
        user_id = table.seats[seat].user_id
        if to_group and not hands.may_be_in_group(table):
            return "pop.hands_four"
        if not to_group and user_id is not None \
                and self.ctx.private_chats.known(user_id) is False:
            return "pop.hands_need_private"
        return None

    async def move_hand(self, table: Table, seat: int, to_group: bool) -> str | None:
        """The seat's player moves their hand into the group (``to_group``: an ephemeral
        message only they see) or into their private chat, from now on: the choice is stored
        for their next deals too, the message where it was is taken down (a private one says
        where it went), and it is drawn where it goes (lock held). ``None`` when done, else
        the i18n key of why not: ``pop.hands_need_private`` (the bot cannot write to them
        privately; the hand stays in the group), ``pop.hands_four`` (a table whose hands stay
        private)."""
        player = table.seats[seat]
        user_id = player.user_id
        if user_id is None:
            return None
        refusal = self.move_refusal(table, seat, to_group)
        if refusal is not None:
            return refusal
        await self.ctx.store.set_player_hands(user_id, "group" if to_group else "private")
        if player.in_group == to_group:
            return None
        old, photo = table.hand_message_ids[seat], table.hand_photos[seat]
        table.hand_message_ids[seat] = None
        table.hand_photos[seat] = False
        table.rendered.pop(seat, None)
        table.pictured.pop(seat, None)
        player.in_group = to_group
        if to_group:
            player.blocked = False
        try:
            async with self._hand_lock(table.key, seat):
                await self._draw_hand(table, seat, PRESSER, clock=True)
        except Unreachable:  # the private chat is closed after all: the hand stays here
            self.ctx.private_chats.unreachable(user_id)
            player.in_group = True
            table.hand_message_ids[seat], table.hand_photos[seat] = old, photo
            await self.ctx.store.set_player_hands(user_id, None)
            return "pop.hands_need_private"
        if old is not None and to_group:
            await self.ctx.outlet.close(user_id, old, photo,
                                        t("hand.moved_group", table.seat_lang(seat)))
        elif old is not None:
            await self.ctx.outlet.withdraw_hand(table.chat_id, user_id, old)
        if not to_group:
            self.ctx.private_chats.reached(user_id)
        await self.ctx.save(table)
        return None

    async def _draw_hand(self, table: Table, seat: int, rank: int, *, clock: bool) -> bool:
        """:meth:`show_hand`'s drawing (the seat's hand lock held); ``True`` when a request
        was made.

        Raises:
            Unreachable: the player's chat is closed to the bot.
        """
        state = table.state
        assert state is not None
        player = table.seats[seat]
        if player.blocked or player.user_id is None:
            return False
        view = state.view(seat)
        seconds = self._seconds(table)
        drawing = self.hand_drawing(table, view, seconds)
        waiting = state.phase in ACTIVE and not state.autoplay[seat] \
            and not state.escaped[seat] \
            and (seat not in state.to_act or views.passes_itself(table, view))
        said = views.callout(table, view, table.seat_lang(seat)) if waiting else None
        if state.phase in ACTIVE and state.escaped[seat]:
            drawn = _LEFT  # drawn once: its player is gone until the outcome (RULES.md §9)
        elif waiting:
            drawn = _waiting_signature(drawing, said)
        else:
            drawn = drawing.signature
        before = table.rendered.get(seat)
        if before == drawn or (waiting and said is None and _gone_callout(before) == drawn):
            return False
        shown_seconds = self._drawn_seconds.get((table.key, seat))
        if not clock and shown_seconds is not None and round(shown_seconds) != round(seconds):
            unchanged = self.hand_drawing(table, view, shown_seconds)
            if before == (_waiting_signature(unchanged, said) if waiting
                          else unchanged.signature):
                return False
        if player.in_group:
            shown = await self.ctx.outlet.present_hand(
                table.chat_id, player.user_id, table.hand_message_ids[seat],
                table.hand_photos[seat], table.pictured.get(seat), drawing, rank=rank)
            if shown is None:  # nothing shows it: the player's next press sends it
                table.hand_message_ids[seat] = None
                table.rendered.pop(seat, None)
                table.pictured.pop(seat, None)
                return True
        else:
            shown = await self.ctx.outlet.present(
                player.user_id, table.hand_message_ids[seat], table.hand_photos[seat],
                table.pictured.get(seat), drawing, rank=rank)
        if shown is not None:
            table.hand_message_ids[seat], table.hand_photos[seat] = shown
            table.pictured[seat] = drawing.key
            table.rendered[seat] = drawn
            self._drawn_seconds[(table.key, seat)] = seconds
            if waiting:
                self._waiting_drawn.add((table.key, seat))
            else:
                self._waiting_drawn.discard((table.key, seat))
        return True

    def hand_drawing(self, table: Table, view: SeatView,
                     seconds: float | None = None) -> Drawing:
        """A seat's private hand message: in pictures mode the hand's picture
        (:func:`images.render_hand`), under it the selection keyboard, and as caption the
        same text as in text mode (the hand as text, the table's status line, whose turn it is,
        what to beat, the selection and whether it can be played; once settled, won or lost and
        the beans). The picture shows the cards only, never the selection: a tap that changes
        only the selection is a caption edit (keyboard and caption), no upload; the picture is
        drawn again when the cards change (a play, the kitty, a new deal). A hand played out is
        drawn empty (``render_hand``'s "played out" words in the player's language), not left
        showing its last play."""
        seat = view.seat
        outcomes = self.outcomes.get(table.key) if view.phase == "finished" else None
        outcome = outcomes[seat] if outcomes is not None and seat < len(outcomes) else None
        if seconds is None:
            seconds = self._seconds(table)
        text, markup = views.hand_view(table, view, seconds, outcome)
        if view.phase in ACTIVE and not view.escaped[seat]:
            markup = hands.with_switch(markup, table, seat)
        if not table.pictures:
            return Drawing(text, markup)
        cards, chosen = scenes.hand_picture(view, ())  # the selection: caption and keyboard
        lang = table.seat_lang(seat)
        key: object = (cards, chosen) if cards else ("played out", lang)  # its words: lang's
        return Drawing(text, markup, key,
                       partial(render_hand, cards, chosen, labels=scenes.picture_labels(lang)),
                       "hand.png")

    def table_drawing(self, table: Table) -> Drawing:
        """The audience's table message: in pictures mode the table's picture from public facts
        only (:func:`bot.presentation.scenes.table_scene`) with the table text as caption. The
        picture is a palette PNG: about 40 % of the table's JPEG and no slower to render."""
        assert table.state is not None
        view = table.state.view(0)
        seconds = self._seconds(table)
        text, markup = views.table_view(table, view, seconds, table.notice)
        if not table.pictures:
            return Drawing(text, markup)
        scene = scenes.table_scene(table, view, seconds)
        return Drawing(text, markup, scene, partial(render_table, scene, fmt="PNG"), "table.png")

    @staticmethod
    def _seconds(table: Table) -> float:
        return timers.seconds_left(table.deadline)

    def update_table(self, table: Table) -> None:
        """Ask the outlet to bring the audience's table message to the current state; the
        outbox runs :meth:`_table_job` when the chat's flood budget allows (never waits)."""
        key = table.key
        if table.tournament is not None:  # each seat sees the table in its private chat
            for seat, player in table.humans():
                if player.user_id is not None and not player.blocked:
                    self.ctx.outlet.update_audience(f"{key}#view{seat}", player.user_id,
                                                    _TableJob(self, key, seat))
            for user_id in table.watchers:
                self.update_watch(table, user_id)
            return
        self.ctx.outlet.update_audience(key, table.chat_id, _TableJob(self, key))

    def update_watch(self, table: Table, user_id: int) -> None:
        """Ask the outlet to bring the message of a member who watches tournament table
        ``table`` (观战, :attr:`Table.watchers`) to its current state: the table's picture as
        its seats see it, without buttons and never a hand, edited in place at a watcher's
        rank in the member's private chat (the outbox paces it; never waits)."""
        self.ctx.outlet.update_seat(f"{table.key}#watch{user_id}", user_id,
                                    _TableJob(self, table.key, watcher=user_id))

    def watch(self, table: Table, user_id: int) -> int | None:
        """``user_id`` watches tournament table ``table`` (观战) from now on, in a new message
        of their private chat (:meth:`update_watch`; lock held); returns the message that
        showed it to them so far, if any (the caller deletes it)."""
        old = self.unwatch(table, user_id)
        table.watchers[user_id] = (None, False)
        self.update_watch(table, user_id)
        return old

    def unwatch(self, table: Table, user_id: int) -> int | None:
        """``user_id`` watches ``table`` no more (lock held); returns the message that showed
        it to them, if it was sent."""
        shown = table.watchers.pop(user_id, None)
        mark = _viewed(None, user_id)
        table.rendered.pop(mark, None)
        table.pictured.pop(mark, None)
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
                and drawing.key != table.pictured.get(_viewed(viewer, watcher)):
            await self.ctx.outlet.prepare(drawing)

    def _table_fresh(self, key: str, viewer: int | None = None,
                     watcher: int | None = None) -> bool:
        """Nothing of the running deal was drawn on the audience's message yet (dealt, or
        dealt again after everybody passed): its first picture is new to the audience, so the
        outbox sends it at the chat's first free slot, not at an edit's pace."""
        table = self.ctx.tables.get(key)
        return table is not None and table.state is not None and table.phase == DEAL \
            and _viewed(viewer, watcher) not in table.rendered

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
        if table.rendered.get(TABLE) == drawing.signature:
            return False
        before = (table.message_id, table.message_photo)
        try:
            shown = await self.ctx.outlet.present(
                table.chat_id, table.message_id, table.message_photo, table.pictured.get(TABLE),
                drawing, table.thread_id)
        except Unreachable:
            return True
        if shown is None:
            return True
        table.pictured[TABLE] = drawing.key
        table.rendered[TABLE] = drawing.signature
        if shown != before:
            # stored under the table's lock: a step stored meanwhile (here or, with several
            # workers, elsewhere: the lock reloads it) is not overwritten by this copy
            async with self.ctx.tables.lock(key):
                current = self.ctx.tables.get(key)
                if current is not None and (current.message_id, current.message_photo) == before:
                    current.message_id, current.message_photo = shown
                    await self.ctx.save(current)
        return True

    async def _view_job(self, table: Table, viewer: int, drawing: Drawing) -> bool:
        """A tournament table's picture in seat ``viewer``'s private chat (the outbox's job,
        without the table's lock; :meth:`_table_job`); ``False`` when nothing changed."""
        mark = _viewed(viewer)
        player = table.seats[viewer] if viewer < len(table.seats) else None
        if player is None or player.user_id is None or table.rendered.get(mark) == \
                drawing.signature:
            return False
        ids = _padded(list(table.view_message_ids), len(table.seats))
        photos = table.view_photos + [False] * (len(table.seats) - len(table.view_photos))
        before = (ids[viewer], photos[viewer])
        try:
            shown = await self.ctx.outlet.present(player.user_id, before[0], before[1],
                                                  table.pictured.get(mark), drawing)
        except Unreachable:
            return True
        if shown is None:
            return True
        table.pictured[mark] = drawing.key
        table.rendered[mark] = drawing.signature
        if shown != before:
            # not under the table's lock: its holder may be waiting for this very chat (the
            # seat's hand); the ids are stored with the table's next step
            ids = _padded(list(table.view_message_ids), len(table.seats))
            photos = table.view_photos + [False] * (len(table.seats) - len(table.view_photos))
            if (ids[viewer], photos[viewer]) == before:
                ids[viewer], photos[viewer] = shown
                table.view_message_ids, table.view_photos = ids, photos
        return True

    async def _watch_job(self, table: Table, user_id: int, drawing: Drawing) -> bool:
        """A tournament table's picture in the private chat of a member who watches it (the
        outbox's job, without the table's lock; :meth:`update_watch`): the seats' table
        message without its buttons; ``False`` when nothing changed or they watch no more. A
        member the bot cannot write to stops watching."""
        mark = _viewed(None, user_id)
        watched = Drawing(drawing.text, None, drawing.key, drawing.render, drawing.filename)
        before = table.watchers.get(user_id)
        if before is None or table.rendered.get(mark) == watched.signature:
            return False
        try:
            shown = await self.ctx.outlet.present(user_id, before[0], before[1],
                                                  table.pictured.get(mark), watched,
                                                  rank=WATCHER)
        except Unreachable:
            self.ctx.private_chats.unreachable(user_id)
            table.watchers.pop(user_id, None)
            return True
        if shown is None:
            return True
        table.pictured[mark] = watched.key
        table.rendered[mark] = watched.signature
        if shown != before and table.watchers.get(user_id) == before:
            table.watchers[user_id] = shown  # stored with the table's next step
        return True

    def say(self, table: Table, text: str) -> None:
        """Tell the table's audience something in a short message of its own (sent in the
        background: never waits for the chat's flood budget); at a tournament's table, each
        seat's player in their private chat."""
        if table.tournament is not None:
            for _, player in table.humans():
                if player.user_id is not None and not player.blocked:
                    self.ctx.outlet.tell(player.user_id, text)
            return
        self.ctx.outlet.tell(table.chat_id, text, table.thread_id)

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
        if human and table.deadline is not None:
            outlet.arm(timers.TURN, stamp, table.deadline, self.on_turn_timeout)
            delay = self.ctx.settings.turn_notice_delay
            due = [s for s in human if not table.turn_notices[s]]
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
        mark = timers.next_mark(table.deadline) if human else None
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
        if table.challenge_id is not None and self.challenge is not None:
            seed = await self.challenge.ai_seed(table, state)
        if table.seats[seat].is_bot:
            action = await ctx.ai.decide(state, seat, table.bot_level, seed=seed)
        elif table.autoplay_mode == "ai" and state.autoplay[seat]:
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
                    await self.act(table, Action("timeout", seat))
                    await self.tell_timeout(table, seat, stamp.token)

    def _due_after_start(self, table: Table, state: DealState) -> float:
        """When the table's turn times out: its deadline, or for a turn that began before
        this process started, :data:`RESTART_GRACE` seconds after the start if that is later."""
        deadline = table.deadline or 0.0
        if deadline - self._timeout(table, state) < self.started:
            return max(deadline, self.started + RESTART_GRACE)
        return deadline

    async def tell_timeout(self, table: Table, seat: int, token: str) -> None:
        """A seat timed out into auto-play (RULES.md §9): its player is told in private, with
        the Take back button (取消托管), then the group: ``{name} 超时，已托管。`` (a practice
        table's audience is that private chat: told once). Nothing is said when the timeout
        ended the deal (the result says it) (lock held)."""
        player = table.seats[seat]
        if table.token != token or table.phase != DEAL:
            return
        if player.user_id is not None and not player.blocked and not player.left \
                and not self._out_of_reach(player):
            text, markup = views.timeout_notice(table, seat)
            try:
                message_id = await self.ctx.outlet.send(player.user_id, text, markup)
            except Unreachable:
                self._unreachable(player)
            else:
                if message_id is not None:  # its button goes once used (_withdraw_notices)
                    table.autoplay_notices = _padded(table.autoplay_notices, len(table.seats))
                    table.autoplay_notices[seat] = message_id
                    await self.ctx.save(table)
        if not table.private:
            name = views.seat_name(player, seat, table.lang)
            self.say(table, t("table.timeout", table.lang, name=name))

    async def on_clock(self, stamp: timers.Stamp) -> None:
        """Timer: a human's turn reached a clock mark (10 s or 5 s left). If that turn is still
        open (same deal and state version: a stale refresh after the player acted does
        nothing), the private prompts of the seats to act show the time left first (a caption
        edit each), then the group table through its outbox and flood budget; the next mark
        is armed."""
        async with self.ctx.tables.lock(stamp.key):
            table = self._current(stamp)
            if table is None or table.state is None or table.deadline is None:
                return
            state = table.state
            for seat in state.to_act:
                if not is_auto(table, state, seat):
                    await self.show_hand(table, seat)
            self.update_table(table)
            self.arm_clock(table, stamp)

    async def on_notice(self, stamp: timers.Stamp) -> None:
        """Timer: the human seats to act that have not acted within
        ``settings.turn_notice_delay`` get a notifying "your turn" message in private (edits of
        the hand message do not notify); it is deleted when the turn passes."""
        async with self.ctx.tables.lock(stamp.key):
            table = self._current(stamp)
            if table is not None:
                await self.send_notices(table)

    async def send_notices(self, table: Table) -> None:
        """Send the "your turn" message to every human seat to act that has none pending, and
        store the table if one was sent (lock held)."""
        state = table.state
        if state is None or state.phase not in ACTIVE:
            return
        sent = False
        for seat in state.to_act:
            player = table.seats[seat]
            if is_auto(table, state, seat) or player.blocked or player.left \
                    or table.turn_notices[seat] or player.user_id is None \
                    or self._out_of_reach(player):
                continue
            try:
                message_id = await self.ctx.outlet.send(
                    player.user_id, _notice_text(table, seat), notify=True)
            except Unreachable:
                self._unreachable(player)
                continue
            if message_id is not None:
                table.turn_notices[seat] = message_id
                sent = True
        if sent:
            await self.ctx.save(table)

    def _out_of_reach(self, player: Seat) -> bool:
        """A player whose hand is in the group and whose private chat is known closed to the
        bot: the private notices are not tried (the private chat is not needed)."""
        return player.in_group and player.user_id is not None \
            and self.ctx.private_chats.known(player.user_id) is False

    def _unreachable(self, player: Seat) -> None:
        """A private notice to ``player`` was refused: with their hand in the group they
        play on (remembered, so as not to try again); else the seat is ``blocked``."""
        if player.user_id is not None:
            self.ctx.private_chats.unreachable(player.user_id)
        if not player.in_group:
            player.blocked = True

    async def _withdraw_notices(self, table: Table, *, every: bool = False) -> None:
        """Delete the pending "your turn" messages of seats no longer to act (or ``every``);
        :meth:`_strip_autoplay_notices` likewise."""
        state = table.state
        await self._strip_autoplay_notices(table, every=every)
        for seat, player in table.humans():
            pending = table.turn_notices[seat] if seat < len(table.turn_notices) else None
            if pending is None or player.user_id is None:
                continue
            due = state is not None and state.phase in ACTIVE and seat in state.to_act \
                and not state.autoplay[seat] and not player.left
            if due and not every:
                continue
            table.turn_notices[seat] = None
            await self.ctx.outlet.delete(player.user_id, pending)

    async def _strip_autoplay_notices(self, table: Table, *, every: bool = False) -> None:
        """Take the Take back button off the auto-play notices (:meth:`tell_timeout`) of seats
        no longer on auto-play or that left (or ``every``: the deal ended or is dealt again,
        the buttons carry the old token), one ``editMessageReplyMarkup`` each: no
        live-looking button outlives its use (lock held)."""
        state = table.state
        for seat, player in table.humans():
            notice = table.autoplay_notices[seat] if seat < len(table.autoplay_notices) \
                else None
            if notice is None or player.user_id is None:
                continue
            if not every and state is not None and state.autoplay[seat] and not player.left:
                continue
            table.autoplay_notices[seat] = None
            await self.ctx.outlet.strip(player.user_id, notice)

    # --- The end of a deal ---------------------------------------------------------------------

    async def finish(self, table: Table, presser: int | None = None) -> None:
        """The deal's end (one transaction): settle the finished deal exactly once
        (``store.settle_deal`` is idempotent) together with the table's next state (the result
        phase, a new token for Play again, the seats' answers to it awaited: ``ready``, with
        its timeout armed, :mod:`bot.game.again`; the result still to post: ``result_due``), then
        draw the final hands (seat ``presser`` first), each with its player's outcome
        (:meth:`show_outcomes`), and post the result (:meth:`post_result`) (lock held). A
        practice table (``private``) is not
        settled: its deal is cancelled (nobody pays, no statistics) with the same table data,
        and the result shows no beans. A match table's deal is settled by the match
        (:meth:`MatchHook.settle`, the table stored in the same transaction, no result due):
        its result shows the standings, then the match deals on (:meth:`MatchHook.deal_over`).
        A challenge's table is ended the same way by its :class:`ChallengeHook`."""
        ctx = self.ctx
        state = table.state
        assert state is not None and state.result is not None
        ctx.cancel_timers(table.key)
        await self._withdraw_notices(table, every=True)
        table.phase = RESULT
        # RULES.md §1.4 option winner_bids_first: the seat that played out bids first next
        table.last_winner = state.counts.index(0) if state.result.winner is not None else None
        table.deadline = None
        match = self._hook(table)
        # a match's result is posted once, with its standings, before the match deals on; it
        # is due until then (stored with the settlement: a worker that dies in between leaves
        # it to the next, :meth:`bot.features.match.driver.Matches.resume`)
        table.result_due = match is None or table.match_id is not None
        offer = match is None and someone_stays(table)
        if offer:
            table.offer_again(time.time() + ctx.settings.lobby_timeout)
        else:
            table.ready = []  # nobody to answer: the table is free at once
        ctx.tables.retoken(table)
        if offer and self.on_offer is not None:
            self.on_offer(table)  # its timeout, for the new token
        points = result_points(table, state)
        standings: Standings | None = None
        balances: list[int | None] | None = None
        if table.private and match is None:
            await ctx.store.cancel_deal(_deal_id(table), state.to_json(), table=table.to_dict())
            beans = [0] * len(points)
        elif match is not None:
            settlement, standings = await match.settle(table, state)
            points, beans = list(settlement.points), list(settlement.beans)
        else:
            settlement = await ctx.store.settle_deal(
                _deal_id(table), points, state.to_json(), seat_facts(state),
                version=state.version, table=table.to_dict(),
            )
            points, beans = list(settlement.points), list(settlement.beans)
            balances = list(settlement.balances)
        await self.show_outcomes(table, points, beans, balances, presser)
        self.update_table(table)  # the final state, then the result below it
        self.post_result(table, points, beans, standings)
        if match is not None and not table.result_due:  # a challenge's: nothing to wait for
            await match.deal_over(table)

    async def show_outcomes(self, table: Table, points: list[int], beans: list[int],
                            balances: list[int | None] | None,
                            presser: int | None = None) -> None:
        """Draw every human's final hand message (seat ``presser`` first) with its outcome
        line (:func:`bot.presentation.views.outcome_line`): won or lost and the points, plus the
        beans and the new balance where ``balances`` (the settlement's) are given; a practice or
        match deal says points only; at a practice table its player left, that nothing was charged
        (lock held)."""
        lines: list[str | None] = []
        result = table.state.result if table.state is not None else None
        for seat in range(len(table.seats)):
            if table.practice and result is not None and seat in result.escaped:
                lines.append(t("hand.practice_left", table.seat_lang(seat)))
                continue
            balance = balances[seat] if balances is not None and seat < len(balances) else None
            shown = None if balance is None else beans[seat]
            won = None if result is None or result.winner is None or result.landlord is None \
                else (seat == result.landlord) == (result.winner == "landlord")
            lines.append(views.outcome_line(
                points[seat], shown, balance, table.seat_lang(seat), won=won,
                penalized=result is not None and seat in result.autoplay_penalized))
        self.outcomes[table.key] = lines
        for seat in _hand_order(table, presser):  # every player waits for this one
            await self.show_hand(table, seat, rank=PRESSER if seat == presser else PROMPT)

    def post_result(self, table: Table, points: list[int], beans: list[int],
                    standings: Standings | None = None) -> None:
        """Post the result of the table's last deal with "Play again" (``points`` and
        ``beans`` per seat, as settled) in the background; once it was sent the table is
        stored with ``result_due`` off. Until then it is posted again every
        :data:`RESULT_RETRY_SECONDS` (a failed send) and after a restart (the step is
        idempotent: a table whose result was posted is not posted again). A match deal's
        result (``standings``: the match's standings, in the caption and drawn under the
        picture) has no button; once it was sent the match deals on
        (:meth:`MatchHook.deal_over`, under the lock), and until then it is posted again as a
        deal's result is (a send that failed lost it once, and the match dealt on without
        it). A challenge's (``result_due`` off) is posted once."""
        state = table.state
        assert state is not None
        view = state.view(0)
        scene = scenes.result_scene(table, view, state.hands, points, beans)
        breakdown = scenes.result_breakdown(scene) if scene is not None else []
        again = standings is None and someone_stays(table)
        # Play again's note where it is offered: not at a practice table, nor in a match
        seconds = self.ctx.settings.lobby_timeout if again and not table.private else None
        text, keyboard = views.result_view(table, view, points, beans, breakdown, seconds,
                                           again=again)
        markup: Keyboard | None = keyboard
        if standings is not None:
            text, markup = f"{text}\n\n{standings.text}", None
        if scene is not None and table.pictures and standings is not None \
                and standings.scene is not None:
            drawing = Drawing(text, markup, (scene, standings.scene),
                              partial(render_result_with_standings, scene, standings.scene),
                              "result.png")
        elif scene is not None and table.pictures:
            drawing = Drawing(text, markup, scene, partial(render_result, scene), "result.png")
        elif table.pictures and standings is not None and standings.scene is not None:
            # a match deal with no result picture (left during the bidding): the standings
            drawing = Drawing(text, markup, standings.scene,
                              partial(render_standings, standings.scene), "standings.png")
        else:
            drawing = Drawing(text, markup)
        deal_id = table.deal_id
        match = self._hook(table) if standings is not None else None

        async def sent(message_id: int) -> None:
            # under the lock: with several workers the stored table may have moved on
            async with self.ctx.tables.lock(table.key):
                if table.deal_id != deal_id or table.phase != RESULT or not table.result_due:
                    return
                if table.ready:  # Play again is offered on it: its keyboard goes once answered
                    table.result_message_id = message_id
                table.result_due = False
                if self.ctx.tables.get(table.key) is table:
                    self.ctx.outlet.cancel(timers.RESULT, table.key)
                    if match is not None:
                        await match.deal_over(table)  # stores the next deal, or the end
                    else:
                        await self.ctx.save(table)

        if table.tournament is not None:  # each seat's private chat, once (nothing waits)
            for seat, player in table.humans():
                if player.user_id is not None and not player.blocked:
                    self.ctx.outlet.post(f"{table.key}#result{seat}", player.user_id, drawing)
            return
        self.ctx.outlet.post(f"{table.key}#result", table.chat_id, drawing, table.thread_id,
                             sent=sent)
        if not table.result_due:
            return  # a challenge's: shown once, nothing waits for it

        async def retry(stamp: timers.Stamp) -> None:
            async with self.ctx.tables.lock(stamp.key):
                if self.ctx.tables.get(stamp.key) is table and table.token == stamp.token \
                        and table.result_due and table.deal_id == deal_id:
                    if self.ctx.outlet.posting(f"{table.key}#result"):
                        arm()  # still on its way: look again later (it may fail yet)
                    else:
                        self.post_result(table, points, beans, standings)

        def arm() -> None:
            self.ctx.outlet.arm(timers.RESULT, timers.Stamp(table.key, table.token),
                                time.time() + RESULT_RETRY_SECONDS, retry)

        arm()

    async def post_due_result(self, table: Table) -> None:
        """Post the stored result of the table's last deal, still due (``result_due``: after a
        restart, or in a group's new supergroup) (lock held): points and beans as settled; a
        practice deal (cancelled, nobody paid) shows its points and no beans. A match's is
        posted by the match, with its standings, before it deals on (:meth:`Matches.resume`).
        Nothing when this process is sending it right now (``Outlet.posting``: a dead worker's
        watchdog resumed the table between the send and its ``sent`` callback, which waits for
        the lock to record it; before, a second result with live Play again buttons)."""
        if table.match_id is not None:
            return
        if table.deal_id is None:
            table.result_due = False
            return
        if self.ctx.outlet.posting(f"{table.key}#result"):
            # on its way from this process: its sent callback records it; should the send
            # fail, the result timer posts it then
            self.ctx.outlet.arm(timers.RESULT, timers.Stamp(table.key, table.token),
                                time.time() + RESULT_RETRY_SECONDS, self._retry_due)
            return
        record = await self.ctx.store.get_deal(table.deal_id)
        state = DealState.from_json(record.state_json)
        if state.result is None:
            log.warning("table %s: deal %s has no result to post", table.key, table.deal_id)
            table.result_due = False
            await self.ctx.save(table)
            return
        table.state = state
        if record.result is not None:
            points, beans = list(record.result["points"]), list(record.result["beans"])
        else:
            points, beans = result_points(table, state), [0] * len(state.result.points)
        self.post_result(table, points, beans)

    async def _retry_due(self, stamp: timers.Stamp) -> None:
        """The result timer armed by :meth:`post_due_result`: post the result if it is still
        due at the table of that token."""
        async with self.ctx.tables.lock(stamp.key):
            table = self.ctx.tables.get(stamp.key)
            if table is not None and table.token == stamp.token and table.phase == RESULT \
                    and table.result_due:
                await self.post_due_result(table)

    async def close_hands(self, table: Table) -> None:
        """Take the buttons off every hand message of a deal that was stopped, and withdraw the
        turn notices (lock held)."""
        state = table.state
        await self._withdraw_notices(table, every=True)
        for i, seat in table.humans():
            message_id = table.hand_message_ids[i] if i < len(table.hand_message_ids) else None
            if message_id is None or seat.blocked or state is None or seat.user_id is None:
                continue
            if seat.in_group:  # an ephemeral message: taken away (the table says it stopped)
                await self.ctx.outlet.withdraw_hand(table.chat_id, seat.user_id, message_id)
                continue
            text = views.hand_stopped_text(table, state.view(i))
            photo = i < len(table.hand_photos) and table.hand_photos[i]
            await self.ctx.outlet.close(seat.user_id, message_id, photo, text)

    # --- Leaving and stopping ------------------------------------------------------------------

    async def leave(self, table: Table, seat: int, *, ack: Ack | None = None) -> None:
        """The seat's player leaves the running deal: the engine's ``leave`` (escape penalty,
        RULES.md §9); the seat is auto-played to the end (lock held). The caller tells the
        audience (the /leave prompt becomes the announcement).

        Raises:
            IllegalAction: the engine refused (e.g. the seat already left).
        """
        await self.act(table, Action("leave", seat), ack=ack)

    async def stop(self, table: Table) -> None:
        """Cancel the running deal: nobody pays (``store.cancel_deal``); the hands lose their
        buttons (lock held; the caller closes the table)."""
        state = table.state
        self.ctx.cancel_timers(table.key)
        if table.deal_id is not None and state is not None:
            await self.ctx.store.cancel_deal(_deal_id(table), state.to_json())
        await self.close_hands(table)


def _quiet(task: asyncio.Task[Advice]) -> None:
    """Retrieve a finished advice task's error (logged by whoever awaits it, if anyone)."""
    if not task.cancelled():
        task.exception()


def someone_stays(table: Table) -> bool:
    """A human seat of the table did not leave its last deal: Play again is offered to it
    after the result (:mod:`bot.game.again`); when every human left (RULES.md §9) nobody is
    left to answer, so the result has no buttons and the table is free at once (a /newgame
    or /practice replaces it)."""
    return any(not seat.left for _, seat in table.humans())


def result_points(table: Table, state: DealState) -> list[int]:
    """Per seat, the points a finished deal's result shows (``state.result`` set): the
    engine's (RULES.md §7, §9), but all 0 at a practice table its player left: practice counts
    for nothing, so leaving it costs no escape penalty (README)."""
    result = state.result
    assert result is not None
    if table.practice and result.escaped:
        return [0] * len(result.points)
    return list(result.points)


def _padded(values: list[int | None], n: int) -> list[int | None]:
    """``values`` with ``None`` added up to ``n`` items."""
    return values + [None] * (n - len(values))


def _deal_id(table: Table) -> int:
    """The store's id of the table's running deal (there is one while a deal runs)."""
    assert table.deal_id is not None, f"table {table.key} has no deal"
    return table.deal_id


@dataclass(frozen=True)
class _TableJob:
    """The outbox's job for a table's audience message (:meth:`DealDriver._table_job`), with
    :meth:`prepare` for the picture it will draw (:meth:`DealDriver._prepare_table`)."""

    driver: DealDriver
    key: str
    viewer: int | None = None  # a tournament table's seat whose private chat shows it
    watcher: int | None = None  # a member who watches a tournament table (user id)

    async def __call__(self) -> bool:
        return await self.driver._table_job(self.key, self.viewer, self.watcher)

    async def prepare(self) -> None:
        await self.driver._prepare_table(self.key, self.viewer, self.watcher)

    def fresh(self) -> bool:
        """The deal's table was not drawn yet: its first picture is new to the group."""
        return self.driver._table_fresh(self.key, self.viewer, self.watcher)


def _viewed(viewer: int | None, watcher: int | None = None) -> str:
    """The ``rendered``/``pictured`` key of the table message seen by ``viewer`` (a
    tournament table's seat), by ``watcher`` (a member who watches it, by user id), or of the
    audience's (both ``None``)."""
    if watcher is not None:
        return f"{TABLE}@{watcher}"
    return TABLE if viewer is None else f"{TABLE}{viewer}"


def _hand_order(table: Table, first: int | None) -> list[int]:
    """The human seats, seat ``first`` (the presser) before the others."""
    order = [i for i, _ in table.humans()]
    if first in order:
        order.remove(first)
        order.insert(0, first)
    return order


#: The signature of the hand message of a seat that left the running deal: it says so once;
#: the cards auto-play plays for it meanwhile are not worth an edit each.
_LEFT = "left"


#: Where a waiting seat's signature puts its call-out (:func:`_waiting_signature`).
_CALLOUT_MARK = "\x1f"


def _waiting_signature(drawing: Drawing, said: str | None) -> str:
    """The signature of a waiting seat's hand message (what the others did last and whom it
    waits for: :func:`bot.presentation.views.others_line`, redrawn at every decision). The
    call-out ``said`` on it (:func:`bot.presentation.views.callout`) comes last, after
    :data:`_CALLOUT_MARK`, so that :func:`_gone_callout` can leave it out."""
    lines = drawing.text.split("\n")
    text = "\n".join(line for line in lines if said is None or line != said)
    base = f"{text}\n{keyboard_signature(drawing.markup)}\n{drawing.key!r}"
    return base if said is None else f"{base}{_CALLOUT_MARK}{said}"


def _gone_callout(signature: str | None) -> str | None:
    """A waiting seat's drawn signature without its call-out: a call-out is worth an edit
    when it comes (announced as it happens), not when it goes after its
    round of turns (two edits a call-out and waiting seat); it gives way at the
    seat's next edit for another reason, at the latest its next turn."""
    return None if signature is None else signature.split(_CALLOUT_MARK, 1)[0]


def _notice_text(table: Table, seat: int) -> str:
    """The private notice that ``seat`` is to act, in its player's language, naming the group
    when it has a title; a challenge deal's names its challenge and deal (``复式挑战 #3 · 第
    2 副``), not the group, whose own table the player may sit at too."""
    lang = table.seat_lang(seat)
    if table.challenge_id is not None and table.challenge_deal is not None:
        where = t("challenge.notice_where", lang, id=table.challenge_id,
                  deal=table.challenge_deal)
        return t("notice.your_turn_in", lang, group=where)
    if table.title:
        return t("notice.your_turn_in", lang, group=table.title)
    return t("notice.your_turn", lang)


def seat_facts(state: DealState) -> list[SeatFacts]:
    """Per seat, what it did in a finished deal, for the store's statistics."""
    result = state.result
    assert result is not None
    if result.landlord is None:
        return []
    bombs = [0] * state.rules.seats
    for action in state.history:
        if action.kind == "play":
            readings = classify(action.cards or (), state.rules)
            if readings and readings[0].type in BOMB_TYPES:
                bombs[action.seat] += 1
    facts = []
    for seat in range(state.rules.seats):
        landlord = seat == result.landlord
        won = (result.winner == "landlord") == landlord if result.winner else False
        facts.append(SeatFacts(
            role="landlord" if landlord else "farmer", won=won, bombs=bombs[seat],
            spring=won and (result.spring or result.anti_spring),
            escaped=seat in result.escaped,
        ))
    return facts
