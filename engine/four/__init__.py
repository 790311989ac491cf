"""The four-player, two-deck game (RULES.md §11): its reader, legal plays, bomb allowances and
score. The rest of the engine dispatches here when ``rules.variant == "four"``
(:data:`engine.presets.FOUR`), so ``engine.classify``, ``engine.legal_moves``, ``engine.apply``
and ``DealState.view`` serve both games.
"""
