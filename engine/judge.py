"""The JSON-lines referee: ``python -m engine.judge`` (protocol in ``docs/judge.md``).

Reads one JSON object per line on standard input and writes one answer per line on standard
output, in the same order; blank lines are skipped. Operations: ``classify`` (RULES.md §5),
``beats`` (§6), ``moves`` (§4–§6), ``replay`` (§1–§4, §7, §9, delegated to
:func:`engine.replay.run_replay`) and ``challenge`` (§10: a duplicate challenge's deals and the
SHA-256 of its seed, :mod:`engine.challenge`) and ``tournament_draw`` (§10.1: a tournament
stage's tables and byes from the revealed seed, :mod:`engine.tournament`). A line it cannot
understand gets ``{"error": "<why>"}`` and the next line is read; the referee never stops on
bad input.

Every operation also accepts the optional keys ``"variant"`` (``"three"``, the default, or
``"four"``: the four-player two-deck game of RULES.md §11, whose cards come from two decks),
``"preset"`` (``"score"`` or ``"rob"``; the four-player game bids by score only) and
``"options"`` (house options of RULES.md, e.g. ``{"rocket_kickers": true}``).

>>> handle({"op": "classify", "cards": "333444555777"})
{'readings': [{'type': 'plane_single', 'main': '5', 'n': 3}]}
>>> handle({"op": "beats", "play": "XD", "prev": "2222"})
{'beats': True}
>>> handle({"op": "classify", "cards": "3Z"})
{'error': "cards: unknown card 'Z'"}
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from engine.cards import CardError, parse_ranks
from engine.challenge import ChallengeSeedError, challenge_deals, seed_hash
from engine.combos import Play, beats, classify
from engine.moves import legal_moves
from engine.presets import Rules, preset
from engine.replay import run_replay
from engine.tournament import TournamentError, draw


class BadRequest(ValueError):
    """A request the referee cannot answer; its message is the ``error`` text."""


def _field(request: dict[str, Any], key: str) -> Any:
    if key not in request:
        raise BadRequest(f"missing field {key!r}")
    return request[key]


def _cards(request: dict[str, Any], key: str, rules: Rules) -> tuple[int, ...]:
    """A non-empty card string from the rules' decks (RULES.md §1.1: at most 4 of a rank, one
    of each joker per deck)."""
    text = _field(request, key)
    if not isinstance(text, str):
        raise BadRequest(f"{key}: a card string is expected, got {type(text).__name__}")
    try:
        ranks = parse_ranks(text, decks=rules.decks)
    except CardError as error:
        raise BadRequest(f"{key}: {error}") from None
    if not ranks:
        raise BadRequest(f"{key}: no cards")
    return ranks


_OPTION_TYPES = {f.name: type(getattr(Rules(), f.name)) for f in fields(Rules)}


def _rules(request: dict[str, Any]) -> Rules:
    """The ``preset`` (default ``"score"``) with the request's house ``options``; with
    ``"variant": "four"`` the four-player rules (RULES.md §11, preset ``"four"``)."""
    name = request.get("preset", "score")
    variant = request.get("variant", "three")
    options = request.get("options")
    if options is None:
        options = {}
    if variant not in ("three", "four"):
        raise BadRequest("variant: \"three\" or \"four\" is expected")
    if not isinstance(name, str):
        raise BadRequest("preset: a name is expected")
    if variant == "four":
        if name not in ("score", "four"):
            raise BadRequest("preset: the four-player game bids by score (RULES.md §11)")
        name = "four"
    elif name == "four":
        raise BadRequest("preset: \"four\" needs \"variant\": \"four\"")
    if not isinstance(options, dict):
        raise BadRequest("options: an object is expected")
    for key, value in options.items():
        expected = _OPTION_TYPES.get(key)
        if expected in (bool, int) and type(value) is not expected:
            raise BadRequest(f"options.{key}: {expected.__name__} expected")
    try:
        return preset(name, **options)
    except (TypeError, ValueError) as error:
        raise BadRequest(str(error)) from None


def _classify(request: dict[str, Any]) -> dict[str, Any]:
    rules = _rules(request)
    readings = classify(_cards(request, "cards", rules), rules)
    return {
        "readings": [{"type": p.type.value, "main": p.main_char, "n": p.n} for p in readings]
    }


def _beats(request: dict[str, Any]) -> dict[str, Any]:
    """Any reading of ``play`` on any reading of ``prev``; cards that are no combination
    neither beat nor can be beaten (RULES.md §6)."""
    rules = _rules(request)
    plays = classify(_cards(request, "play", rules), rules)
    prevs = classify(_cards(request, "prev", rules), rules)
    return {"beats": any(beats(play, prev) for play in plays for prev in prevs)}


def _moves(request: dict[str, Any]) -> dict[str, Any]:
    """Leads when ``prev`` is null or absent; nothing beats a ``prev`` that is no combination."""
    rules = _rules(request)
    hand = _cards(request, "hand", rules)
    prevs: list[Play | None] = [None]
    if request.get("prev") is not None:
        prevs = list(classify(_cards(request, "prev", rules), rules))
    seen: dict[tuple[str, str], None] = {}
    for prev in prevs:
        for play in legal_moves(hand, prev, rules):
            seen[str(play), play.type.value] = None
    return {"moves": [{"cards": cards, "type": kind} for cards, kind in seen]}


def _replay(request: dict[str, Any]) -> dict[str, Any]:
    return run_replay(request, _rules(request))


def _challenge(request: dict[str, Any]) -> dict[str, Any]:
    """The deals of a duplicate challenge (RULES.md §10) from its revealed ``seed`` and the
    SHA-256 that was published when it opened (:mod:`engine.challenge`)."""
    seed, count = _field(request, "seed"), _field(request, "deals")
    try:
        deals = challenge_deals(seed, count)
    except ChallengeSeedError as error:
        raise BadRequest(str(error)) from None
    return {"sha256": seed_hash(seed), "deals": [deal.to_dict() for deal in deals]}


def _tournament_draw(request: dict[str, Any]) -> dict[str, Any]:
    """The tables and byes of stage ``stage`` of a tournament (RULES.md §10.1) from its revealed
    ``seed`` and the stage's ``players`` (ids: integers or strings, any order), with the SHA-256
    published when sign-up opened. Optional: ``"table_size"`` 3 or 4 (``"variant": "four"``
    means 4) and ``"scores"``, the previous-stage score of each player in the order of
    ``players`` (``null`` for none), which give the byes to the best (:mod:`engine.tournament`).
    """
    seed, players, stage = (_field(request, k) for k in ("seed", "players", "stage"))
    if not isinstance(players, list) or not all(
            type(p) is int or isinstance(p, str) for p in players):
        raise BadRequest("players: a list of integer or string ids is expected")
    variant = request.get("variant", "three")
    if variant not in ("three", "four"):
        raise BadRequest("variant: \"three\" or \"four\" is expected")
    table_size = request.get("table_size", 4 if variant == "four" else 3)
    scores = request.get("scores")
    known: dict[int | str, int] = {}
    if scores is not None:
        if not isinstance(scores, list) or len(scores) != len(players) or not all(
                s is None or type(s) is int for s in scores):
            raise BadRequest("scores: a list of integers or nulls, one per player, is expected")
        known = {p: s for p, s in zip(players, scores, strict=True) if s is not None}
    try:
        result = draw(seed, stage, players, table_size=table_size, scores=known)
    except TournamentError as error:
        raise BadRequest(str(error)) from None
    return {"sha256": seed_hash(seed), **result.to_dict()}


_OPS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "classify": _classify,
    "beats": _beats,
    "moves": _moves,
    "replay": _replay,
    "challenge": _challenge,
    "tournament_draw": _tournament_draw,
}


def handle(request: Any) -> dict[str, Any]:
    """Answer one request of the judge protocol; never raises for bad input.

    Args:
        request: the decoded JSON object, e.g. ``{"op": "moves", "hand": "33XD", "prev": null}``.

    Returns:
        The answer object (``{"readings": …}``, ``{"beats": …}``, ``{"moves": …}``, a replay
        result), or ``{"error": "<why>"}`` for a request that is not understood.
    """
    if not isinstance(request, dict):
        return {"error": "a request must be a JSON object"}
    op = request.get("op")
    handler = _OPS.get(op) if isinstance(op, str) else None
    if handler is None:
        return {"error": f"unknown op {op!r}; expected one of {', '.join(_OPS)}"}
    try:
        return handler(request)
    except BadRequest as error:
        return {"error": str(error)}


def answer_line(line: str) -> str:
    """The answer line (JSON, no newline) to one request line."""
    try:
        request = json.loads(line)
    except ValueError as error:
        answer: dict[str, Any] = {"error": f"malformed JSON: {error}"}
    else:
        try:
            answer = handle(request)
        except Exception as error:  # the referee must survive anything a line can trigger
            answer = {"error": f"internal error: {type(error).__name__}: {error}"}
    return json.dumps(answer, ensure_ascii=False)


def main() -> None:
    """Run the referee on standard input until end of file."""
    for line in sys.stdin:
        if line.strip():
            print(answer_line(line), flush=True)


if __name__ == "__main__":
    main()
