"""Dealing: a new deal at a full table (its settings' snapshot, the first bidder, the hands'
places, the store's record), and a deal everybody passed dealt again in place (RULES.md §2),
or the table closed after too many redeals in a row."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import replace

from bot.core.i18n import t
from bot.core.rooms import preset_name
from bot.core.table import DEAL, Table
from bot.game import timers
from bot.game.config import TableConfig
from bot.game.context import GameContext
from bot.game.deal.common import running_deal_id, turn_timeout
from bot.game.deal.hands import Hands
from bot.game.deal.hooks import Hooks, competition
from bot.game.deal.notices import Notices
from bot.game.deal.picture import TablePicture
from bot.game.deal.result import Results
from bot.presentation import views
from bot.store import SeatRecord
from engine import Action, ActionKind, apply, new_deal, next_first_bidder
from engine.redeal import REDEAL_VALVE

#: Redeals in a row (everybody passed) after which a table closes rather than deal forever: the
#: documented safety valve of ``redeal_rule`` ``redeal`` (RULES.md §2.3); the other rules never
#: redeal more than twice in a row.
MAX_REDEALS = REDEAL_VALVE


class Dealer:
    """Deals the deals of every table."""

    def __init__(self, ctx: GameContext, hooks: Hooks, hands: Hands, picture: TablePicture,
                 notices: Notices, results: Results) -> None:
        self.ctx = ctx
        self.hooks = hooks
        self.hands = hands
        self.picture = picture
        self.notices = notices
        self.results = results
        #: Tables whose turn changed since they were last shown (a new deal's, and one that an
        #: action changed: :class:`bot.game.deal.play.Play`): the clock restarts once the new
        #: turn's prompt is drawn.
        self.fresh: set[str] = set()

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
        hook = competition(self.hooks, table)
        if hook is not None:  # the table takes the competition's seats and preset too
            config = replace(config, rules=hook.rules(table, config.match_rules or config.rules))
        self._take_config(table, config)
        rules = config.rules
        old = table.state if redeal else None
        if old is not None:
            first = next_first_bidder(old)
            barred = old.bidding.barred
        elif table.progress.first_bidder is None:
            first = ctx.first_bidder if ctx.first_bidder is not None \
                else random.randrange(rules.seats)
        elif rules.winner_bids_first and table.progress.last_winner is not None \
                and table.progress.last_winner < rules.seats:
            first = table.progress.last_winner
        else:
            first = (table.progress.first_bidder + 1) % rules.seats
        seed = ctx.deal_seed
        if seed is not None and old is not None:
            seed += table.progress.redeals
        all_passed = old.all_passed + 1 if old is not None else 0
        bar = barred if rules.variant == "four" else ()  # RULES.md §11 only
        state = new_deal(rules, seed=seed, first_bidder=first, all_passed=all_passed,
                         barred=bar)
        if table.competition.challenge_id is not None and self.hooks.challenge is not None:
            state = self.hooks.challenge.new_state(table, rules)  # its fixed cards
            first = state.first_bidder
        for seat, _ in table.humans():
            if old is not None and old.autoplay[seat]:
                state = apply(state, Action(ActionKind.AUTOPLAY, seat, value=1))
        if old is not None:
            await self.notices.strip_autoplay_notices(table, every=True)
        ctx.tables.retoken(table)
        table.messages.leave_prompts = [None] * len(table.seats)  # drawn for the old token: void
        table.phase = DEAL
        table.progress.first_bidder = first
        table.state = state
        table.progress.lobby_deadline = None
        table.reset_turn_memory()
        table.messages.rendered.clear()
        if old is None:
            table.progress.redeals = 0
            table.messages.notice = None
            table.reset_messages()
            for player in table.seats:
                player.left = False
            await self.hands.place(table)
        records = [
            SeatRecord(None, views.seat_name(s, i, table.lang), True) if s.is_bot
            else SeatRecord(s.user_id, s.name, False)
            for i, s in enumerate(table.seats)
        ]
        table.progress.deadline = time.time() + turn_timeout(table, state)
        table.progress.result_due = False
        replaces = table.progress.deal_id if old is not None else None
        table.progress.deal_id = await ctx.store.create_deal(
            table.key, table.chat_id, records, rules.to_dict(), max(1, table.options.stake),
            state.to_json(), state.version, match_id=table.competition.match_id, replaces=replaces,
            table=table.to_dict(), for_beans=table.plays_for_beans,
        )
        self.fresh.add(table.key)
        self.hands.outcomes.pop(table.key, None)
        ctx.outlet.cancel(timers.LOBBY, table.key)

    def _take_config(self, table: Table, config: TableConfig) -> None:
        table.lang = config.lang
        table.options.seat_count = config.rules.seats
        table.options.preset = preset_name(config.rules)
        table.options.stake = config.stake if table.plays_for_beans else 0
        table.options.play_timeout = config.play_timeout
        table.options.bid_timeout = config.bid_timeout
        table.options.autoplay_mode = config.autoplay_mode
        table.options.bot_level = config.bot_level
        table.options.pictures = config.pictures
        table.options.card_counter = config.card_counter
        table.options.auto_pass = config.auto_pass
        table.options.hands = config.hands

    async def redeal(self, table: Table) -> None:
        """Everybody passed (RULES.md §2): cancel this deal (nobody pays) and deal again, in one
        store transaction (:meth:`start`). The table's line says so, and on a third deal in a
        row under ``redeal_rule`` ``forced_bid`` who must bid (RULES.md §2.3). After
        :data:`MAX_REDEALS` redeals in a row (``redeal_rule`` ``redeal``, its safety valve) the
        table closes instead, nobody paying, and the group is told in a message of its own
        (lock held)."""
        state = table.state
        assert state is not None
        table.progress.redeals += 1
        if table.progress.redeals >= MAX_REDEALS:
            text = t(f"table.no_bids_{table.options.preset}", table.lang, n=table.progress.redeals)
            await self.ctx.store.cancel_deal(running_deal_id(table), state.to_json())
            await self.results.close_hands(table)
            # a new message: the table message's edit notifies nobody
            self.picture.say(table, text)
            await self.ctx.close_table(table, text)
            return
        await self.start(table, redeal=True)
        notice = t(f"table.redeal_{table.options.preset}", table.lang)
        must = table.state.bidding.must_bid if table.state is not None else None
        if must is not None:
            name = views.seat_name(table.seats[must], must, table.lang)
            notice += "\n" + t(f"table.must_bid_{table.options.preset}", table.lang, name=name)
        table.messages.notice = notice

