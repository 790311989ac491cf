"""Numbered SQLite migrations ``NNNN_name.sql``, applied in order by :mod:`bot.store.migrate`."""
