"""The game layer: tables, the lobby, the deal driver, timers and the AI worker, with no Telegram
types.

Modules: :mod:`~bot.core.table` (a table's persistent value and the registry of tables and
seats), :mod:`~bot.game.config` (a group's settings frozen when a deal starts),
:mod:`~bot.game.outlet` (the one interface to the outside: what a seat and a table's audience
should now see, which timers to arm), :mod:`~bot.game.lobby`, :mod:`~bot.game.deal` (the driver),
:mod:`~bot.game.restore` (after a restart), :mod:`~bot.game.ai` (decisions off the event loop)
and :mod:`~bot.features.service` (:class:`~bot.features.service.Game`, the entry points handlers
call).

A table lives wherever its audience is: a group chat, a forum topic or a private chat
(``/practice``); the game layer only knows the audience's ``chat_id``/``thread_id`` pair and hands
it to the outlet.
"""
