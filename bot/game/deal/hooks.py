"""What the deal driver asks of the competitions played at a table (a match, a duplicate
challenge, a group tournament): the hooks the features above set on it (the game layer cannot
import them), and the standings a competition's deal shows with its result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bot.core.table import Table
from bot.store import Settlement
from engine import DealState
from engine.presets import Rules
from images.standings import StandingsScene


@dataclass(frozen=True, slots=True)
class Standings:
    """A competition's standings after a deal, for the deal's result message: ``text`` is added
    to its caption, ``scene`` (if any) drawn under its picture."""

    text: str
    scene: StandingsScene | None = None


class MatchHook(Protocol):
    """What the driver asks of the competitions (:class:`bot.features.match.driver.Matches`) at a
    table that plays a match (``Competition.match_id`` set): the three points where a match deal
    differs from a single deal."""

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
    (``Competition.challenge_id`` set): a match's three points (``settle`` records the member's
    result, ``deal_over`` frees the table), plus the deal's fixed cards and the seeds of the AI
    seats' decisions."""

    def new_state(self, table: Table, rules: Rules) -> DealState:
        """The challenge deal's initial state: its fixed cards and first bidder."""
        ...

    async def ai_seed(self, table: Table, state: DealState) -> str:
        """The seed of the AI's next decision at this table (the same deal and history give
        the same seed)."""
        ...


class Hooks(Protocol):
    """The hooks set on the driver (:class:`bot.game.deal.DealDriver`) by
    :class:`bot.features.service.Game`; each is used at its own tables only."""

    #: The matches, at match tables.
    match: MatchHook | None
    #: The duplicate challenges, at challenge tables.
    challenge: ChallengeHook | None
    #: The group tournaments, at tournament tables.
    tournament: MatchHook | None
    #: Arms the Play again timeout of a table whose result offers it
    #: (:meth:`bot.game.again.PlayAgain.arm`).
    on_offer: Callable[[Table], None] | None


def competition(hooks: Hooks, table: Table) -> MatchHook | None:
    """The competition that plays at this table, if any (a match's, a challenge's or a
    tournament's)."""
    if table.competition.match_id is not None:
        return hooks.match
    if table.competition.challenge_id is not None:
        return hooks.challenge
    if table.competition.tournament is not None:
        return hooks.tournament
    return None
