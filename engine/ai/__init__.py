"""Computer players. Entry point: ``choose_action(view, level)`` (stable API).

The AI decides from a :class:`engine.view.SeatView` only (RULES.md §1.3: a hand is private).
"""

from engine.ai.simple import choose_action, hints

__all__ = ["choose_action", "hints"]
