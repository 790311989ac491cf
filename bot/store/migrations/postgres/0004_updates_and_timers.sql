-- 0004: what several workers need to share (issue 16), as sqlite/0004_updates_and_timers.sql.

CREATE TABLE updates (
    update_id  BIGINT PRIMARY KEY,
    claimed_at BIGINT NOT NULL
);
CREATE INDEX updates_by_time ON updates (claimed_at);

CREATE TABLE timers (
    key           TEXT   PRIMARY KEY,
    due_at        BIGINT NOT NULL,
    payload       TEXT   NOT NULL,
    generation    BIGINT NOT NULL,
    claimed_by    TEXT,
    claimed_until BIGINT
);
CREATE INDEX timers_by_due ON timers (due_at);
