"""Several webhook workers on one PostgreSQL database.

SQLite in one process stays the default and uses none of this. With ``WEBHOOK_URL`` and a
``postgresql://`` ``DATABASE_URL`` the bot runs as a webhook worker, and any number of workers may
receive any update:

- :mod:`bot.telegram.workers.webhook`: updates are stored before they are answered 200, deduplicated
  by ``update_id``, and finished by another worker when theirs dies;
- :mod:`bot.telegram.workers.guard`: a table's actions run one at a time across the workers, on the
  stored table (a worker's tables are a cache);
- :mod:`bot.telegram.workers.timers`: timers are rows, fired once by whichever worker is alive, with
  a watchdog per table for a worker killed half-way (:mod:`bot.telegram.workers.resume`);
- :mod:`bot.telegram.workers.outlet`, :mod:`bot.telegram.workers.flood`: one worker at a time edits
  a group's table message, and the flood budgets are counted for all workers together;
- :mod:`bot.telegram.workers.shared`: the SQL of all that; :mod:`bot.telegram.workers.wiring` puts a
  worker together, :mod:`bot.telegram.workers.run` runs one or ``WORKERS`` of them.
"""
