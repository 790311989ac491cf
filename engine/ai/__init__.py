"""Computer players. Entry points (stable API): ``choose_action(view, level)`` and
``hints(view, limit)``.

The AI decides from a :class:`engine.view.SeatView` only (RULES.md §1.3: a hand is private).
Levels (:mod:`engine.ai.levels`): ``easy`` plays legal but weak moves, ``normal`` plans its hand,
``hard`` adds card counting, alarm blocking and the endgame search; hints use ``hard``.
"""

from engine.ai.levels import LEVELS, choose_action, hints

__all__ = ["LEVELS", "choose_action", "hints"]
