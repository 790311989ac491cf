"""Telegram output in one place: sending and editing messages and pictures with
Telegram's harmless answers handled (:mod:`~bot.telegram.outlet.send`,
:mod:`~bot.telegram.outlet.edits`, :mod:`bot.telegram.photos`), flood limits
(:mod:`~bot.telegram.outlet.limiter`: a strict sliding window per group, a 429 pausing only its own
chat), the per-chat outbox that sends only the latest state of a table's audience message
(:mod:`~bot.telegram.outlet.outbox`), and :class:`~bot.telegram.outlet.telegram.TelegramOutlet`,
the game layer's outlet (:class:`bot.game.outlet.Outlet`) over the Bot API and PTB's JobQueue."""
