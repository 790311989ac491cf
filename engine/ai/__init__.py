"""Computer players and the card counter. Entry points (stable API):
``choose_action(view, level, *, seed=None)``, ``hints(view, limit, *, seed=None)``,
``hint_advice(view, limit, *, seed=None)`` (hints, and whether the AI itself would pass) and
``card_counter(view)``.

The AI decides from a :class:`engine.view.SeatView` only (RULES.md §1.3: a hand is private).
Levels (:mod:`engine.ai.levels`): ``easy`` plays like a beginner, ``normal`` plans its hand,
``hard`` adds card counting, alarm blocking and the endgame search; hints use ``hard``. A seed
makes a decision reproducible (duplicate challenges). :mod:`engine.ai.counter` is the card
counter (记牌器) players may see: public information only.
"""

from engine.ai.counter import CardCounter, card_counter, format_counter
from engine.ai.levels import LEVELS, Advice, choose_action, hint_advice, hints

__all__ = ["LEVELS", "Advice", "CardCounter", "card_counter", "choose_action", "format_counter",
           "hint_advice", "hints"]
