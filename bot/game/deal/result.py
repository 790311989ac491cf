"""The end of a deal: settled once it is finished (or cancelled at a practice table, or by
the competition played at the table), the final hands drawn with each player's outcome, the
result posted until it was sent; or stopped, nobody paying."""

from __future__ import annotations

import logging
import time
from functools import partial

from bot.core.i18n import t
from bot.core.table import RESULT, Table
from bot.game import timers
from bot.game.context import GameContext
from bot.game.deal.common import hand_order, running_deal_id
from bot.game.deal.hands import Hands
from bot.game.deal.hooks import Hooks, Standings, competition
from bot.game.deal.notices import Notices
from bot.game.deal.picture import TablePicture
from bot.game.drawing import Drawing
from bot.game.outlet import PRESSER, PROMPT
from bot.presentation import scenes, views
from bot.presentation.keyboards import Keyboard
from bot.store import SeatFacts
from engine import ActionKind, ComboType, DealState, classify
from images import render_result
from images.standings import render_result_with_standings, render_standings

log = logging.getLogger(__name__)

#: Seconds after which a result that was not sent yet (``DealProgress.result_due``) is posted again.
RESULT_RETRY_SECONDS = 30.0

#: Plays counted as bombs in a player's statistics (RULES.md §5, §11: 天尊 too).
BOMB_TYPES = (ComboType.BOMB, ComboType.ROCKET, ComboType.JOKER_BOMB)


