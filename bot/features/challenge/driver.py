"""Duplicate challenges (复式挑战, RULES.md §10): opening one in a group, entering,
playing its deals one by one at a private table against two AI seats, the board, and the close
with the revealed seed and the prizes; resumption after a restart.

The rules are :mod:`bot.features.challenge.state` (pure) and the deals :mod:`engine.challenge`; this
module runs them. A challenge deal is a private table (:class:`bot.core.table.Table` with
``challenge_id``, keyed by :func:`bot.core.table.challenge_key`: one per member, so nobody plays
two challenge deals at once, and it never keeps its player from a group's table). The deal
driver calls :class:`Challenges` at its hook points (:class:`bot.game.deal.ChallengeHook`): the
challenge's rules, the deal's fixed cards, the AI seats' seeds, the member's result recorded
with the deal's end in one store transaction, and the end of the deal (the member's menu, the
board).

Choices where the issue and RULES.md are silent:

- The rules are the group's when the challenge opens (three seats, its bidding and house
  options, its time limits), frozen for the whole challenge so that every member plays under
  the same ones; ``all_pass_forced_landlord`` is on (RULES.md §2 house option): a fixed deal
  cannot be dealt again, so when everybody passes the first bidder is landlord at base 1.
- The AI seats play at ``hard``; a member's seat on auto-play follows the group's ``autoplay``
  choice (RULES.md §9), also seeded.
- A deal still being played when the window closes is stopped and does not count.
- One open challenge per group at a time.

Restart-safe: a member's running deal is a stored table like any other and resumes
(:mod:`bot.game.restore`); :meth:`Challenges.restore` re-arms every open window (or closes the
windows that passed while the bot was down) and finishes a deal's end cut short by a crash.

Several workers: the stored challenge is the truth. What changes (its status, pool,
message) is read from the store at every step (:meth:`Challenges._record`); only what never
changes once it is open (its seed, rules, group, window) is kept per worker for the driver's
synchronous hooks. A worker that dies in the middle of a close leaves it to the watchdog of the
challenge's lock, whose worker finishes it (:meth:`Challenges.resume`); the close stops the
challenge's running deals wherever they were stored (by its members' table keys, not this
worker's tables). Two caches stay per worker on purpose, as they only save requests: when the
board was last asked to be drawn (so with N workers it may be drawn up to N times a minute) and
what the group's message shows (a stale one costs one edit that changes nothing).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from zoneinfo import ZoneInfo

from bot.core.i18n import t
from bot.core.numbers import grouped
from bot.core.rooms import preset_name, rules_for
from bot.core.table import DEAL, RESULT, Competition, Seat, Table, challenge_key, table_key
from bot.features.challenge import views as views
from bot.features.challenge.state import (
    ChallengeOptions,
    DealPlay,
    Entrant,
    Standing,
    closes_at,
    matchpoints,
    payout,
    standings,
)
from bot.game import timers
from bot.game.config import TableConfig
from bot.game.context import GameContext
from bot.game.deal import Ack, DealDriver, Standings
from bot.game.drawing import Drawing
from bot.game.lobby import Person
from bot.game.outlet import BoardJob, Unreachable
from bot.presentation.scenes import picture_labels
from bot.store import (
    ChallengeNotOpen,
    ChallengePlay,
    ChallengeRecord,
    ChallengeRefused,
    Settlement,
    Store,
    StoreError,
)
from engine import DealState
from engine.challenge import MEMBER_SEAT, ai_seed, challenge_deal, deal_state, new_seed, seed_hash
from engine.presets import Rules
from images.challenge_board import render_challenge_board

log = logging.getLogger(__name__)

#: Timer kinds: a challenge's window closes; its board may be drawn again; another worker's
#: claim on posting its final ranking has run out.
CLOSE = "challenge_close"
BOARD = "challenge_board"
FINAL = "challenge_final"
#: Seconds between two drawings of a group's board while members play (at most once
#: a minute).
BOARD_INTERVAL = 60.0
#: The level of a challenge's AI seats.
AI_LEVEL = "hard"
#: Bot seats of a challenge table.
AI_SEATS = 2
#: The opener id recorded for a daily challenge (opened by the bot itself).
DAILY_OPENER = 0
#: Seconds a claim on posting a final ranking holds (:meth:`Store.claim_announcement`): longer
#: than one send waiting for 429 answers; once it ran out, a poster that died leaves the ranking
#: to the next one.
ANNOUNCE_CLAIM_SECONDS = 120.0
#: The start of a challenge's lock key (a table key never starts so: it is a chat id).
LOCK_PREFIX = "challenge:"


def challenge_lock(challenge_id: int) -> str:
    """The lock key of a challenge's own steps (entering, the board, the close)."""
    return f"{LOCK_PREFIX}{challenge_id}"


