"""Numbered schema migrations, one folder per SQL dialect (``sqlite/``, ``postgres/``) with the
same numbers in both (:mod:`bot.store.migrate`)."""
