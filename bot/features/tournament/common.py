"""What the parts of the group tournaments' driver share
(:class:`bot.features.tournament.driver.Tournaments`): its timers' kinds, the locks'
keys, the claims on its group posts, small readers of a tournament's record, and
:class:`Part`, the base of every part, with :class:`Steps`, what a part asks of the
façade (a step of another part; a test may replace one there)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from bot.features.tournament.standings import TableStandings
from bot.game import timers
from bot.game.context import GameContext
from bot.game.deal import DealDriver
from bot.game.drawing import Drawing
from bot.store import Store, StoreError
from bot.store.tournament_records import TournamentRecord
from engine.tournament import (
    Advancement,
    FinalRanking,
    PlannedStage,
    TournamentPreset,
    advancing,
    plan,
    tournament_preset,
)

log = logging.getLogger(__name__)

#: The most members a tournament takes: its default maximum field and the hard cap of the
#: ``max`` option. 30 = 10 tables of three playing at once, as measured (docs/benchmarks.md):
#: that stage met every target with the token's busiest minute at 24.5 of its 28 requests a
#: second, so more tables at once would outrun the bot's Bot API budget.
MAX_SIGNUP = 30
#: The longest stage time limit in minutes (the ``time`` option; seed 001 plays 15, seed 002
#: 45): 3 hours, longer than any preset's stage takes.
MAX_TIME_LIMIT = 180
#: Seconds between two drawings of the group's board.
BOARD_INTERVAL = 60.0
#: Timer kinds of this module (rows with several workers): the timed start, the board, a
#: stage's time limit, another worker's claim on posting the final ranking (or a due group
#: message, :meth:`Tournaments._post_due`) has run out.
START = "tournament_start"
BOARD = "tournament_board"
TIME = "tournament_time"
FINAL = "tournament_final"
POSTS = "tournament_posts"
#: Seconds a claim on posting a final ranking holds
#: (:meth:`Store.claim_tournament_announcement`): longer than one send waiting for 429 answers;
#: once it ran out, a poster that died leaves the ranking to the next one.
ANNOUNCE_CLAIM_SECONDS = 120.0


def tournament_lock(tournament_id: int) -> str:
    """The key of a tournament's own timers and lock (not a table's)."""
    return f"t{tournament_id}:tournament"


def board_lock(tournament_id: int) -> str:
    """The key of the lock a tournament's group board is drawn under (not the tournament's:
    a board's edit waiting for the group's flood budget holds up no stage)."""
    return f"t{tournament_id}:board"


def tournament_of_lock(key: str) -> int | None:
    """The tournament of a :func:`tournament_lock` key, ``None`` for another key."""
    head, _, tail = key.partition(":")
    if tail != "tournament" or not head.startswith("t") or not head[1:].isdigit():
        return None
    return int(head[1:])


class Steps(Protocol):
    """What a part asks of the façade: the steps of the other parts, the clock."""

    #: UTC seconds now (a test hook).
    clock: Callable[[], float]
    #: Seconds between two drawings of a board (a test hook).
    board_interval: float

    def _announce(self, record: TournamentRecord) -> None: ...
    def _arm_posts(self, record: TournamentRecord) -> None: ...
    def _arm_start(self, tournament_id: int, at: float) -> None: ...
    def _arm_time(self, tournament_id: int, stage: int, at: float) -> None: ...
    async def _begin_stage(self, record: TournamentRecord, state: dict[str, Any], number: int,
                           field: list[int], previous: Mapping[int, int] | None, *,
                           lead: str | None = None) -> None: ...
    async def _deal_table(self, record: TournamentRecord, stage: int, number: int,
                          players: Sequence[int], names: Mapping[int, str], *,
                          note: str | None = None) -> None: ...
    async def _draw_board(self, tournament_id: int) -> None: ...
    async def _finish(self, record: TournamentRecord, state: Mapping[str, Any],
                      final: FinalRanking[int] | None,
                      standings: Sequence[TableStandings] = (), *,
                      posts: Sequence[tuple[str, str]] = ()) -> None: ...
    async def _on_board_timer(self, stamp: timers.Stamp) -> None: ...
    async def _on_final(self, stamp: timers.Stamp) -> None: ...
    async def _on_posts(self, stamp: timers.Stamp) -> None: ...
    async def _on_start(self, stamp: timers.Stamp) -> None: ...
    async def _on_time(self, stamp: timers.Stamp) -> None: ...
    def _post_due(self, record: TournamentRecord) -> None: ...
    async def _post_stored(self, tournament_id: int) -> None: ...
    async def _redraw_signup(self, record: TournamentRecord, closed: str | None = None) -> None: ...
    def _spawn(self, work: Awaitable[None]) -> None: ...
    async def _stage_check(self, tournament_id: int, stage: int) -> None: ...
    async def _stop_tables(self, tournament_id: int, stage: int) -> None: ...
    def refresh_board(self, tournament_id: int, *, now: bool = False) -> None: ...
    async def start(self, tournament_id: int) -> None: ...


class Part:
    """A part of the driver: the context, the deal driver, the façade (its steps),
    and what every part reads."""

    def __init__(self, ctx: GameContext, deals: DealDriver, top: Steps) -> None:
        self.ctx = ctx
        self.deals = deals
        self.top = top
        #: (tournament id, ``"signup"`` or ``"board"``) → the input of the picture that group
        #: message shows (a caption's change alone edits only the caption).
        self._pictured: dict[tuple[int, str], object] = {}

    async def _record(self, tournament_id: int) -> TournamentRecord | None:
        try:
            return await self.ctx.store.get_tournament(tournament_id)
        except StoreError:
            return None

    async def _present(self, record: TournamentRecord, message_id: int | None, which: str,
                       drawing: Drawing) -> tuple[int, bool] | None:
        """Show ``drawing`` on the group's sign-up message or board (``which``), a photo
        in the group's pictures mode, editing only the caption when its picture is the one
        shown already.

        Raises:
            Unreachable: the group is closed to the bot.
        """
        slot = (record.tournament_id, which)
        shown = await self.ctx.outlet.present(record.chat_id, message_id, pictures_on(record),
                                              self._pictured.get(slot), drawing,
                                              record.thread_id)
        if shown is not None:
            self._pictured[slot] = drawing.key
        return shown

    def _planned(self, record: TournamentRecord, state: Mapping[str, Any], number: int,
                 field: int) -> PlannedStage:
        """Stage ``number`` as the field of ``field`` players plays it: the plan made for the
        field at the start, with its counts redone when forfeits made the field smaller."""
        preset = record_preset(record)
        size = preset.table_size
        stages = plan(preset, int(state["initial"]))
        planned = stages[min(number, len(stages)) - 1]
        if field <= size:
            return replace(stages[-1], number=number, field=field, tables=1, byes=0)
        if planned.is_final or planned.field == field:
            return replace(planned, number=number)
        rule = planned.stage.advance
        assert rule is not None
        return replace(planned, number=number, field=field, tables=field // size,
                       byes=field % size, advancing=advancing(rule, field, size))

    def _tell(self, record: TournamentRecord, text: str) -> None:
        self.ctx.outlet.tell(record.chat_id, text, record.thread_id)


class PostClaim:
    """The claim on sending one of a tournament's due group messages
    (:class:`bot.game.outlet.Claim`, :meth:`Tournaments._post_due`)."""

    def __init__(self, store: Store, tournament_id: int, key: str) -> None:
        self.store = store
        self.tournament_id = tournament_id
        self.key = key

    async def take(self) -> bool:
        return await self.store.claim_tournament_post(self.tournament_id, self.key,
                                                      ANNOUNCE_CLAIM_SECONDS)

    async def give_back(self) -> None:
        await self.store.release_tournament_post(self.tournament_id, self.key)


def post_key(tournament_id: int, name: str) -> str:
    """The key of a tournament's group message ``name`` (unique in it; the outlet's post
    key)."""
    return f"{tournament_lock(tournament_id)}#{name}"


class Announcement:
    """The claim on posting a tournament's final ranking (:class:`bot.game.outlet.Claim`)."""

    def __init__(self, store: Store, tournament_id: int) -> None:
        self.store = store
        self.tournament_id = tournament_id

    async def take(self) -> bool:
        return await self.store.claim_tournament_announcement(self.tournament_id,
                                                              ANNOUNCE_CLAIM_SECONDS)

    async def give_back(self) -> None:
        await self.store.release_tournament_announcement(self.tournament_id)


