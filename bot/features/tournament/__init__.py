"""Group tournaments (锦标赛, RULES.md §10.1) in the bot: a table's standings in a stage
(:mod:`.standings`), the group's texts and buttons (:mod:`.views`) and the driver that opens,
signs up, draws, plays every stage's tables at once and pays out (:mod:`.driver`). The pure rules
(presets, draws, advancement, prizes) are :mod:`engine.tournament` and :mod:`engine.prizes`."""