def challenge_of_lock(key: str) -> int | None:
    """The challenge id of a :func:`challenge_lock` key (its timers' and watchdog's key);
    ``None`` for any other key (a table's)."""
    if not key.startswith(LOCK_PREFIX):
        return None
    number = key[len(LOCK_PREFIX):]
    return int(number) if number.isdigit() else None


class Challenges:
    """The duplicate challenges of every group (see the module docstring)."""

    def __init__(self, ctx: GameContext, deals: DealDriver) -> None:
        self.ctx = ctx
        self.deals = deals
        deals.challenge = self
        #: challenge id → its record as last read; only the fields fixed when it opened are
        #: used from here (the driver's synchronous hooks): the rest is read at every step.
        self._fixed: dict[int, ChallengeRecord] = {}
        #: challenge id → when its board was last asked to be drawn (``clock`` seconds).
        self._board_asked: dict[int, float] = {}
        #: challenge id → the signature of the board its message shows.
        self._board_shown: dict[int, str] = {}
        #: Seconds between two drawings of a board (a test hook).
        self.board_interval = BOARD_INTERVAL
        #: UTC seconds now (a test hook).
        self.clock: Callable[[], float] = time.time

    # --- Opening -------------------------------------------------------------------------------

    async def open(
        self, chat_id: int, thread_id: int | None, title: str, opener: Person,
        options: ChallengeOptions, *, daily: str | None = None,
    ) -> tuple[int | None, str]:
        """Open a challenge in a group: a fresh seed, its SHA-256 published in the group message
        with the board and the Enter button, the window's close armed. Returns ``(id, "")``,
        or ``(None, why not)`` in the group's language (one is open here already, or the
        group message could not be sent)."""
        st = self.ctx.store
        group = await st.get_group_settings(chat_id)
        config = TableConfig.of(group, default_language=self.ctx.settings.default_language,
                                play_timeout=self.ctx.settings.play_timeout,
                                bid_timeout=self.ctx.settings.bid_timeout)
        rules = replace(rules_for({**group, "players": 3}), all_pass_forced_landlord=True)
        seed = new_seed()
        now = datetime.fromtimestamp(self.clock(), UTC)
        stored = {**options.to_dict(), "rules": rules.to_dict(), "title": title,
                  "lang": config.lang, "tz": group["timezone"], "pictures": config.pictures,
                  "play_timeout": config.play_timeout, "bid_timeout": config.bid_timeout,
                  "autoplay": config.autoplay_mode}
        try:
            challenge_id = await st.open_challenge(
                chat_id, thread_id, opener.user_id, stored, options.entry_fee, seed,
                seed_hash(seed), closes_at(now, options.days, group["timezone"]), daily=daily)
        except ChallengeRefused as exc:
            return None, t(f"challenge.refused_{exc.code}", config.lang)
        record = await self._record(challenge_id)
        drawing = await self._drawing(record)
        try:
            shown = await self.ctx.outlet.present(chat_id, None, False, None, drawing, thread_id)
        except Unreachable:
            shown = None
        if shown is not None:
            self._board_shown[challenge_id] = drawing.signature
            await st.set_challenge_message(challenge_id, shown[0])
        self._arm_close(record)
        return challenge_id, ""

    async def open_daily(self, chat_id: int, title: str) -> int | None:
        """The group's daily challenge (its ``daily_challenge`` setting): opened by the bot
        with the default options (6 deals, until the end of the group's day, no fee) once per
        day of the group's time zone, unless a challenge is open there already. Returns the
        new challenge's id, or ``None`` when none was opened."""
        group = await self.ctx.store.get_group_settings(chat_id)
        if not group["daily_challenge"]:
            return None
        day = datetime.fromtimestamp(self.clock(), ZoneInfo(group["timezone"])).date()
        challenge_id, _ = await self.open(chat_id, None, title, Person(DAILY_OPENER, ""),
                                          ChallengeOptions(), daily=day.isoformat())
        return challenge_id

    async def _record(self, challenge_id: int) -> ChallengeRecord:
        """The challenge as stored now (another worker may have changed it).

        Raises:
            UnknownChallenge (a ``StoreError``): no such challenge.
        """
        record = self._fixed[challenge_id] = await self.ctx.store.get_challenge(challenge_id)
        return record

    # --- Entering and playing ------------------------------------------------------------------

    async def enter(self, challenge_id: int, person: Person, lang: str, chat_id: int) -> str:
        """The Enter button, pressed in group ``chat_id``: the member is written to privately
        first (a closed private chat refuses, nothing taken; either is remembered,
        :class:`~bot.game.reach.PrivateChats`), then entered with the fee, gets
        their menu of deals and the board is drawn again. Returns the pop-up text in ``lang``
        (the presser's). A press whose button names a challenge of another group (forged
        callback data: the ids are public and count up) is refused as an invalid button."""
        st = self.ctx.store
        async with self.ctx.tables.lock(challenge_lock(challenge_id)):
            try:
                record = await self._record(challenge_id)
            except StoreError:
                return t("challenge.pop_unknown", lang)
            if record.chat_id != chat_id:
                return t("pop.invalid", lang)
            if record.status != "open" or record.closes_at.timestamp() <= self.clock():
                return t("challenge.pop_closed", lang)
            if any(e.user_id == person.user_id for e in await st.challenge_entries(challenge_id)):
                return t("challenge.pop_entered", lang)
            player = await st.ensure_player(person.user_id, person.name, person.language)
            own = player.language or lang
            if player.balance < record.entry_fee:
                return t("challenge.pop_fee", lang, fee=grouped(record.entry_fee),
                         balance=grouped(player.balance))
            try:
                sent = await self.ctx.outlet.send(person.user_id, t(
                    "challenge.welcome", own, title=views.title(challenge_id, own),
                    group=record.options.get("title", "")))
            except Unreachable:
                self.ctx.private_chats.unreachable(person.user_id)
                return t("challenge.pop_need_private", lang)
            if sent is not None:
                self.ctx.private_chats.reached(person.user_id)
            try:
                await st.enter_challenge(challenge_id, person.user_id, person.name)
            except ChallengeRefused as exc:
                return t(f"challenge.pop_{exc.code}", lang, fee=grouped(record.entry_fee),
                         balance=grouped(player.balance))
        await self.send_menu(challenge_id, person.user_id, own)
        self.refresh_board(challenge_id)
        return t("challenge.pop_welcome", lang)

    async def send_menu(self, challenge_id: int, user_id: int, lang: str) -> None:
        """Send the member their menu of the challenge's deals (private chat)."""
        record = await self._record(challenge_id)
        if record.status != "open":
            return
        played = {p.deal: p.points for p in await self.ctx.store.challenge_plays(challenge_id)
                  if p.user_id == user_id}
        text, markup = views.menu(challenge_id, str(record.options.get("title", "")),
                                  _options(record), played, record.closes_at,
                                  str(record.options["tz"]), lang)
        try:
            await self.ctx.outlet.send(user_id, text, markup)
        except Unreachable:
            log.info("cannot write the challenge menu to user %s", user_id)

    async def play(self, challenge_id: int, deal: int, person: Person, lang: str,
                   ack: Ack | None = None) -> str | None:
        """A ▶ button of the member's menu: deal challenge deal ``deal`` at their challenge
        table. ``None`` when dealt (``ack`` was awaited before dealing, to answer the press
        first), else why not in ``lang``: not open, not entered, no such deal, played already
        (each deal once), another challenge deal or a practice deal still running (their hands
        would share the private chat); nothing changed then."""
        st = self.ctx.store
        try:
            record = await self._record(challenge_id)
        except StoreError:
            return t("challenge.pop_unknown", lang)
        if record.status != "open" or record.closes_at.timestamp() <= self.clock():
            return t("challenge.pop_closed", lang)
        if not 1 <= deal <= _options(record).deals:
            return t("challenge.pop_no_deal", lang)
        entries = await st.challenge_entries(challenge_id)
        if all(e.user_id != person.user_id for e in entries):
            return t("challenge.pop_not_entered", lang)
        key = challenge_key(person.user_id)
        async with self.ctx.tables.lock(key):
            current = self.ctx.tables.get(key)
            if current is not None and current.phase == DEAL:
                playing = current.competition
                if (playing.challenge_id, playing.challenge_deal) == (challenge_id, deal):
                    return t("challenge.pop_playing", lang, deal=deal)
                return t("challenge.pop_busy", lang, deal=current.competition.challenge_deal,
                         title=views.title(current.competition.challenge_id or 0, lang))
            if any(p.user_id == person.user_id and p.deal == deal
                   for p in await st.challenge_plays(challenge_id)):
                return t("challenge.pop_played", lang, deal=deal)
            practice = self.ctx.tables.get(table_key(person.user_id, None))
            if practice is not None and practice.phase == DEAL:  # one hand in a private chat
                return t("reply.practice_running", lang)
            if current is not None:
                self.ctx.tables.remove(current)
            if ack is not None:
                await ack()
            player = await st.ensure_player(person.user_id, person.name, person.language)
            table = Table(person.user_id, None, lang, title=str(record.options.get("title", "")),
                          opener_id=person.user_id, private=True,
                          competition=Competition(challenge_id=challenge_id,
                                                  challenge_deal=deal))
            table.seats.append(Seat(person.user_id, person.name, lang=player.language or lang))
            for n in range(AI_SEATS):
                table.seats.append(Seat(None, t("seat.bot", lang, n=n + 2), True))
            self.ctx.tables.add(table)
            await self.deals.deal(table)
        return None

    async def view(self, challenge_id: int, deal: int, user_id: int, lang: str,
                   ack: Ack | None = None) -> str | None:
        """A 👁 button: send the member how the others did on a deal they played (``ack``
        first). Returns ``None``, or why not: a deal not played yet stays hidden (its cards
        and the others' results), as does everything for someone who did not enter."""
        st = self.ctx.store
        try:
            record = await self._record(challenge_id)
        except StoreError:
            return t("challenge.pop_unknown", lang)
        if all(e.user_id != user_id for e in await st.challenge_entries(challenge_id)):
            return t("challenge.pop_not_entered", lang)
        if not 1 <= deal <= _options(record).deals:
            return t("challenge.pop_no_deal", lang)
        plays = await st.challenge_plays(challenge_id)
        if all(p.user_id != user_id or p.deal != deal for p in plays):
            return t("challenge.pop_unplayed", lang, deal=deal)
        if ack is not None:
            await ack()
        text = await self._comparison(record, user_id, deal, lang, plays)
        try:
            await self.ctx.outlet.send(user_id, text)
        except Unreachable:
            log.info("cannot write a challenge comparison to user %s", user_id)
        return None

    async def _comparison(self, record: ChallengeRecord, user_id: int, deal: int, lang: str,
                          plays: list[ChallengePlay] | None = None) -> str:
        """The member's result on ``deal`` beside everyone else's who played it."""
        st = self.ctx.store
        cid = record.challenge_id
        if plays is None:
            plays = await st.challenge_plays(cid)
        names = {e.user_id: e.name for e in await st.challenge_entries(cid)}
        on_deal = [p for p in plays if p.deal == deal]
        points = matchpoints({p.user_id: p.points for p in on_deal})
        lines = {}
        for play in on_deal:
            role, line = await self._line(play, lang)
            lines[play.user_id] = views.DealLine(names.get(play.user_id, "?"), play.points,
                                                 role, points[play.user_id], line)
        mine = lines.pop(user_id)
        return views.comparison(cid, deal, _options(record).deals, mine, list(lines.values()),
                                lang)

    async def _line(self, play: ChallengePlay, lang: str) -> tuple[str | None, str]:
        """The member's role in their deal (``None``: nobody bid) and their line of play."""
        if play.deal_id is None:
            return None, ""
        try:
            state = DealState.from_json((await self.ctx.store.get_deal(play.deal_id)).state_json)
        except (StoreError, ValueError):
            return None, ""
        line = views.line_text(state.history, MEMBER_SEAT, state.rules, lang)
        if state.result is None or state.result.landlord is None:
            return None, line
        return ("landlord" if state.result.landlord == MEMBER_SEAT else "farmer"), line

    # --- The driver's hooks (bot.game.deal.ChallengeHook) --------------------------------------

    def rules(self, table: Table, rules: Rules) -> Rules:
        """The challenge's rules, frozen when it opened (see the module docstring)."""
        record = self._fixed[_challenge_id(table)]
        return Rules.from_dict(record.options["rules"])

    def new_state(self, table: Table, rules: Rules) -> DealState:
        """The challenge deal's fixed cards and first bidder (:mod:`engine.challenge`); the
        table takes the challenge's time limits, auto-play choice and the AI's level."""
        record = self._fixed[_challenge_id(table)]
        table.options.bot_level = AI_LEVEL
        table.options.seat_count = rules.seats
        table.options.preset = preset_name(rules)
        table.options.play_timeout = float(record.options["play_timeout"])
        table.options.bid_timeout = float(record.options["bid_timeout"])
        table.options.autoplay_mode = str(record.options.get("autoplay",
                                                             table.options.autoplay_mode))
        assert table.competition.challenge_deal is not None
        return deal_state(challenge_deal(record.seed, table.competition.challenge_deal), rules)

    async def ai_seed(self, table: Table, state: DealState) -> str:
        """``"<seed>:<deal>:<actions so far>"`` (:func:`engine.challenge.ai_seed`)."""
        cid = _challenge_id(table)
        record = self._fixed.get(cid) or await self._record(cid)  # the seed never changes
        assert table.competition.challenge_deal is not None
        return ai_seed(record.seed, table.competition.challenge_deal, len(state.history))

    async def settle(self, table: Table, state: DealState) -> tuple[Settlement, Standings]:
        """Record the member's result (their points from :data:`MEMBER_SEAT`) with the deal's
        end and the table in one store transaction (no beans move); returns the settlement to
        show and the comparison with the others for the result message. A deal finished after
        the window closed is cancelled and does not count (lock held)."""
        result = state.result
        assert result is not None and table.progress.deal_id is not None
        cid, deal = _challenge_id(table), table.competition.challenge_deal
        assert deal is not None
        user_id = table.seats[MEMBER_SEAT].user_id
        assert user_id is not None
        lang = table.seat_lang(MEMBER_SEAT)
        points = result.points[MEMBER_SEAT]
        won = result.landlord == MEMBER_SEAT and result.winner == "landlord"
        record = await self._record(cid)
        try:
            await self.ctx.store.finish_challenge_deal(
                cid, user_id, deal, table.progress.deal_id, points, won, state.to_json(),
                table=table.to_dict())
            text = await self._comparison(record, user_id, deal, lang)
        except ChallengeNotOpen:
            await self.ctx.store.cancel_deal(table.progress.deal_id, state.to_json(),
                                             table=table.to_dict())
            text = t("challenge.not_counted", lang)
        n = len(result.points)
        settlement = Settlement(table.progress.deal_id, 0, tuple(result.points), (0,) * n,
                                (None,) * n)
        return settlement, Standings(text)

    async def deal_over(self, table: Table) -> None:
        """After the deal's result: the member's table is no longer stored (it stays in memory
        showing the end), they get their menu again and the group's board is drawn again (lock
        held)."""
        self.ctx.cancel_timers(table.key)
        await self.ctx.store.delete_table(table.key)
        user_id = table.seats[MEMBER_SEAT].user_id
        cid = _challenge_id(table)
        if user_id is not None:
            await self.send_menu(cid, user_id, table.seat_lang(MEMBER_SEAT))
        self.refresh_board(cid)

    # --- The board -----------------------------------------------------------------------------

    async def board(self, challenge_id: int) -> list[Standing]:
        """The challenge's standings now (:func:`bot.features.challenge.state.standings`)."""
        st = self.ctx.store
        entrants = [Entrant(e.user_id, e.name) for e in await st.challenge_entries(challenge_id)]
        plays = [DealPlay(p.user_id, p.deal, p.points, p.landlord_won, p.finished_at.timestamp())
                 for p in await st.challenge_plays(challenge_id)]
        return standings(entrants, plays)

    async def _drawing(self, record: ChallengeRecord, board: list[Standing] | None = None, *,
                       closed: bool = False, cancelled: bool = False) -> Drawing:
        """The group's challenge message: the board's picture (in the group's pictures mode)
        with the announcement as caption, and the Enter button while it is open; once
        ``closed`` the picture carries the final mark, once ``cancelled`` the cancelled one."""
        if board is None:
            board = await self.board(record.challenge_id)
        options = _options(record)
        lang = str(record.options["lang"])
        text = views.announcement(record.challenge_id, options, record.seed_hash,
                                  record.closes_at, str(record.options["tz"]), board,
                                  record.pool, lang, closed=closed or cancelled,
                                  cancelled=cancelled)
        markup = None if closed or cancelled else views.enter_markup(record.challenge_id, lang)
        if not record.options.get("pictures", True):
            return Drawing(text, markup)
        words = picture_labels(lang)
        mark = words.cancelled if cancelled else words.final if closed else ""
        scene = views.board_scene(record.challenge_id, board, options.deals, lang, words,
                                  mark=mark)
        return Drawing(text, markup, scene, partial(render_challenge_board, scene),
                       "challenge.png")

    def timer_callbacks(self) -> dict[str, Callable[[timers.Stamp], Awaitable[None]]]:
        """What fires each kind of this module's timers: with several workers a
        timer is a row naming its kind, fired by whichever worker claims it."""
        return {CLOSE: self._on_close, BOARD: self._on_board_timer, FINAL: self._on_final}

    async def _on_final(self, stamp: timers.Stamp) -> None:
        """A claim on posting a final ranking has run out (:meth:`restore`): post it unless
        it was posted meanwhile (its claim, taken right before the send, decides)."""
        challenge_id = challenge_of_lock(stamp.key)
        if challenge_id is None:
            return
        try:
            record = await self._record(challenge_id)
        except StoreError:
            return
        if record.status == "closed":
            self._announce(record, await self.board(challenge_id), _paid(record))

    def refresh_board(self, challenge_id: int) -> None:
        """Ask for the group's board to be drawn again: through the outlet's outbox (only the
        latest board is sent), at most once per :attr:`board_interval` (a timer draws the
        last change of a busy minute)."""
        now = self.clock()
        due = self._board_asked.get(challenge_id, 0.0) + self.board_interval
        key = challenge_lock(challenge_id)
        if now < due:
            self.ctx.outlet.arm(BOARD, timers.Stamp(key, ""), due, self._on_board_timer)
            return
        self._board_asked[challenge_id] = now
        record = self._fixed.get(challenge_id)
        if record is not None:
            self.ctx.outlet.update_audience(key, record.chat_id,
                                            BoardJob(partial(self._board_job, challenge_id)))

    async def _on_board_timer(self, stamp: timers.Stamp) -> None:
        challenge_id = challenge_of_lock(stamp.key)
        if challenge_id is None:
            return
        try:
            await self._record(challenge_id)  # its group, on a worker that never read it
        except StoreError:
            return
        self.refresh_board(challenge_id)

    async def _board_job(self, challenge_id: int) -> bool:
        """Draw the board as it is now on the group's message (the outbox's job); ``False``
        when it shows that already."""
        record = await self._record(challenge_id)
        if record.status != "open":
            return False
        drawing = await self._drawing(record)
        return await self._show(record, drawing)

    async def _show(self, record: ChallengeRecord, drawing: Drawing) -> bool:
        cid = record.challenge_id
        if self._board_shown.get(cid) == drawing.signature:
            return False
        photo = bool(record.options.get("pictures", True))
        try:
            shown = await self.ctx.outlet.present(record.chat_id, record.message_id, photo,
                                                  None, drawing, record.thread_id)
        except Unreachable:
            return True
        if shown is not None:
            self._board_shown[cid] = drawing.signature
            if shown[0] != record.message_id:
                await self.ctx.store.set_challenge_message(cid, shown[0])
        return True

    # --- The close -----------------------------------------------------------------------------

    def _arm_close(self, record: ChallengeRecord) -> None:
        self.ctx.outlet.arm(CLOSE, timers.Stamp(challenge_lock(record.challenge_id), ""),
                            record.closes_at.timestamp(), self._on_close)

    async def _on_close(self, stamp: timers.Stamp) -> None:
        challenge_id = challenge_of_lock(stamp.key)
        if challenge_id is not None:
            await self.close(challenge_id)

    async def close(self, challenge_id: int) -> bool:
        """The window closes: deals still running are stopped (they do not count), the pool is
        paid out exactly once (:func:`bot.features.challenge.state.payout`, ledger rows, sum zero),
        the group message shows the final board without its button and a new message the final
        ranking, the revealed seed and the command that checks it. ``False`` when it was
        closed already."""
        st = self.ctx.store
        async with self.ctx.tables.lock(challenge_lock(challenge_id)):
            record = await self._record(challenge_id)
            if record.status != "open":
                return False
            await self._stop_deals(challenge_id)
            board = await self.board(challenge_id)
            paid = payout(record.entry_fee, board, _options(record).prizes)
            result = {"board": [{"user_id": s.user_id, "place": s.place,
                                 "matchpoints": s.matchpoints, "deals": s.deals} for s in board]}
            payment = await st.close_challenge(challenge_id, paid, result)
            record = await self._record(challenge_id)
            await self._closed(record, board, payment.paid)
        return True

    async def _closed(self, record: ChallengeRecord, board: list[Standing],
                      paid: Mapping[int, int]) -> None:
        """A closed challenge's group message shows the final board without its button (a
        cancelled one's the cancelled mark), and the final ranking is posted (or who cancelled
        it and the refunds) (lock held)."""
        key = challenge_lock(record.challenge_id)
        self.ctx.outlet.cancel(BOARD, key)
        self.ctx.outlet.cancel(CLOSE, key)
        cancelled = bool((record.result or {}).get("cancelled"))
        await self._show(record, await self._drawing(record, board, closed=not cancelled,
                                                     cancelled=cancelled))
        self._announce(record, board, paid)

    async def resume(self, challenge_id: int) -> None:
        """The challenge's worker died in the middle of one of its steps (the
        watchdog of its lock fired): an open challenge gets its close armed again (or is
        closed, its window having passed) and its board drawn; a closed one whose final
        ranking was not posted gets its final board and ranking (the payout is stored
        already: nothing is paid twice)."""
        try:
            record = await self._record(challenge_id)
        except StoreError:
            return
        if record.status == "open":
            if record.closes_at.timestamp() <= self.clock():
                await self.close(challenge_id)
            else:
                self._arm_close(record)
                self.refresh_board(challenge_id)
            return
        if record.announced:
            return
        async with self.ctx.tables.lock(challenge_lock(challenge_id)):
            record = await self._record(challenge_id)
            if not record.announced:
                await self._closed(record, await self.board(challenge_id), _paid(record))

    async def cancel(self, chat_id: int, by: Person, is_admin: bool, lang: str) -> str:
        """``/challenge cancel`` in group ``chat_id`` (which has at most one open challenge) by
        an admin or the challenge's opener: its deals still running are stopped, every entry
        fee is refunded exactly once (ledger rows; the pool's entries and refunds sum to zero),
        nobody wins a prize, the group message says it was cancelled and a new message reveals
        the seed. RULES.md §10 says nothing of cancelling; like a cancelled match,
        the fees go back. Returns the reply in ``lang``: a refusal (none open, not allowed,
        already over), or ``""`` once cancelled (the group is told by the post)."""
        open_here = [r for r in await self.ctx.store.open_challenges() if r.chat_id == chat_id]
        if not open_here:
            return t("challenge.cancel_none", lang)
        challenge_id = open_here[0].challenge_id
        if not is_admin and by.user_id != open_here[0].opener_id:
            return t("challenge.cancel_admins", lang)
        async with self.ctx.tables.lock(challenge_lock(challenge_id)):
            record = await self._record(challenge_id)
            if record.status != "open":
                return t("challenge.cancel_closed", lang, title=views.title(challenge_id, lang))
            await self._stop_deals(challenge_id, told="challenge.cancel_stopped")
            entries = await self.ctx.store.challenge_entries(challenge_id)
            refunds = {e.user_id: record.entry_fee for e in entries} if record.entry_fee else {}
            result = {"board": [], "cancelled": True, "by": by.name}
            payment = await self.ctx.store.close_challenge(challenge_id, refunds, result)
            record = await self._record(challenge_id)
            await self._closed(record, await self.board(challenge_id), payment.paid)
        return ""

    def _announce(self, record: ChallengeRecord, board: list[Standing],
                  paid: Mapping[int, int]) -> None:
        """Post the final ranking with the revealed seed (in the background), or for a
        cancelled challenge who cancelled it and the refunds: due until it was sent (the seed
        must be revealed), once in the normal case. Right before it is sent its posting is
        claimed in the store for :data:`ANNOUNCE_CLAIM_SECONDS`
        (:meth:`Store.claim_announcement`): a second poster (another worker, a worker's sweep,
        the watchdog) finds it claimed and sends nothing while the claim runs. A ranking that
        was not sent (its worker died with it waiting for the group's flood budget, or during
        the request; or the send failed: the claim is given back) is posted by the next one:
        a single process's restart at once (its claims died with it), a starting worker's
        sweep once the claim ran out. A poster killed after Telegram took the message and
        before recording it sent makes it posted twice (the Bot API has no idempotent send;
        a seed never revealed is the worse loss), as a deal's result."""
        cid = record.challenge_id
        lang = str(record.options["lang"])
        result = record.result or {}
        if result.get("cancelled"):
            text = views.cancelled_text(cid, _options(record), record.seed, record.seed_hash,
                                        paid, str(result.get("by", "")), lang)
        else:
            text = views.final_text(cid, _options(record), record.seed, record.seed_hash,
                                    board, paid, lang)

        async def sent(message_id: int) -> None:
            await self.ctx.store.announce_challenge(cid)

        self.ctx.outlet.post(f"{challenge_lock(cid)}#final", record.chat_id, Drawing(text, None),
                             record.thread_id, sent=sent,
                             claim=_Announcement(self.ctx.store, cid))

    async def _stop_deals(self, challenge_id: int, told: str = "challenge.stopped") -> None:
        """Stop every running deal of the challenge (the window closed, or it was cancelled:
        ``told`` is what its member is told): at its members' tables, whichever worker stored
        them (each lock loads the stored table)."""
        keys = {challenge_key(e.user_id)
                for e in await self.ctx.store.challenge_entries(challenge_id)}
        keys |= {table.key for table in self.ctx.tables
                 if table.competition.challenge_id == challenge_id}
        for key in sorted(keys):
            async with self.ctx.tables.lock(key):
                table = self.ctx.tables.get(key)
                if table is None or table.competition.challenge_id != challenge_id:
                    continue
                if table.phase == DEAL:
                    await self.deals.stop(table)
                    user_id = table.seats[MEMBER_SEAT].user_id
                    if user_id is not None:
                        self.ctx.outlet.tell(user_id, t(told, table.seat_lang(MEMBER_SEAT)))
                self.ctx.cancel_timers(table.key)
                self.ctx.tables.remove(table)
                await self.ctx.store.delete_table(table.key)

    async def chat_migrated(self, new_chat_id: int) -> int:
        """A group became supergroup ``new_chat_id`` (the store moved its challenges): each
        open challenge there posts its board again in the new chat (the stored ones: with
        several workers this one may never have seen them). Returns how many moved."""
        moved = 0
        for record in await self.ctx.store.open_challenges():
            if record.chat_id != new_chat_id:
                continue
            self._fixed[record.challenge_id] = record
            self._board_shown.pop(record.challenge_id, None)
            await self._show(record, await self._drawing(record))
            moved += 1
        return moved

    # --- After a restart -----------------------------------------------------------------------

    async def restore(self, *, alone: bool = False) -> None:
        """After a start (the tables are restored first): a final ranking not sent yet is
        posted (``alone``, a single process's start: also one this process claimed before it
        stopped, the send cut short; with several workers one another worker claimed is tried
        again once that claim ran out, :data:`ANNOUNCE_CLAIM_SECONDS` from now); every open
        challenge's window is armed again, or closed now if it passed; a challenge table whose
        deal ended just before the restart (its result recorded) gets its end finished."""
        for record in await self.ctx.store.unannounced_challenges(claimed=True):
            if record.announced and not alone:  # another worker's claim: it may be alive
                self.ctx.outlet.arm(FINAL, timers.Stamp(challenge_lock(record.challenge_id), ""),
                                    self.clock() + ANNOUNCE_CLAIM_SECONDS, self._on_final)
                continue
            if record.announced:  # the claim of the process that stopped
                await self.ctx.store.release_announcement(record.challenge_id)
            self._announce(record, await self.board(record.challenge_id), _paid(record))
        opened = await self.ctx.store.open_challenges()
        for record in opened:
            self._fixed[record.challenge_id] = record
        open_ids = {record.challenge_id for record in opened}
        for table in list(self.ctx.tables):
            if table.competition.challenge_id is None:
                continue
            if table.competition.challenge_id not in open_ids:  # closed while the bot was down
                await self._stop_deals(table.competition.challenge_id)
            elif table.phase == RESULT:
                async with self.ctx.tables.lock(table.key):
                    await self.deal_over(table)
        for record in opened:
            if record.closes_at.timestamp() <= self.clock():
                await self.close(record.challenge_id)
            else:
                self._arm_close(record)
                self.refresh_board(record.challenge_id)


class _Announcement:
    """The claim on posting a challenge's final ranking (:class:`bot.game.outlet.Claim`)."""

    def __init__(self, store: Store, challenge_id: int) -> None:
        self.store = store
        self.challenge_id = challenge_id

    async def take(self) -> bool:
        return await self.store.claim_announcement(self.challenge_id, ANNOUNCE_CLAIM_SECONDS)

    async def give_back(self) -> None:
        await self.store.release_announcement(self.challenge_id)


def _paid(record: ChallengeRecord) -> dict[int, int]:
    """The prizes of a closed challenge as stored (user id → beans)."""
    paid = (record.result or {}).get("paid", {})
    return {int(uid): int(amount) for uid, amount in paid.items()}


def _options(record: ChallengeRecord) -> ChallengeOptions:
    return ChallengeOptions.from_dict(record.options)


def _challenge_id(table: Table) -> int:
    assert table.competition.challenge_id is not None, f"table {table.key} plays no challenge"
    return table.competition.challenge_id