def tournament_lang(record: TournamentRecord) -> str:
    """The group's language when the tournament opened (its texts are in it)."""
    return str(record.options.get("lang", "en"))


def pictures_on(record: TournamentRecord) -> bool:
    """The group's sign-up message, board and final ranking are pictures (its ``pictures``
    setting when the tournament opened); text only when off."""
    return bool(record.options.get("pictures", True))


def record_preset(record: TournamentRecord) -> TournamentPreset:
    """The tournament's preset for its table size, with every stage's time limit the
    ``time_limit`` option when it was given (minutes, 0: none)."""
    preset = tournament_preset(record.preset, table_size=int(record.options.get("table_size", 3)))
    limit = record.options.get("time_limit")
    if limit is None:
        return preset
    return replace(preset, rounds=tuple(replace(s, time_limit=int(limit)) for s in preset.rounds),
                   final=replace(preset.final, time_limit=int(limit)))


def time_up_for(state: Mapping[str, Any], stage: int) -> bool:
    """Stage ``stage``'s time limit has run out (:meth:`Tournaments._on_time` marked it)."""
    return state.get("stage") == stage and state.get("time_up") == stage


def player_names(state: Mapping[str, Any]) -> dict[int, str]:
    """User id → the name each member signed up with (the state's ``names``)."""
    return {int(k): str(v) for k, v in (state.get("names") or {}).items()}


def previous_scores(state: Mapping[str, Any]) -> dict[int, int] | None:
    """User id → score in the stage before the current one (points); ``None`` at stage 1."""
    previous = state.get("previous")
    return None if previous is None else {int(k): int(v) for k, v in previous.items()}


def advancement_dict(outcome: Advancement[int]) -> dict[str, Any]:
    """A stage's advancement as stored in the tournament's state (JSON)."""
    return {"through": list(outcome.through), "out": [list(g) for g in outcome.out],
            "forfeited": list(outcome.forfeited),
            "scores": {str(k): v for k, v in outcome.scores.items()}}


def advancement_from(data: Mapping[str, Any]) -> Advancement[int]:
    """The advancement :func:`advancement_dict` stored."""
    return Advancement(tuple(data["through"]), tuple(tuple(g) for g in data["out"]),
                       tuple(data["forfeited"]),
                       {int(k): int(v) for k, v in data["scores"].items()})