class Results:
    """Ends the deals of every table: settles, shows the outcomes, posts the results."""

    def __init__(self, ctx: GameContext, hooks: Hooks, hands: Hands, picture: TablePicture,
                 notices: Notices) -> None:
        self.ctx = ctx
        self.hooks = hooks
        self.hands = hands
        self.picture = picture
        self.notices = notices

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
        await self.notices.withdraw_notices(table, every=True)
        table.phase = RESULT
        # RULES.md §1.4 option winner_bids_first: the seat that played out bids first next
        table.progress.last_winner = (state.counts.index(0) if state.result.winner is not None
                                      else None)
        table.progress.deadline = None
        match = competition(self.hooks, table)
        # a match's result is posted once, with its standings, before the match deals on; it
        # is due until then (stored with the settlement: a worker that dies in between leaves
        # it to the next, :meth:`bot.features.match.driver.Matches.resume`)
        table.progress.result_due = match is None or table.competition.match_id is not None
        offer = match is None and someone_stays(table)
        if offer:
            table.offer_again(time.time() + ctx.settings.lobby_timeout)
        else:
            table.progress.ready = []  # nobody to answer: the table is free at once
        ctx.tables.retoken(table)
        if offer and self.hooks.on_offer is not None:
            self.hooks.on_offer(table)  # its timeout, for the new token
        points = result_points(table, state)
        standings: Standings | None = None
        balances: list[int | None] | None = None
        if table.private and match is None:
            await ctx.store.cancel_deal(running_deal_id(table), state.to_json(),
                                        table=table.to_dict())
            beans = [0] * len(points)
        elif match is not None:
            settlement, standings = await match.settle(table, state)
            points, beans = list(settlement.points), list(settlement.beans)
        else:
            settlement = await ctx.store.settle_deal(
                running_deal_id(table), points, state.to_json(), seat_facts(state),
                version=state.version, table=table.to_dict(),
            )
            points, beans = list(settlement.points), list(settlement.beans)
            balances = list(settlement.balances)
        await self.show_outcomes(table, points, beans, balances, presser)
        self.picture.update_table(table)  # the final state, then the result below it
        self.post_result(table, points, beans, standings)
        # a challenge's: nothing to wait for
        if match is not None and not table.progress.result_due:
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
        self.hands.outcomes[table.key] = lines
        for seat in hand_order(table, presser):  # every player waits for this one
            await self.hands.show_hand(table, seat, rank=PRESSER if seat == presser else PROMPT)

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
        if scene is not None and table.options.pictures and standings is not None \
                and standings.scene is not None:
            drawing = Drawing(text, markup, (scene, standings.scene),
                              partial(render_result_with_standings, scene, standings.scene),
                              "result.png")
        elif scene is not None and table.options.pictures:
            drawing = Drawing(text, markup, scene, partial(render_result, scene), "result.png")
        elif table.options.pictures and standings is not None and standings.scene is not None:
            # a match deal with no result picture (left during the bidding): the standings
            drawing = Drawing(text, markup, standings.scene,
                              partial(render_standings, standings.scene), "standings.png")
        else:
            drawing = Drawing(text, markup)
        deal_id = table.progress.deal_id
        match = competition(self.hooks, table) if standings is not None else None

        async def sent(message_id: int) -> None:
            # under the lock: with several workers the stored table may have moved on
            async with self.ctx.tables.lock(table.key):
                progress = table.progress
                if progress.deal_id != deal_id or table.phase != RESULT or not progress.result_due:
                    return
                # Play again is offered on it: its keyboard goes once answered
                if progress.ready:
                    table.messages.result_message_id = message_id
                table.progress.result_due = False
                if self.ctx.tables.get(table.key) is table:
                    self.ctx.outlet.cancel(timers.RESULT, table.key)
                    if match is not None:
                        await match.deal_over(table)  # stores the next deal, or the end
                    else:
                        await self.ctx.save(table)

        # each seat's private chat, once (nothing waits)
        if table.competition.tournament is not None:
            for seat, player in table.humans():
                if player.user_id is not None and not player.blocked:
                    self.ctx.outlet.post(f"{table.key}#result{seat}", player.user_id, drawing)
            return
        self.ctx.outlet.post(f"{table.key}#result", table.chat_id, drawing, table.thread_id,
                             sent=sent)
        if not table.progress.result_due:
            return  # a challenge's: shown once, nothing waits for it

        async def retry(stamp: timers.Stamp) -> None:
            async with self.ctx.tables.lock(stamp.key):
                if self.ctx.tables.get(stamp.key) is table and table.token == stamp.token \
                        and table.progress.result_due and table.progress.deal_id == deal_id:
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
        if table.competition.match_id is not None:
            return
        if table.progress.deal_id is None:
            table.progress.result_due = False
            return
        if self.ctx.outlet.posting(f"{table.key}#result"):
            # on its way from this process: its sent callback records it; should the send
            # fail, the result timer posts it then
            self.ctx.outlet.arm(timers.RESULT, timers.Stamp(table.key, table.token),
                                time.time() + RESULT_RETRY_SECONDS, self._retry_due)
            return
        record = await self.ctx.store.get_deal(table.progress.deal_id)
        state = DealState.from_json(record.state_json)
        if state.result is None:
            log.warning("table %s: deal %s has no result to post", table.key,
                        table.progress.deal_id)
            table.progress.result_due = False
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
                    and table.progress.result_due:
                await self.post_due_result(table)

    async def close_hands(self, table: Table) -> None:
        """Take the buttons off every hand message of a deal that was stopped, and withdraw the
        turn notices (lock held)."""
        state = table.state
        await self.notices.withdraw_notices(table, every=True)
        for i, seat in table.humans():
            hand_message_ids = table.messages.hand_message_ids
            message_id = hand_message_ids[i] if i < len(hand_message_ids) else None
            if message_id is None or seat.blocked or state is None or seat.user_id is None:
                continue
            if seat.in_group:  # an ephemeral message: taken away (the table says it stopped)
                await self.ctx.outlet.withdraw_hand(table.chat_id, seat.user_id, message_id)
                continue
            text = views.hand_stopped_text(table, state.view(i))
            photo = i < len(table.messages.hand_photos) and table.messages.hand_photos[i]
            await self.ctx.outlet.close(seat.user_id, message_id, photo, text)

    async def stop(self, table: Table) -> None:
        """Cancel the running deal: nobody pays (``store.cancel_deal``); the hands lose their
        buttons (lock held; the caller closes the table)."""
        state = table.state
        self.ctx.cancel_timers(table.key)
        if table.progress.deal_id is not None and state is not None:
            await self.ctx.store.cancel_deal(running_deal_id(table), state.to_json())
        await self.close_hands(table)


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


def seat_facts(state: DealState) -> list[SeatFacts]:
    """Per seat, what it did in a finished deal, for the store's statistics."""
    result = state.result
    assert result is not None
    if result.landlord is None:
        return []
    bombs = [0] * state.rules.seats
    for action in state.history:
        if action.kind == ActionKind.PLAY:
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
