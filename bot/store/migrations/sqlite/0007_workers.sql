-- 0007: the webhook workers' shared rows (issue 16, bot/workers/); used on PostgreSQL only (one
-- SQLite process needs none of them), created on both so that the schemas stay the same.
-- `inbox`: every webhook update, stored before its 200 answer and kept a day after it was done
-- (Telegram's retries are deduplicated by `update_id`); an update whose worker died (its lease
-- ran out before `done_at`) is claimed and processed by another worker.
-- `flood_slots`: the start times of requests per chat (0: the whole bot), the flood windows
-- every worker counts in. `leases`: named short claims, e.g. one worker at a time edits a
-- table's group message.

CREATE TABLE inbox (
    update_id     INTEGER PRIMARY KEY,
    body          TEXT    NOT NULL,     -- the update's JSON as Telegram sent it
    received_at   INTEGER NOT NULL,
    claimed_by    TEXT    NOT NULL,
    claimed_until INTEGER NOT NULL,
    done_at       INTEGER
);
CREATE INDEX inbox_by_lease ON inbox (done_at, claimed_until);

CREATE TABLE flood_slots (
    id      INTEGER PRIMARY KEY,
    chat_id INTEGER NOT NULL,
    at_ms   INTEGER NOT NULL
);
CREATE INDEX flood_slots_by_chat ON flood_slots (chat_id, at_ms);

CREATE TABLE leases (
    name        TEXT    PRIMARY KEY,
    worker      TEXT    NOT NULL,
    until_ms    INTEGER NOT NULL
) WITHOUT ROWID;
