"""Plain-JSON encodings of the engine's value types (used by ``DealState.to_json``).

Every ``*_to_dict`` has an exact inverse ``*_from_dict``; tuples come back as tuples so that a
decoded value compares equal to the original.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from engine.action import Action
from engine.bidding import Bidding
from engine.combos import ComboType, Play
from engine.scoring import DealResult
from engine.trick import Trick


def action_to_dict(action: Action) -> dict[str, Any]:
    """``{"kind", "seat"}`` plus ``value``, ``cards``, ``type`` when set."""
    data: dict[str, Any] = {"kind": action.kind.value, "seat": action.seat}
    if action.value is not None:
        data["value"] = action.value
    if action.cards is not None:
        data["cards"] = list(action.cards)
    if action.type is not None:
        data["type"] = action.type.value
    return data


def action_from_dict(data: dict[str, Any]) -> Action:
    """Inverse of :func:`action_to_dict`."""
    cards = data.get("cards")
    return Action(data["kind"], data["seat"], value=data.get("value"),
                  cards=tuple(cards) if cards is not None else None, type=data.get("type"))


def play_to_dict(play: Play | None) -> dict[str, Any] | None:
    """``{"type", "main", "n", "cards"}`` or ``None``."""
    if play is None:
        return None
    return {"type": play.type.value, "main": play.main, "n": play.n, "cards": list(play.cards)}


def play_from_dict(data: dict[str, Any] | None) -> Play | None:
    """Inverse of :func:`play_to_dict`."""
    if data is None:
        return None
    return Play(ComboType(data["type"]), data["main"], data["n"], tuple(data["cards"]))


def trick_to_dict(trick: Trick) -> dict[str, Any]:
    """``{"play", "seat", "passes"}``."""
    return {"play": play_to_dict(trick.play), "seat": trick.seat, "passes": trick.passes}


def trick_from_dict(data: dict[str, Any]) -> Trick:
    """Inverse of :func:`trick_to_dict`."""
    return Trick(play_from_dict(data["play"]), data["seat"], data["passes"])


def bidding_to_dict(bidding: Bidding) -> dict[str, Any]:
    """All fields of :class:`Bidding`; tuples as lists."""
    return asdict(bidding)


def bidding_from_dict(data: dict[str, Any]) -> Bidding:
    """Inverse of :func:`bidding_to_dict`."""
    return Bidding(**_tuples(data))


def result_to_dict(result: DealResult | None) -> dict[str, Any] | None:
    """All fields of :class:`DealResult`; tuples as lists."""
    return None if result is None else asdict(result)


def result_from_dict(data: dict[str, Any] | None) -> DealResult | None:
    """Inverse of :func:`result_to_dict`."""
    if data is None:
        return None
    return DealResult(**_tuples(data))


def _tuples(data: dict[str, Any]) -> dict[str, Any]:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
