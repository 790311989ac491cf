-- 0001: the initial schema (issue 3 and issue 5). Times are INTEGER milliseconds since the Unix
-- epoch, UTC. Beans are INTEGER. JSON columns are TEXT. Bot seats have no player row.

CREATE TABLE players (
    user_id            INTEGER PRIMARY KEY,
    name               TEXT    NOT NULL,
    language           TEXT,
    balance            INTEGER NOT NULL CHECK (balance >= 0),
    balance_changed_at INTEGER NOT NULL,
    created_at         INTEGER NOT NULL,
    -- statistics over all groups, updated by settlement
    games              INTEGER NOT NULL DEFAULT 0,
    wins               INTEGER NOT NULL DEFAULT 0,
    landlord_games     INTEGER NOT NULL DEFAULT 0,
    landlord_wins      INTEGER NOT NULL DEFAULT 0,
    farmer_games       INTEGER NOT NULL DEFAULT 0,
    farmer_wins        INTEGER NOT NULL DEFAULT 0,
    springs            INTEGER NOT NULL DEFAULT 0,
    bombs              INTEGER NOT NULL DEFAULT 0,
    best_win           INTEGER NOT NULL DEFAULT 0,
    current_streak     INTEGER NOT NULL DEFAULT 0,
    longest_streak     INTEGER NOT NULL DEFAULT 0
);
-- /top global and the global rank: balance, then fewer games, then earlier.
CREATE INDEX players_by_balance ON players (balance DESC, games, balance_changed_at, user_id);

CREATE TABLE groups (
    chat_id    INTEGER PRIMARY KEY,
    settings   TEXT    NOT NULL,  -- only the values an admin changed
    updated_at INTEGER NOT NULL
);

CREATE TABLE tables (
    table_key  TEXT    PRIMARY KEY,
    data       TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE deals (
    id          INTEGER PRIMARY KEY,
    table_key   TEXT    NOT NULL,
    chat_id     INTEGER NOT NULL,
    seats       TEXT    NOT NULL,  -- [{"user_id": int|null, "name": str, "is_bot": bool}, ...]
    rules       TEXT    NOT NULL,
    stake       INTEGER NOT NULL CHECK (stake > 0),
    status      TEXT    NOT NULL DEFAULT 'running'
                        CHECK (status IN ('running', 'settled', 'cancelled')),
    state       TEXT    NOT NULL,  -- the engine's DealState JSON, with the full action history
    version     INTEGER NOT NULL,
    result      TEXT,              -- the settlement JSON
    created_at  INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE INDEX deals_running ON deals (id) WHERE status = 'running';
CREATE INDEX deals_by_finished ON deals (finished_at, chat_id) WHERE status = 'settled';

-- One row per seat of a settled deal: the facts for statistics and leaderboards.
CREATE TABLE deal_seats (
    deal_id     INTEGER NOT NULL REFERENCES deals (id),
    seat        INTEGER NOT NULL,
    user_id     INTEGER,           -- NULL for a bot seat
    chat_id     INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    role        TEXT CHECK (role IN ('landlord', 'farmer')),
    won         INTEGER NOT NULL,
    points      INTEGER NOT NULL,
    beans       INTEGER NOT NULL,
    bombs       INTEGER NOT NULL,
    spring      INTEGER NOT NULL,
    escaped     INTEGER NOT NULL,
    PRIMARY KEY (deal_id, seat)
) WITHOUT ROWID;
-- /top today|week in a group, and over all groups.
CREATE INDEX deal_seats_by_chat ON deal_seats (chat_id, finished_at, user_id, beans)
    WHERE user_id IS NOT NULL;
CREATE INDEX deal_seats_by_time ON deal_seats (finished_at, user_id, beans)
    WHERE user_id IS NOT NULL;

-- The players of a group: who played a deal there, how often, and a copy of their balance
-- (kept equal to players.balance by the trigger below) so that /top all and the rank in a
-- group read one index, however many players the group has.
CREATE TABLE group_players (
    chat_id            INTEGER NOT NULL,
    user_id            INTEGER NOT NULL REFERENCES players (user_id),
    games              INTEGER NOT NULL,
    last_played_at     INTEGER NOT NULL,
    balance            INTEGER NOT NULL,
    balance_changed_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, chat_id)  -- a player's groups side by side: one page per update
) WITHOUT ROWID;
CREATE INDEX group_players_by_balance
    ON group_players (chat_id, balance DESC, games, balance_changed_at, user_id);

CREATE TRIGGER group_players_follow_balance
AFTER UPDATE OF balance, balance_changed_at ON players
WHEN NEW.balance IS NOT OLD.balance OR NEW.balance_changed_at IS NOT OLD.balance_changed_at
BEGIN
    UPDATE group_players SET balance = NEW.balance, balance_changed_at = NEW.balance_changed_at
    WHERE user_id = NEW.user_id;
END;

CREATE TABLE ledger (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES players (user_id),
    amount        INTEGER NOT NULL CHECK (amount <> 0),
    balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
    reason        TEXT    NOT NULL CHECK (reason IN ('grant', 'daily', 'relief', 'deal', 'give')),
    deal_id       INTEGER REFERENCES deals (id),
    chat_id       INTEGER,
    created_at    INTEGER NOT NULL
);
CREATE INDEX ledger_by_user ON ledger (user_id, id);

-- Daily check-ins and reliefs: at most one per player, kind and local day.
CREATE TABLE claims (
    user_id    INTEGER NOT NULL REFERENCES players (user_id),
    kind       TEXT    NOT NULL CHECK (kind IN ('daily', 'relief')),
    day        TEXT    NOT NULL,  -- YYYY-MM-DD in the time zone of the group it was claimed in
    amount     INTEGER NOT NULL,
    streak     INTEGER NOT NULL,
    chat_id    INTEGER,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind, day)
) WITHOUT ROWID;

CREATE TABLE gives (
    id          INTEGER PRIMARY KEY,
    giver_id    INTEGER NOT NULL REFERENCES players (user_id),
    receiver_id INTEGER NOT NULL REFERENCES players (user_id),
    amount      INTEGER NOT NULL CHECK (amount > 0),
    chat_id     INTEGER NOT NULL,
    day         TEXT    NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX gives_by_giver ON gives (giver_id, day);

-- Markers of posts that must happen once (e.g. the end-of-day top 3).
CREATE TABLE posts (
    chat_id    INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    day        TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (chat_id, kind, day)
) WITHOUT ROWID;
