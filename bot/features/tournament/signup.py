"""Opening and sign-up: the group's sign-up message, 报名 and 退出:
a part of the group tournaments' driver
(:class:`bot.features.tournament.driver.Tournaments`, see its module docstring)."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

from bot.core.i18n import t
from bot.core.numbers import grouped
from bot.features.tournament import views
from bot.features.tournament.common import (
    MAX_SIGNUP,
    Part,
    Steps,
    pictures_on,
    record_preset,
    tournament_lang,
    tournament_lock,
)
from bot.game.config import TableConfig
from bot.game.context import GameContext
from bot.game.deal import DealDriver
from bot.game.drawing import Drawing
from bot.game.lobby import Person
from bot.game.outlet import Unreachable
from bot.store.tournament_records import TournamentRecord, TournamentRefused
from engine.challenge import new_seed, seed_hash
from engine.presets import Rules
from engine.tournament import (
    plan,
    tournament_preset,
)
from images.tournament import (
    render_tournament_signup,
)


class Signup(Part):
    """Opening and sign-up: the group's sign-up message, 报名 and 退出."""

    def __init__(self, ctx: GameContext, deals: DealDriver, top: Steps) -> None:
        super().__init__(ctx, deals, top)
        #: Tournaments whose sign-up message is being redrawn, and those asked again
        #: meanwhile.
        self._redrawing: set[int] = set()
        self._redraw_again: set[int] = set()

    async def _config(self, chat_id: int) -> tuple[dict[str, Any], TableConfig, Rules]:
        group = await self.ctx.store.get_group_settings(chat_id)
        config = TableConfig.of(group, default_language=self.ctx.settings.default_language,
                                play_timeout=self.ctx.settings.play_timeout,
                                bid_timeout=self.ctx.settings.bid_timeout)
        return group, config, config.match_rules or config.rules

    async def table_size(self, chat_id: int) -> int:
        """Seats at a tournament table opened in this group now: 3, or 4 in a four-player
        group (RULES.md §11); the smallest field a tournament may have."""
        _, _, rules = await self._config(chat_id)
        return rules.seats

    async def open(self, chat_id: int, thread_id: int | None, title: str, opener: Person,
                   preset_name: str, entry_fee: int, start_at: float | None, *,
                   minimum: int | None = None, maximum: int | None = None,
                   time_limit: int | None = None) -> str | None:
        """Open a tournament in a group (RULES.md §10.1): a fresh seed, its SHA-256 shown in
        the group's sign-up message, the timed start armed (``start_at``, UTC seconds;
        ``None``: when full or when the opener starts it). ``minimum`` and ``maximum``: the
        field (players; default one table and :data:`MAX_SIGNUP`; the caller checked
        ``table size ≤ minimum ≤ maximum ≤ MAX_SIGNUP``, and they are held within it all the
        same): 开赛 and the timed start need the minimum, the maximum signed up starts it
        (满人开赛). ``time_limit``: minutes per stage (0: none; ``None``: the preset's), see
        :meth:`_on_time`. ``None`` when opened, else why not in the group's language (one is
        open or running here already)."""
        group, config, rules = await self._config(chat_id)
        preset = tournament_preset(preset_name, table_size=rules.seats)
        seed = new_seed()
        options = {"lang": config.lang, "title": title, "pictures": config.pictures,
                   "rules": rules.to_dict(), "table_size": rules.seats, "start_at": start_at,
                   "tz": group.get("timezone", "UTC"),
                   "min": max(rules.seats, minimum or 0),
                   "max": min(MAX_SIGNUP, max(rules.seats, minimum or 0, maximum or MAX_SIGNUP))}
        if time_limit is not None:
            options["time_limit"] = time_limit
        try:
            tid = await self.ctx.store.open_tournament(
                chat_id, thread_id, opener.user_id, preset.name, options, entry_fee, seed,
                seed_hash(seed))
        except TournamentRefused:
            return t("tour.refused_live", config.lang)
        record = await self.ctx.store.get_tournament(tid)
        drawing = await self._signup_drawing(record)
        try:
            shown = await self._present(record, None, "signup", drawing)
        except Unreachable:
            shown = None
        if shown is not None:
            await self.ctx.store.set_tournament_messages(tid, message_id=shown[0])
        if start_at is not None:
            self.top._arm_start(tid, start_at)
        return None

    async def _signup_drawing(self, record: TournamentRecord, closed: str | None = None
                              ) -> Drawing:
        lang = tournament_lang(record)
        entries = await self.ctx.store.tournament_entries(record.tournament_id)
        preset = record_preset(record)
        minimum, maximum = int(record.options["min"]), int(record.options["max"])
        field = max(minimum, len(entries))
        start_at = record.options.get("start_at")
        if start_at is not None:
            zone = ZoneInfo(str(record.options.get("tz") or "UTC"))
            when = datetime.fromtimestamp(float(start_at), UTC).astimezone(zone)
            start = t("tour.start_at", lang, time=when.strftime("%H:%M"), tz=zone.key)
        else:
            start = t("tour.start_full", lang, max=maximum)
        names = [e.name for e in entries]
        stages = plan(preset, field)
        text = views.signup_text(record.tournament_id, preset, stages, record.entry_fee,
                                 record.seed_hash, start, names, minimum, maximum, lang,
                                 closed=closed)
        markup = None if closed else views.signup_markup(record.tournament_id, lang)
        if not pictures_on(record):
            return Drawing(text, markup)
        scene = views.signup_scene(record.tournament_id, preset, stages, record.entry_fee,
                                   record.seed_hash, start, names, minimum, maximum, lang,
                                   closed=closed is not None)
        short = views.signup_text(record.tournament_id, preset, stages, record.entry_fee,
                                  record.seed_hash, start, [], minimum, maximum, lang,
                                  closed=closed)  # the names are in the picture
        return Drawing(views.caption(text, short), markup, scene,
                       partial(render_tournament_signup, scene), "tournament.png")

    async def _redraw_signup(self, record: TournamentRecord, closed: str | None = None) -> None:
        if record.message_id is None:
            return
        drawing = await self._signup_drawing(record, closed)
        with contextlib.suppress(Unreachable):
            await self._present(record, record.message_id, "signup", drawing)

    def _redraw_later(self, tournament_id: int) -> None:
        """Redraw the sign-up message in the background, so a Sign up or Withdraw is answered
        before it (the group's flood window may hold the edit for most of a minute when many
        sign up at once); requests while a redraw runs make one more redraw of the latest
        sign-ups, never two at once."""
        if tournament_id in self._redrawing:
            self._redraw_again.add(tournament_id)
            return
        self._redrawing.add(tournament_id)

        async def redraw() -> None:
            try:
                while True:
                    self._redraw_again.discard(tournament_id)
                    # under the tournament's lock, read inside it: a redraw never reopens the
                    # message the start or a cancel (on any worker) closed meanwhile
                    async with self.ctx.tables.lock(tournament_lock(tournament_id)):
                        record = await self._record(tournament_id)
                        if record is None or record.status != "open":
                            return
                        await self.top._redraw_signup(record)
                    if tournament_id not in self._redraw_again:
                        return
            finally:
                self._redrawing.discard(tournament_id)

        self.top._spawn(redraw())

    async def live_of(self, chat_id: int) -> TournamentRecord | None:
        """The group's open or running tournament, if any."""
        for record in await self.ctx.store.live_tournaments():
            if record.chat_id == chat_id:
                return record
        return None

    async def sign_up(self, tournament_id: int, person: Person, lang: str) -> str:
        """报名: sign ``person`` up (the caller made sure the bot can write to them); the
        pop-up's text in ``lang``. The field full starts the tournament (满人开赛)."""
        record = await self._record(tournament_id)
        if record is None or record.status != "open":
            return t("tour.pop_closed", lang)
        maximum = int(record.options["max"])
        await self.ctx.store.ensure_player(person.user_id, person.name, person.language)
        if record.entry_fee:
            player = await self.ctx.store.get_player(person.user_id)
            if player is not None and player.balance < record.entry_fee:
                return t("tour.pop_fee", lang, fee=grouped(record.entry_fee),
                         balance=grouped(player.balance))
        try:
            added = await self.ctx.store.sign_up(tournament_id, person.user_id, person.name,
                                                 maximum)
        except TournamentRefused as exc:
            return t("tour.pop_full" if exc.code == "tournament_full" else "tour.pop_closed",
                     lang, max=maximum)
        if not added:
            return t("tour.pop_already", lang)
        self._redraw_later(tournament_id)
        if len(await self.ctx.store.tournament_entries(tournament_id)) >= maximum:
            self.top._spawn(self.top.start(tournament_id))
        return t("tour.pop_signed", lang, id=tournament_id)

    async def withdraw(self, tournament_id: int, user_id: int, lang: str) -> str:
        """退出: take the sign-up back before the start; the pop-up's text."""
        record = await self._record(tournament_id)
        if record is None or record.status != "open":
            return t("tour.pop_closed", lang)
        try:
            gone = await self.ctx.store.withdraw(tournament_id, user_id)
        except TournamentRefused:
            return t("tour.pop_closed", lang)
        if not gone:
            return t("tour.pop_not_signed", lang)
        self._redraw_later(tournament_id)
        return t("tour.pop_withdrawn", lang)

    def start_refusal(self, record: TournamentRecord, count: int, lang: str) -> str | None:
        """Why 开赛 cannot start ``record`` with ``count`` signed up, else ``None``."""
        minimum = int(record.options["min"])
        if count < minimum:
            return t("tour.pop_too_few", lang, min=minimum, n=count)
        return None
