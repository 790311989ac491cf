"""Record types, errors and row readers of the duplicate challenge in the store
(RULES.md §10): plain frozen values; the SQL is in the two backends."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from bot.store.records import StoreError
from bot.store.rows import Row, dt


@dataclass(frozen=True, slots=True)
class ChallengeRecord:
    """A stored challenge.

    Attributes:
        challenge_id: its id. chat_id, thread_id: the group (and forum topic) it was opened in.
        opener_id: who opened it (0: the daily challenge, opened by the bot).
        options: ``ChallengeOptions.to_dict()``; entry_fee: beans per member; pool: fees taken.
        seed: the seed of its deals (secret until closed); seed_hash: its SHA-256, published.
        status: ``"open"`` or ``"closed"``; announced: the final ranking was posted
        (or a poster claimed its posting, :meth:`Store.claim_announcement`, perhaps a claim
        that ran out).
        message_id: the group's challenge message.
        daily: the group's day (``YYYY-MM-DD``) of a daily challenge, else ``None``.
        result: the final board and payout as stored, once closed.
        created_at, closes_at, closed_at: UTC.
    """

    challenge_id: int
    chat_id: int
    thread_id: int | None
    opener_id: int
    options: dict[str, Any]
    seed: str
    seed_hash: str
    entry_fee: int
    pool: int
    status: Literal["open", "closed"]
    announced: bool
    message_id: int | None
    daily: str | None
    result: dict[str, Any] | None
    created_at: datetime
    closes_at: datetime
    closed_at: datetime | None


@dataclass(frozen=True, slots=True)
class ChallengeEntry:
    """A member who entered: ``user_id``, ``name`` (as when entering), ``entered_at`` (UTC)."""

    user_id: int
    name: str
    entered_at: datetime


@dataclass(frozen=True, slots=True)
class ChallengePlay:
    """A member's finished challenge deal: ``deal`` (1-based), the store's ``deal_id``, the
    ``points`` from the member's seat (RULES.md §7), ``landlord_won``, ``finished_at`` (UTC)."""

    user_id: int
    deal: int
    deal_id: int | None
    points: int
    landlord_won: bool
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class ChallengePayout:
    """What :meth:`Store.close_challenge` paid per member (beans), and whether the challenge had
    been closed before (``repeated``: nothing paid now)."""

    challenge_id: int
    paid: dict[int, int]
    repeated: bool = False


class ChallengeRefused(StoreError):
    """Opening or entering a challenge was refused; ``code`` says why.

    Codes: ``challenge_open`` (the chat has an open challenge already), ``challenge_daily``
    (the group's daily challenge of that day exists), ``challenge_closed`` (entering after the
    window closed), ``challenge_entered`` (entering twice), ``challenge_held`` (the member's
    beans are held by a running deal, RULES.md §8), ``challenge_fee`` (a balance below the fee).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ChallengeNotOpen(StoreError):
    """The challenge is closed: no deal of it can be recorded any more."""

    code = "challenge_not_open"


class UnknownChallenge(StoreError):
    """No challenge with that id."""

    code = "unknown_challenge"


def challenge_record(row: Row) -> ChallengeRecord:
    return ChallengeRecord(
        challenge_id=row["id"],
        chat_id=row["chat_id"],
        thread_id=row["thread_id"],
        opener_id=row["opener_id"],
        options=json.loads(row["options"]),
        seed=row["seed"],
        seed_hash=row["seed_hash"],
        entry_fee=row["entry_fee"],
        pool=row["pool"],
        status=row["status"],
        announced=bool(row["announced"]),
        message_id=row["message_id"],
        daily=row["daily"],
        result=json.loads(row["result"]) if row["result"] else None,
        created_at=dt(row["created_at"]),
        closes_at=dt(row["closes_at"]),
        closed_at=dt(row["closed_at"]) if row["closed_at"] is not None else None,
    )


def challenge_entry(row: Row) -> ChallengeEntry:
    return ChallengeEntry(row["user_id"], row["name"], dt(row["entered_at"]))


def challenge_play(row: Row) -> ChallengePlay:
    return ChallengePlay(row["user_id"], row["deal"], row["deal_id"], row["points"],
                         bool(row["landlord_won"]), dt(row["finished_at"]))
