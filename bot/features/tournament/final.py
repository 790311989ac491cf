"""The final ranking and its posting claim:
a part of the group tournaments' driver
(:class:`bot.features.tournament.driver.Tournaments`, see its module docstring)."""

from __future__ import annotations

from functools import partial

from bot.features.tournament import views
from bot.features.tournament.common import (
    Announcement,
    Part,
    pictures_on,
    player_names,
    tournament_lang,
    tournament_lock,
    tournament_of_lock,
)
from bot.game import timers
from bot.game.drawing import Drawing
from bot.store.tournament_records import TournamentRecord
from images.tournament import (
    render_tournament_final,
)


class Final(Part):
    """The final ranking and its posting claim."""

    def _final_drawings(self, record: TournamentRecord) -> list[tuple[str, Drawing]]:
        """A finished tournament's final ranking (champion first, prizes paid), the revealed
        seed and the referee's commands, from its stored result and state (RULES.md §10.1):
        its messages, each with its post's key. The text; in the group's pictures mode the
        ranking's picture with the text as its caption, or, when the text is longer than a
        caption takes, with the ranking as caption and the seed with the commands in a text
        message after it."""
        tid = record.tournament_id
        state, result = record.state, record.result or {}
        places: dict[int, int | None] = {int(p): None if place is None else int(place)
                                         for p, place in (result.get("places") or {}).items()}
        scores = {int(p): int(s) for p, s in (result.get("scores") or {}).items()}
        paid = {int(p): int(a) for p, a in (result.get("paid") or {}).items()}
        signup = [int(p) for p in state["signup"]]
        ranking = sorted(signup, key=lambda p: (places.get(p) is None, places.get(p) or 0,
                                                signup.index(p)))
        lang = tournament_lang(record)
        names = player_names(state)
        ranked = [(p, places.get(p)) for p in ranking]
        commands = views.referee_commands(record.seed, state["stages"])
        text = views.final_text(tid, ranked, scores, paid, names, record.seed,
                                record.seed_hash, commands, lang)
        key = f"{tournament_lock(tid)}#final"
        if not pictures_on(record):
            return [(key, Drawing(text, None))]
        scene = views.final_scene(tid, ranked, scores, paid, names, record.seed,
                                  record.seed_hash, lang)
        render = partial(render_tournament_final, scene)
        if len(text) <= views.CAPTION_LIMIT:
            return [(key, Drawing(text, None, scene, render, "tournament_final.png"))]
        lines = views.final_ranking_lines(tid, ranked, scores, paid, names, lang)
        seed = "\n".join(views.seed_lines(record.seed, record.seed_hash, commands, lang))
        return [(key, Drawing(views.caption("\n".join(lines), lines[0]), None, scene, render,
                              "tournament_final.png")),
                (f"{tournament_lock(tid)}#seed", Drawing(seed, None))]

    def _announce(self, record: TournamentRecord) -> None:
        """Post a finished tournament's final ranking (in the background): due until it was
        sent (the seed must be revealed), once in the normal case, as a duplicate challenge's
        (:meth:`bot.features.challenge.driver.Challenges._announce`). Right before it is sent
        its posting is claimed in the store for :data:`ANNOUNCE_CLAIM_SECONDS`
        (:meth:`Store.claim_tournament_announcement`): a second poster (another worker, the
        watchdog, a worker's sweep) sends nothing while the claim runs. One not sent (its
        worker died after the payout, or with it waiting for the group's flood budget, or
        during the request; or the send failed: the claim is given back) is posted by the
        watchdog (:meth:`resume`) or the next start (:meth:`restore`); twice only when its
        poster was killed between Telegram taking it and recording it sent. When the ranking
        is a picture and the seed a text after it (:meth:`_final_drawings`), the seed is
        posted once the picture was sent, and the ranking is recorded as posted once the seed
        was: a poster killed in between leaves both to the next (the picture then twice, the
        seed never missing)."""
        tid = record.tournament_id

        async def announced(message_id: int) -> None:
            await self.ctx.store.announce_tournament(tid)

        (key, drawing), *rest = self._final_drawings(record)
        sent = announced
        if rest:
            ((seed_key, seed),) = rest

            async def pictured(message_id: int) -> None:
                self.ctx.outlet.post(seed_key, record.chat_id, seed, record.thread_id,
                                     sent=announced)

            sent = pictured
        self.ctx.outlet.post(key, record.chat_id, drawing, record.thread_id, sent=sent,
                             claim=Announcement(self.ctx.store, tid))

    async def _on_final(self, stamp: timers.Stamp) -> None:
        """Another worker's claim on posting a final ranking has run out (:meth:`restore`):
        post it unless it was posted meanwhile (the claim, taken right before the send,
        decides)."""
        tid = tournament_of_lock(stamp.key)
        record = None if tid is None else await self._record(tid)
        if record is not None and record.status == "finished":
            self._announce(record)
