-- 0004: what several workers need to share (issue 16). `updates`: the Telegram update ids already
-- taken by a worker, so a webhook retried by Telegram is processed once. `timers`: deadlines as
-- rows with a due time (turn deadlines, bot moves, lobby expiry), claimed by whichever worker is
-- alive for a lease; `generation` grows with every schedule of the same key, so finishing an old
-- firing never deletes a newer schedule.

CREATE TABLE updates (
    update_id  INTEGER PRIMARY KEY,
    claimed_at INTEGER NOT NULL
);
CREATE INDEX updates_by_time ON updates (claimed_at);

CREATE TABLE timers (
    key           TEXT    PRIMARY KEY,  -- what the timer is for, e.g. "turn:<table key>"
    due_at        INTEGER NOT NULL,
    payload       TEXT    NOT NULL,     -- JSON
    generation    INTEGER NOT NULL,
    claimed_by    TEXT,                 -- the worker whose lease runs, if any
    claimed_until INTEGER
) WITHOUT ROWID;
CREATE INDEX timers_by_due ON timers (due_at);
