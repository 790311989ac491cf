"""Persistent data of the bot behind one small async interface (RULES.md §8).

>>> store = await open_store(settings.database)   # doctest: +SKIP

``settings.database`` is a ``postgresql://`` URL (:class:`PostgresStore`, several workers) or a
SQLite file path (:class:`SQLiteStore`, the default); :func:`open_store` picks by that.

All SQL lives in this package; handlers use :class:`Store` and the record types only.
"""

from bot.store.base import Clock, Store
from bot.store.challenge_records import (
    ChallengeEntry,
    ChallengeNotOpen,
    ChallengePayout,
    ChallengePlay,
    ChallengeRecord,
    ChallengeRefused,
    UnknownChallenge,
)
from bot.store.factory import open_store
from bot.store.records import (
    GRANT_REASONS,
    AlreadyClaimed,
    Claim,
    DealHold,
    DealNotRunning,
    DealRecord,
    Gift,
    GiveRefused,
    LeaderboardRow,
    LedgerEntry,
    LedgerReason,
    MatchNotRunning,
    MatchPayout,
    MatchRecord,
    MatchRefused,
    MatchStats,
    NotEligible,
    Player,
    PlayerStats,
    Role,
    SeatFacts,
    SeatRecord,
    Settlement,
    StaleVersion,
    StoreError,
    TimerRecord,
    Totals,
    UnknownDeal,
    UnknownMatch,
    UnknownPlayer,
    UsernameOwner,
    username_key,
)
from bot.store.sql import PostgresStore, SQLiteStore

__all__ = [
    "GRANT_REASONS",
    "AlreadyClaimed",
    "ChallengeEntry",
    "ChallengeNotOpen",
    "ChallengePayout",
    "ChallengePlay",
    "ChallengeRecord",
    "ChallengeRefused",
    "Claim",
    "Clock",
    "DealHold",
    "DealNotRunning",
    "DealRecord",
    "Gift",
    "GiveRefused",
    "LeaderboardRow",
    "LedgerEntry",
    "LedgerReason",
    "MatchNotRunning",
    "MatchPayout",
    "MatchRecord",
    "MatchRefused",
    "MatchStats",
    "NotEligible",
    "Player",
    "PlayerStats",
    "PostgresStore",
    "Role",
    "SQLiteStore",
    "SeatFacts",
    "SeatRecord",
    "Settlement",
    "StaleVersion",
    "Store",
    "StoreError",
    "TimerRecord",
    "Totals",
    "UnknownChallenge",
    "UnknownDeal",
    "UnknownMatch",
    "UnknownPlayer",
    "UsernameOwner",
    "open_store",
    "username_key",
]
