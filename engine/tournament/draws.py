"""The draw of a tournament stage (抽签分组, RULES.md §10.1): tables and byes from the committed
seed, so anyone can check it with the referee once the seed is revealed
(``{"op": "tournament_draw"}`` in :mod:`engine.judge`).

The seed is the tournament's secret: 16–128 lowercase hex digits whose SHA-256
(:func:`engine.challenge.seed_hash`) is shown when sign-up opens, revealed at the end.

The rule, simple enough to redo by hand with ``sha256sum``:

1. Every player of the stage's field gets the **lot** ``SHA-256("<seed>:<stage>:<player>")``
   (the text of the seed, the stage number from 1, the player's id as text, joined by ``:``),
   compared as bytes, smaller first.
2. When the field does not divide by the table size, the 1 or 2 left over (up to 3 with tables
   of 4) get a **bye**: the players with the best previous-stage score, the lot choosing among
   equal scores (a player without a previous score, e.g. a bye there, counts below every
   score); at the first stage, or without scores, the lot alone: the smallest lots.
3. The others, in lot order, fill tables: the first ``size`` players are table 1 in seat order,
   the next ``size`` table 2, and so on.

>>> d = draw("00112233445566778899aabbccddeeff", 1, [101, 102, 103, 104])
>>> len(d.tables), len(d.byes), sorted([*d.tables[0], *d.byes])
(1, 1, [101, 102, 103, 104])
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from engine.challenge import ChallengeSeedError, check_seed
from engine.tournament.presets import MAX_FIELD, MAX_TABLE_SIZE, MIN_TABLE_SIZE, TournamentError

P = TypeVar("P", bound=Hashable)

#: The highest stage number a draw takes.
MAX_STAGE = 99


@dataclass(frozen=True, slots=True)
class Draw(Generic[P]):
    """The draw of stage ``stage``: ``tables`` (each a tuple of players in seat order) and
    ``byes`` (straight into the next stage, each taking one of its places)."""

    stage: int
    tables: tuple[tuple[P, ...], ...]
    byes: tuple[P, ...]

    def table_of(self, player: P) -> int | None:
        """The index (0-based) of ``player``'s table; ``None`` for a bye or a stranger."""
        for index, table in enumerate(self.tables):
            if player in table:
                return index
        return None

    def to_dict(self) -> dict[str, object]:
        """``{"stage": n, "tables": [[players]], "byes": [players]}``, as the referee answers."""
        return {"stage": self.stage, "tables": [list(t) for t in self.tables],
                "byes": list(self.byes)}


def lot(seed: str, stage: int, player: object) -> bytes:
    """A player's lot at ``stage``: ``SHA-256("<seed>:<stage>:<player>")`` (the digest)."""
    return hashlib.sha256(f"{seed}:{stage}:{player}".encode()).digest()


def draw(seed: str, stage: int, players: Sequence[P], *, table_size: int = 3,
         scores: Mapping[P, int] | None = None) -> Draw[P]:
    """Draw ``players`` (the stage's field) into tables and byes (see the module docstring).

    Args:
        seed: the tournament's seed, 16–128 lowercase hex digits.
        stage: the stage number, from 1 (:class:`engine.tournament.PlannedStage`).
        players: the field; each player's text (``str``) must be unique, the order is not used.
        table_size: 3, or 4 for the four-player game.
        scores: previous-stage scores, to give the byes to the best (RULES.md §10.1); ``None``
            or empty at the first stage.

    Raises:
        TournamentError: a malformed seed, a stage outside 1–:data:`MAX_STAGE`, fewer players
            than one table or more than :data:`MAX_FIELD`, or two players with the same text.
    """
    try:
        check_seed(seed)
    except ChallengeSeedError as error:
        raise TournamentError(str(error)) from None
    if isinstance(stage, bool) or not isinstance(stage, int) or not 1 <= stage <= MAX_STAGE:
        raise TournamentError(f"stage: a number from 1 to {MAX_STAGE} is expected")
    if isinstance(table_size, bool) or table_size not in range(MIN_TABLE_SIZE,
                                                               MAX_TABLE_SIZE + 1):
        raise TournamentError(f"table_size: {MIN_TABLE_SIZE} or {MAX_TABLE_SIZE} is expected")
    if not table_size <= len(players) <= MAX_FIELD:
        raise TournamentError(f"players: {table_size} to {MAX_FIELD} are expected "
                              f"(one whole table at least), not {len(players)}")
    texts = [str(p) for p in players]
    if len(set(texts)) != len(texts):
        raise TournamentError("players: each player may be drawn once")
    lots = {text: lot(seed, stage, text) for text in texts}
    by_lot = sorted(players, key=lambda p: lots[str(p)])
    bye_count = len(players) % table_size
    known = scores or {}
    # the best previous-stage score first; no score below any score; then the lot (stable sort)
    ranked = sorted(by_lot, key=lambda p: (p not in known, -known.get(p, 0)))
    byes = ranked[:bye_count]
    bye_set = set(byes)
    seated = [p for p in by_lot if p not in bye_set]
    tables = tuple(tuple(seated[i:i + table_size]) for i in range(0, len(seated), table_size))
    return Draw(stage, tables, tuple(sorted(byes, key=lambda p: lots[str(p)])))
