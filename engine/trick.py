"""The current trick and how a set of played ranks is read (RULES.md §4, §5, §6).

>>> from engine.presets import SCORE
>>> str(read_play((0, 0, 0, 1), None, None, SCORE))
'3334'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine import combos
from engine.action import Action, ActionKind, IllegalAction
from engine.cards import format_ranks
from engine.combos import ComboType, Play
from engine.presets import Rules


@dataclass(frozen=True, slots=True)
class Trick:
    """The trick in progress (RULES.md §4.2–§4.3).

    Attributes:
        play: the last non-pass play of the trick; ``None`` when the seat to act leads.
        seat: the seat that made ``play``.
        passes: passes since ``play``; at ``seats - 1`` the trick is over.
    """

    play: Play | None = None
    seat: int | None = None
    passes: int = 0


def read_play(ranks: Sequence[int], type_: ComboType | None, prev: Play | None,
              rules: Rules) -> Play:
    """The reading of ``ranks`` that is played (RULES.md §5 "several readings", §6).

    Leading (``prev`` is ``None``): the reading of type ``type_`` if given, else the first reading
    of :func:`engine.combos.classify` (with the default rules every set has exactly one).
    Following: among the readings (of type ``type_`` if given) that beat ``prev``, one of the
    same type as ``prev`` if any (a bomb or rocket otherwise).

    Raises:
        IllegalAction: ``invalid_combination`` (no reading, or none of type ``type_``),
            ``cannot_beat`` (no reading beats ``prev``; the error carries the reading compared,
            ``prev`` and :func:`engine.combos.beat_reason`'s code).
    """
    readings = combos.classify(ranks, rules)
    if type_ is not None:
        readings = [r for r in readings if r.type == type_]
    if not readings:
        what = f" as {type_}" if type_ is not None else ""
        raise IllegalAction("invalid_combination",
                            f"{format_ranks(ranks)} is not a valid combination{what}.")
    if prev is None:
        return readings[0]
    beating = [r for r in readings if combos.beats(r, prev)]
    if not beating:
        same = [r for r in readings if r.type == prev.type] or readings
        raise IllegalAction("cannot_beat", f"{format_ranks(ranks)} does not beat {prev}.",
                            reading=same[0], beaten=prev, reason=combos.beat_reason(same[0], prev))
    same_type = [r for r in beating if r.type == prev.type]
    return (same_type or beating)[0]


def last_trick(history: Sequence[Action], seats: int) -> tuple[Action, ...]:
    """The plays and passes of the last trick that is over (RULES.md §4.3: a play, then the
    others in turn until ``seats - 1`` passes in a row), in the order they were made; empty
    while no trick is over. Public: played cards are face up (RULES.md §4). The bidding's
    passes come before the first play and are not counted; a ``timeout`` is followed by the
    action it resolved to, which is.

    >>> pass_, play = ActionKind.PASS, ActionKind.PLAY
    >>> moves = [Action(pass_, 1), Action(play, 0, cards=(0,)), Action(play, 1, cards=(5,)),
    ...          Action(pass_, 2), Action(pass_, 0), Action(play, 1, cards=(2,))]
    >>> [(a.kind.value, a.seat) for a in last_trick(moves, 3)]
    [('play', 0), ('play', 1), ('pass', 2), ('pass', 0)]
    """
    done: tuple[Action, ...] = ()
    current: list[Action] = []
    passes = 0
    for action in history:
        if action.kind == ActionKind.PLAY:
            current.append(action)
            passes = 0
        elif action.kind == ActionKind.PASS and current:
            current.append(action)
            passes += 1
            if passes == seats - 1:
                done, current, passes = tuple(current), [], 0
    return done
