"""Dou Dizhu rules engine (RULES.md): pure Python, standard library only, no I/O.

One import line per module; each name listed here is public API.
"""

from engine.action import ERROR_CODES, Action, ActionKind, IllegalAction
from engine.cards import CardError, check_ranks, format_ranks, parse_ranks, rank_counts
from engine.combos import ComboType, Play, beat_reason, beats, classify, play_groups
from engine.deal import DealState, apply, auto_action, new_deal, next_first_bidder
from engine.moves import legal_moves
from engine.presets import FOUR, ROB, SCORE, Rules, preset
from engine.replay import run_replay
from engine.scoring import DealResult
from engine.trick import Trick
from engine.view import SeatView

__all__ = [
    "ERROR_CODES",
    "Action",
    "ActionKind",
    "IllegalAction",
    "CardError",
    "check_ranks",
    "format_ranks",
    "parse_ranks",
    "rank_counts",
    "ComboType",
    "Play",
    "beat_reason",
    "beats",
    "classify",
    "play_groups",
    "DealState",
    "apply",
    "auto_action",
    "new_deal",
    "next_first_bidder",
    "legal_moves",
    "FOUR",
    "ROB",
    "SCORE",
    "Rules",
    "preset",
    "run_replay",
    "DealResult",
    "Trick",
    "SeatView",
]
