"""Several webhook workers on one PostgreSQL database.

SQLite in one process stays the default and uses none of this. With ``WEBHOOK_URL`` and a
``postgresql://`` ``DATABASE_URL`` the bot runs as a webhook worker, and any number of workers may
receive any update:

- :mod:`bot.workers.webhook`: updates are stored before they are answered 200, deduplicated by
  ``update_id``, and finished by another worker when theirs dies;
- :mod:`bot.workers.guard`: a table's actions run one at a time across the workers, on the
  stored table (a worker's tables are a cache);
- :mod:`bot.workers.timers`: timers are rows, fired once by whichever worker is alive, with a
  watchdog per table for a worker killed half-way (:mod:`bot.workers.resume`);
- :mod:`bot.workers.outlet`, :mod:`bot.workers.flood`: one worker at a time edits a group's
  table message, and the flood budgets are counted for all workers together;
- :mod:`bot.workers.shared`: the SQL of all that; :mod:`bot.workers.wiring` puts a worker
  together, :mod:`bot.workers.run` runs one or ``WORKERS`` of them.
"""
