"""The private messages around a turn: the notifying "your turn" message (edits of a hand
message notify nobody), the auto-play notice with its Take back button after a timeout, and
their withdrawal once they are no longer true."""

from __future__ import annotations

from bot.core.i18n import t
from bot.core.table import DEAL, Seat, Table
from bot.game.context import GameContext
from bot.game.deal.common import ACTIVE, is_auto, padded
from bot.game.deal.picture import TablePicture
from bot.game.outlet import Unreachable
from bot.presentation import views


class Notices:
    """Sends and withdraws the turn and auto-play notices of every table's human seats."""

    def __init__(self, ctx: GameContext, picture: TablePicture) -> None:
        self.ctx = ctx
        self.picture = picture

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
                if message_id is not None:  # its button goes once used (withdraw_notices)
                    table.messages.autoplay_notices = padded(table.messages.autoplay_notices,
                                                             len(table.seats))
                    table.messages.autoplay_notices[seat] = message_id
                    await self.ctx.save(table)
        if not table.private:
            name = views.seat_name(player, seat, table.lang)
            self.picture.say(table, t("table.timeout", table.lang, name=name))

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
                    or table.messages.turn_notices[seat] or player.user_id is None \
                    or self._out_of_reach(player):
                continue
            try:
                message_id = await self.ctx.outlet.send(
                    player.user_id, _notice_text(table, seat), notify=True)
            except Unreachable:
                self._unreachable(player)
                continue
            if message_id is not None:
                table.messages.turn_notices[seat] = message_id
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

    async def withdraw_notices(self, table: Table, *, every: bool = False) -> None:
        """Delete the pending "your turn" messages of seats no longer to act (or ``every``);
        :meth:`strip_autoplay_notices` likewise."""
        state = table.state
        await self.strip_autoplay_notices(table, every=every)
        for seat, player in table.humans():
            notices = table.messages.turn_notices
            pending = notices[seat] if seat < len(notices) else None
            if pending is None or player.user_id is None:
                continue
            due = state is not None and state.phase in ACTIVE and seat in state.to_act \
                and not state.autoplay[seat] and not player.left
            if due and not every:
                continue
            table.messages.turn_notices[seat] = None
            await self.ctx.outlet.delete(player.user_id, pending)

    async def strip_autoplay_notices(self, table: Table, *, every: bool = False) -> None:
        """Take the Take back button off the auto-play notices (:meth:`tell_timeout`) of seats
        no longer on auto-play or that left (or ``every``: the deal ended or is dealt again,
        the buttons carry the old token), one ``editMessageReplyMarkup`` each: no
        live-looking button outlives its use (lock held)."""
        state = table.state
        for seat, player in table.humans():
            notices = table.messages.autoplay_notices
            notice = notices[seat] if seat < len(notices) else None
            if notice is None or player.user_id is None:
                continue
            if not every and state is not None and state.autoplay[seat] and not player.left:
                continue
            table.messages.autoplay_notices[seat] = None
            await self.ctx.outlet.strip(player.user_id, notice)


def _notice_text(table: Table, seat: int) -> str:
    """The private notice that ``seat`` is to act, in its player's language, naming the group
    when it has a title; a challenge deal's names its challenge and deal (``复式挑战 #3 · 第
    2 副``), not the group, whose own table the player may sit at too."""
    lang = table.seat_lang(seat)
    if table.competition.challenge_id is not None and table.competition.challenge_deal is not None:
        where = t("challenge.notice_where", lang, id=table.competition.challenge_id,
                  deal=table.competition.challenge_deal)
        return t("notice.your_turn_in", lang, group=where)
    if table.title:
        return t("notice.your_turn_in", lang, group=table.title)
    return t("notice.your_turn", lang)
