"""The players' hand messages: where each human's hand goes for a deal (the group or the
private chat), how it is drawn, and when it is sent or edited: directly under the table's lock
(the presser's, the prompts) or by the outbox in the background (the seats that only watch);
🂠 My cards and moving a hand between the group and the private chat."""

from __future__ import annotations

import asyncio
import logging
from functools import partial

from bot.core.i18n import t
from bot.core.table import DEAL, Table
from bot.game.context import GameContext
from bot.game.deal.common import ACTIVE, seconds_left
from bot.game.drawing import Drawing, keyboard_signature
from bot.game.outlet import PRESSER, PROMPT, WATCHER, Unreachable
from bot.presentation import hands, scenes, views
from engine import SeatView
from images import render_hand

log = logging.getLogger(__name__)


class Hands:
    """Draws and delivers the hand messages of every table's human seats."""

    def __init__(self, ctx: GameContext) -> None:
        self.ctx = ctx
        #: Per table key, each seat's last line once its deal is settled
        #: (:func:`bot.presentation.views.outcome_line`: won or lost, points, beans, balance).
        self.outcomes: dict[str, list[str | None]] = {}
        #: (table key, seat) whose hand message shows the seat waiting (not a prompt): while
        #: the bot is to act it waits for the bot's move (:meth:`shows_waiting`).
        self._waiting_drawn: set[tuple[str, int]] = set()
        #: (table key, seat): the seconds left that the seat's hand message shows.
        self._drawn_seconds: dict[tuple[str, int], float] = {}
        #: (table key, seat): held while the seat's hand message is drawn and sent, so that a
        #: watcher's edit in the background and a direct one never overtake each other.
        self._hand_locks: dict[tuple[str, int], asyncio.Lock] = {}

    async def place(self, table: Table) -> None:
        """Where each human seat's hand goes for a new deal: into the group (an ephemeral
        message only its player sees) at a table whose hands may be there
        (:func:`bot.presentation.hands.may_be_in_group`) when the player chose so, or left it
        to the table (``table.options.hands``, the group's setting), or cannot be written to
        privately; else into their private chat."""
        ctx = self.ctx
        allowed = hands.may_be_in_group(table)
        for _, player in table.humans():
            player.in_group = False
            if not allowed or player.user_id is None:
                continue
            record = await ctx.store.get_player(player.user_id)
            choice = (record.hands if record is not None else None) or table.options.hands
            player.in_group = choice == "group" \
                or ctx.private_chats.known(player.user_id) is False
            if player.in_group:
                player.blocked = False  # the private chat is not needed

    def shows_waiting(self, table: Table, seat: int) -> bool:
        """The seat's hand message, as last drawn, shows the seat waiting (not a prompt)."""
        return (table.key, seat) in self._waiting_drawn

    @staticmethod
    def watching(table: Table, seat: int) -> bool:
        """The seat only watches the running deal (not to act, its hand message sent)."""
        state, hand_message_ids = table.state, table.messages.hand_message_ids
        return state is not None and state.phase in ACTIVE and seat not in state.to_act \
            and seat < len(hand_message_ids) and hand_message_ids[seat] is not None

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
        old = table.messages.hand_message_ids[seat]
        table.messages.hand_message_ids[seat] = None
        table.messages.rendered.pop(seat, None)
        table.messages.pictured.pop(seat, None)
        await self.show_hand(table, seat, rank=PRESSER)
        if table.messages.hand_message_ids[seat] is None:
            table.messages.hand_message_ids[seat] = old  # not sent: the old one (if any) stays
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
        old, photo = table.messages.hand_message_ids[seat], table.messages.hand_photos[seat]
        table.messages.hand_message_ids[seat] = None
        table.messages.hand_photos[seat] = False
        table.messages.rendered.pop(seat, None)
        table.messages.pictured.pop(seat, None)
        player.in_group = to_group
        if to_group:
            player.blocked = False
        try:
            async with self._hand_lock(table.key, seat):
                await self._draw_hand(table, seat, PRESSER, clock=True)
        except Unreachable:  # the private chat is closed after all: the hand stays here
            self.ctx.private_chats.unreachable(user_id)
            player.in_group = True
            table.messages.hand_message_ids[seat], table.messages.hand_photos[seat] = old, photo
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
        seconds = seconds_left(table)
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
        before = table.messages.rendered.get(seat)
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
                table.chat_id, player.user_id, table.messages.hand_message_ids[seat],
                table.messages.hand_photos[seat], table.messages.pictured.get(seat), drawing,
                rank=rank)
            if shown is None:  # nothing shows it: the player's next press sends it
                table.messages.hand_message_ids[seat] = None
                table.messages.rendered.pop(seat, None)
                table.messages.pictured.pop(seat, None)
                return True
        else:
            shown = await self.ctx.outlet.present(
                player.user_id, table.messages.hand_message_ids[seat],
                table.messages.hand_photos[seat], table.messages.pictured.get(seat), drawing,
                rank=rank)
        if shown is not None:
            table.messages.hand_message_ids[seat], table.messages.hand_photos[seat] = shown
            table.messages.pictured[seat] = drawing.key
            table.messages.rendered[seat] = drawn
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
            seconds = seconds_left(table)
        text, markup = views.hand_view(table, view, seconds, outcome)
        if view.phase in ACTIVE and not view.escaped[seat]:
            markup = hands.with_switch(markup, table, seat)
        if not table.options.pictures:
            return Drawing(text, markup)
        cards, chosen = scenes.hand_picture(view, ())  # the selection: caption and keyboard
        lang = table.seat_lang(seat)
        key: object = (cards, chosen) if cards else ("played out", lang)  # its words: lang's
        return Drawing(text, markup, key,
                       partial(render_hand, cards, chosen, labels=scenes.picture_labels(lang)),
                       "hand.png")


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
