"""What the store answers about group tournaments (锦标赛, RULES.md §10.1): the records, the
refusals, and :class:`TournamentStore`, the part of :class:`~bot.store.base.Store` that keeps
them (implemented by :mod:`bot.store.sql.tournaments`)."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from bot.core.beans import Period
from bot.store.records import LeaderboardRow, LedgerEntry, StoreError
from bot.store.rows import Row, dt

TournamentStatus = Literal["open", "running", "finished", "cancelled"]


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    """A stored tournament.

    Attributes:
        tournament_id: its id. chat_id, thread_id: the group (and forum topic) it was opened in.
        opener_id: who opened it. preset: ``quick``, ``classic`` or ``qualifier``.
        options: the group's language, title, rules and the start as stored when it opened.
        seed: the seed of its draws (secret until it ends); seed_hash: its SHA-256, shown.
        entry_fee: beans per member; pool: the fees taken at the start, less refunds.
        status: ``"open"`` (sign-up), ``"running"``, ``"finished"`` or ``"cancelled"``.
        message_id: the group's sign-up message; board_id: the group's board.
        state: the tournament's progress (the driver's JSON); result: places and payout.
        created_at, finished_at: UTC. announced: a finished one's final ranking was posted
        (or a poster claimed its posting, :meth:`TournamentStore.claim_tournament_announcement`,
        perhaps a claim that ran out). posts: its group messages stored with a step and not
        sent yet (:meth:`TournamentStore.due_tournament_posts`).
    """

    tournament_id: int
    chat_id: int
    thread_id: int | None
    opener_id: int
    preset: str
    options: dict[str, Any]
    seed: str
    seed_hash: str
    entry_fee: int
    pool: int
    status: TournamentStatus
    message_id: int | None
    board_id: int | None
    state: dict[str, Any]
    result: dict[str, Any] | None
    created_at: datetime
    finished_at: datetime | None
    announced: bool = False
    posts: tuple[TournamentPost, ...] = ()


@dataclass(frozen=True, slots=True)
class TournamentPost:
    """A group message of a tournament stored with the step that made it and not sent yet:
    ``key`` names it (unique in the tournament), ``text`` is the message, ``claimed_until``
    the UTC seconds a poster's claim on sending it holds (0: none;
    :meth:`TournamentStore.claim_tournament_post`)."""

    key: str
    text: str
    claimed_until: float = 0.0


@dataclass(frozen=True, slots=True)
class TournamentEntry:
    """A member signed up: ``user_id``, ``name`` (as when signing up), ``seq`` (sign-up order,
    smaller first), ``paid`` (the fee taken at the start, 0 before)."""

    user_id: int
    name: str
    seq: int
    paid: int = 0


@dataclass(frozen=True, slots=True)
class TournamentTable:
    """One drawn table of a stage: ``players`` (user ids in seat order), its standings
    ``state`` (the driver's JSON) and ``done`` (its last deal was played)."""

    tournament_id: int
    stage: int
    number: int
    players: tuple[int, ...]
    state: dict[str, Any]
    done: bool


@dataclass(frozen=True, slots=True)
class TournamentStart:
    """The start's fees (:meth:`TournamentStore.take_tournament_fees`): the members who paid
    (the field, in sign-up order), those dropped because they could not pay (their beans short,
    or held by a running deal), and the pool."""

    field: tuple[TournamentEntry, ...]
    dropped: tuple[TournamentEntry, ...]
    pool: int


class TournamentRefused(StoreError):
    """A tournament step refused; nothing changed. ``code``: ``tournament_live`` (the group
    has an open or running tournament already), ``tournament_closed`` (sign-up is over),
    ``tournament_full`` (the field is full), ``tournament_state`` (not in the status asked
    for)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class UnknownTournament(StoreError):
    """No tournament has that id."""


def tournament_record(row: Row) -> TournamentRecord:
    return TournamentRecord(
        tournament_id=row["id"], chat_id=row["chat_id"], thread_id=row["thread_id"],
        opener_id=row["opener_id"], preset=row["preset"], options=json.loads(row["options"]),
        seed=row["seed"], seed_hash=row["seed_hash"], entry_fee=row["entry_fee"],
        pool=row["pool"], status=row["status"], message_id=row["message_id"],
        board_id=row["board_id"], state=json.loads(row["state"]),
        result=json.loads(row["result"]) if row["result"] else None,
        created_at=dt(row["created_at"]),
        finished_at=dt(row["finished_at"]) if row["finished_at"] is not None else None,
        announced=bool(row["announced"]),
        posts=tournament_posts(row["posts"]),
    )


def tournament_posts(data: str | None) -> tuple[TournamentPost, ...]:
    """The ``posts`` column (a JSON list of ``{"key", "text", "until"}``, ``until`` in ms)."""
    return tuple(TournamentPost(str(p["key"]), str(p["text"]), int(p.get("until") or 0) / 1000)
                 for p in json.loads(data or "[]"))


def tournament_entry(row: Row) -> TournamentEntry:
    return TournamentEntry(row["user_id"], row["name"], row["seq"], row["paid"])


def tournament_table(row: Row) -> TournamentTable:
    return TournamentTable(row["tournament_id"], row["stage"], row["number"],
                           tuple(json.loads(row["players"])), json.loads(row["state"]),
                           row["status"] == "done")


class TournamentStore(ABC):
    """The store's tournaments (RULES.md §10.1). Every bean change is a ledger row with reason
    ``tournament`` in the transaction that changes the balance and the pool; a member pays one
    fee and gets one payout (a prize or a refund) per tournament, ever."""

    @abstractmethod
    async def open_tournament(self, chat_id: int, thread_id: int | None, opener_id: int,
                              preset: str, options: dict[str, Any], entry_fee: int, seed: str,
                              seed_hash: str) -> int:
        """Record a tournament open for sign-up in a group; returns its id.

        Raises:
            TournamentRefused: ``tournament_live``, the group has one open or running.
            ValueError: a negative fee.
        """

    @abstractmethod
    async def get_tournament(self, tournament_id: int) -> TournamentRecord:
        """The tournament. Raises :class:`UnknownTournament`."""

    @abstractmethod
    async def live_tournaments(self) -> list[TournamentRecord]:
        """Every tournament open for sign-up or running, oldest first."""

    @abstractmethod
    async def set_tournament_messages(self, tournament_id: int, *,
                                      message_id: int | None = None,
                                      board_id: int | None = None) -> None:
        """Remember the group's sign-up message and/or board (``None``: unchanged)."""

    @abstractmethod
    async def sign_up(self, tournament_id: int, user_id: int, name: str,
                      maximum: int) -> bool:
        """Sign ``user_id`` up (last in the sign-up order); ``False`` when signed up already.

        Raises:
            TournamentRefused: ``tournament_closed`` (not open), ``tournament_full``
                (``maximum`` signed up).
            UnknownPlayer: no such player.
        """

    @abstractmethod
    async def withdraw(self, tournament_id: int, user_id: int) -> bool:
        """Take ``user_id``'s sign-up back while sign-up is open; ``False`` when they were not
        signed up. Raises :class:`TournamentRefused` ``tournament_closed``."""

    @abstractmethod
    async def tournament_entries(self, tournament_id: int) -> list[TournamentEntry]:
        """The members signed up, in sign-up order."""

    @abstractmethod
    async def take_tournament_fees(self, tournament_id: int) -> TournamentStart:
        """The start (one transaction): each member's fee into the pool (a ledger row each);
        a member who cannot pay (short of beans, or beans held by a running deal) is dropped
        from the entries (and kept with the tournament); the tournament is ``running``. Taken
        once: a second call answers the first's field and who was dropped.

        Raises:
            TournamentRefused: ``tournament_state``, cancelled or finished.
        """

    @abstractmethod
    async def put_tournament_stage(self, tournament_id: int, stage: int,
                                   tables: Sequence[tuple[Sequence[int], dict[str, Any]]],
                                   state: dict[str, Any],
                                   posts: Sequence[tuple[str, str]] = ()) -> bool:
        """Store a stage's drawn tables (numbered from 1) with the tournament's ``state`` and
        its group messages ``posts`` (``(key, text)``, due until :meth:`clear_tournament_post`),
        in one transaction; ``False`` (nothing written) when that stage's tables exist
        already."""

    @abstractmethod
    async def put_tournament_state(self, tournament_id: int, state: dict[str, Any]) -> None:
        """Store the tournament's progress."""

    @abstractmethod
    async def tournament_tables(self, tournament_id: int,
                                stage: int | None = None) -> list[TournamentTable]:
        """The tournament's tables (of ``stage``), by stage and number."""

    @abstractmethod
    async def settle_tournament_deal(self, tournament_id: int, stage: int, number: int,
                                     deal_id: int, deal_state_json: str,
                                     table_state: dict[str, Any], done: bool, *,
                                     table: dict[str, Any] | None = None) -> None:
        """A tournament deal ended (one transaction): the deal is closed with no beans moved
        (stored cancelled, as a practice deal), the tournament table's standings and ``done``
        written, and the bot's table (``table``) stored with it."""

    @abstractmethod
    async def reopen_tournament_table(self, tournament_id: int, stage: int, number: int,
                                      table_state: dict[str, Any],
                                      posts: Sequence[tuple[str, str]] = ()) -> None:
        """A finished table plays again (extra deals to break a tie, 加赛), with the group
        messages ``posts`` stored in the same transaction (as :meth:`put_tournament_stage`)."""

    @abstractmethod
    async def finish_tournament(self, tournament_id: int, paid: Mapping[int, int],
                                result: dict[str, Any],
                                posts: Sequence[tuple[str, str]] = ()) -> dict[int, int]:
        """Pay the pool out (one ledger row per member paid; the amounts sum to the pool) and
        mark the tournament finished, with the group messages ``posts`` (as
        :meth:`put_tournament_stage`), in one transaction; once: a second call answers what the
        first paid.

        Raises:
            ValueError: amounts that do not sum to the pool, or paid to a non-entrant.
        """

    @abstractmethod
    async def announce_tournament(self, tournament_id: int) -> bool:
        """Mark a finished tournament's final ranking as posted (claimed or not); ``False``
        when it was already (or the tournament is not finished)."""

    @abstractmethod
    async def claim_tournament_announcement(self, tournament_id: int,
                                            seconds: float = 120.0) -> bool:
        """Claim the posting of a finished tournament's final ranking for ``seconds``, right
        before it is sent: ``True`` for one caller only, while it is neither posted nor under a
        claim that still runs (two workers do not post it side by side). A claim that ran out
        (its poster died before recording it sent) may be taken again: the ranking, which
        reveals the seed, is posted at least once; twice only when its poster died between
        Telegram taking it and :meth:`announce_tournament`. A claimed ranking counts as posted
        (``TournamentRecord.announced``)."""

    @abstractmethod
    async def release_tournament_announcement(self, tournament_id: int) -> None:
        """Give up a claim of :meth:`claim_tournament_announcement` whose message could not be
        sent: the ranking is posted again later (after a restart, or by the watchdog)."""

    @abstractmethod
    async def unannounced_tournaments(self, *, claimed: bool = False) -> list[TournamentRecord]:
        """Finished tournaments whose final ranking was not posted yet and is under no claim
        that still runs, oldest first; ``claimed``: with those under a running claim too
        (``announced`` set: a single process's start, whose claims died with the process)."""

    @abstractmethod
    async def cancel_tournament(self, tournament_id: int,
                                posts: Sequence[tuple[str, str]] = ()) -> dict[int, int] | None:
        """Cancel an open or running tournament and refund every fee taken (one ledger row
        each), with the group messages ``posts`` (as :meth:`put_tournament_stage`), in one
        transaction; the refunds by member. ``None`` when it was finished or cancelled before
        (nothing refunded twice, no message stored)."""

    @abstractmethod
    async def claim_tournament_post(self, tournament_id: int, key: str,
                                    seconds: float = 120.0) -> bool:
        """Claim the sending of the tournament's due group message ``key`` for ``seconds``,
        right before it is sent: ``True`` for one caller only, while it is due and under no
        claim that still runs (as :meth:`claim_tournament_announcement`)."""

    @abstractmethod
    async def release_tournament_post(self, tournament_id: int, key: str | None = None) -> None:
        """Give up the claim on message ``key`` (``None``: every claim of the tournament; a
        single process's start, whose claims died with it): it is due again."""

    @abstractmethod
    async def clear_tournament_post(self, tournament_id: int, key: str) -> None:
        """Message ``key`` was sent: it is due no more."""

    @abstractmethod
    async def due_tournament_posts(self) -> list[TournamentRecord]:
        """The tournaments (any status) with group messages stored and not sent yet, oldest
        first."""

    @abstractmethod
    async def tournament_ledger(self, tournament_id: int) -> list[LedgerEntry]:
        """The tournament's ledger rows (fees, prizes, refunds), oldest first."""

    @abstractmethod
    async def tournament_stats(self, user_id: int) -> tuple[int, int]:
        """A player's finished tournaments (all groups): ``(played, won)``; played: in the
        field at the start (a place or a forfeit recorded), won: first place (RULES.md
        §10.1)."""

    @abstractmethod
    async def tournament_leaderboard(self, chat_id: int, period: Period = "all",
                                     tz: str | None = None, limit: int = 10
                                     ) -> list[LeaderboardRow]:
        """``/top tournaments``: the group's tournament winners over ``period`` (``"week"``
        in the group's time zone, or ``"all"``): ``wins`` (and ``value``) the tournaments won
        (first place), ``games`` those played to their end; only players who won one, most
        wins first, then fewer played, then who first won earlier, then the user id. Raises
        ValueError for an unknown period or a limit below 1."""
