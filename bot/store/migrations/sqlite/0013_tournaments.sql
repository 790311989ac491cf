-- 0013: group tournaments (锦标赛, RULES.md §10.1). A tournament row holds its preset and
-- options, the seed of its draws (secret until it ends) and the SHA-256 shown when sign-up
-- opened, its status and its progress (the stages decided so far) as JSON. An entry is one row
-- per member in sign-up order (`seq`, the last tie-break); the fee taken at the start is a
-- ledger row with reason 'tournament' in the same transaction as the pool. A table row is one
-- drawn table of a stage with its players and its standings (JSON), written with each deal's
-- end. The payout (prizes, or refunds when cancelled) is written with the status change, once:
-- a unique key allows one fee row and one payout row per member and tournament.

CREATE TABLE tournaments (
    id          INTEGER PRIMARY KEY,
    chat_id     INTEGER NOT NULL,
    thread_id   INTEGER,
    opener_id   INTEGER NOT NULL,
    preset      TEXT    NOT NULL,
    options     TEXT    NOT NULL,  -- the group's language, title, rules, start, field limits
    seed        TEXT    NOT NULL,  -- lowercase hex; revealed when it ends
    seed_hash   TEXT    NOT NULL,  -- SHA-256 of the seed's text, shown at once
    entry_fee   INTEGER NOT NULL CHECK (entry_fee >= 0),
    pool        INTEGER NOT NULL DEFAULT 0 CHECK (pool >= 0),
    status      TEXT    NOT NULL DEFAULT 'open'
                        CHECK (status IN ('open', 'running', 'finished', 'cancelled')),
    message_id  INTEGER,           -- the group's sign-up message
    board_id    INTEGER,           -- the group's board while it runs
    state       TEXT    NOT NULL DEFAULT '{}',  -- the stages played and the current field
    result      TEXT,              -- places and payout, once over
    created_at  INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE UNIQUE INDEX tournaments_live ON tournaments (chat_id)
    WHERE status IN ('open', 'running');

CREATE TABLE tournament_entries (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    user_id       INTEGER NOT NULL REFERENCES players (user_id),
    name          TEXT    NOT NULL,
    seq           INTEGER NOT NULL,  -- sign-up order
    paid          INTEGER NOT NULL DEFAULT 0 CHECK (paid >= 0),
    PRIMARY KEY (tournament_id, user_id)
) WITHOUT ROWID;

CREATE TABLE tournament_tables (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    stage         INTEGER NOT NULL CHECK (stage >= 1),
    number        INTEGER NOT NULL CHECK (number >= 1),
    players       TEXT    NOT NULL,  -- user ids in seat order (JSON)
    state         TEXT    NOT NULL,  -- the table's standings (JSON)
    status        TEXT    NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'done')),
    PRIMARY KEY (tournament_id, stage, number)
) WITHOUT ROWID;

-- The ledger learns the reason 'tournament' and the tournament a row belongs to.
CREATE TABLE ledger_0013 (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES players (user_id),
    amount        INTEGER NOT NULL CHECK (amount <> 0),
    balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
    reason        TEXT    NOT NULL
                          CHECK (reason IN ('grant', 'daily', 'relief', 'deal', 'give', 'match',
                                            'challenge', 'tournament')),
    deal_id       INTEGER REFERENCES deals (id),
    chat_id       INTEGER,
    created_at    INTEGER NOT NULL,
    match_id      INTEGER REFERENCES matches (id),
    challenge_id  INTEGER REFERENCES challenges (id),
    tournament_id INTEGER REFERENCES tournaments (id)
);
INSERT INTO ledger_0013 (id, user_id, amount, balance_after, reason, deal_id, chat_id, created_at,
                         match_id, challenge_id)
SELECT id, user_id, amount, balance_after, reason, deal_id, chat_id, created_at, match_id,
       challenge_id
FROM ledger;
DROP TABLE ledger;
ALTER TABLE ledger_0013 RENAME TO ledger;
CREATE INDEX ledger_by_user ON ledger (user_id, id);
CREATE INDEX ledger_by_match ON ledger (match_id) WHERE match_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_challenge_fee ON ledger (challenge_id, user_id)
    WHERE challenge_id IS NOT NULL AND amount < 0;
CREATE UNIQUE INDEX ledger_challenge_payout ON ledger (challenge_id, user_id)
    WHERE challenge_id IS NOT NULL AND amount > 0;
-- one fee (amount < 0) and one payout (amount > 0: prize or refund) per member and tournament
CREATE UNIQUE INDEX ledger_tournament_fee ON ledger (tournament_id, user_id)
    WHERE tournament_id IS NOT NULL AND amount < 0;
CREATE UNIQUE INDEX ledger_tournament_payout ON ledger (tournament_id, user_id)
    WHERE tournament_id IS NOT NULL AND amount > 0;
