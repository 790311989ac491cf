"""Persistent data of the bot behind one small async interface (issues 3 and 5, RULES.md §8).

>>> store = await Store.open(settings.database_path)   # doctest: +SKIP

All SQL lives in this package; handlers use :class:`Store` and the record types only.
"""

from bot.store.base import Clock, Store
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
    NotEligible,
    Player,
    PlayerStats,
    Role,
    SeatFacts,
    SeatRecord,
    Settlement,
    StaleVersion,
    StoreError,
    Totals,
    UnknownDeal,
    UnknownPlayer,
)
from bot.store.sqlite import SQLiteStore

__all__ = [
    "GRANT_REASONS",
    "AlreadyClaimed",
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
    "NotEligible",
    "Player",
    "PlayerStats",
    "Role",
    "SQLiteStore",
    "SeatFacts",
    "SeatRecord",
    "Settlement",
    "StaleVersion",
    "Store",
    "StoreError",
    "Totals",
    "UnknownDeal",
    "UnknownPlayer",
]
