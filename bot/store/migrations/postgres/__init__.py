"""Numbered PostgreSQL migrations ``NNNN_name.sql``: the same numbers and the same schema as
:mod:`bot.store.migrations.sqlite`, in PostgreSQL's dialect (:mod:`bot.store.migrate`)."""
