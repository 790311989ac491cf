-- 0005: competitions at one table (issue 11, RULES.md §10): fixed-deal matches and knock-outs.
-- A match row holds its format, options, seats, the competition state (the deals played with
-- their points and chips, as JSON, updated in the transaction that settles each deal) and its
-- status. Entry fees and prizes are ledger rows with reason 'match' and the match's id: the
-- fees are written with the match row, the payout (or the refunds of a cancelled match) with the
-- status change, so each happens exactly once and a match's ledger rows sum to zero once it is
-- over. Deals of a match move no beans (the room's stake does not apply inside a match).

CREATE TABLE matches (
    id          INTEGER PRIMARY KEY,
    table_key   TEXT    NOT NULL,
    chat_id     INTEGER NOT NULL,
    format      TEXT    NOT NULL CHECK (format IN ('fixed', 'knockout')),
    options     TEXT    NOT NULL,  -- MatchOptions JSON
    seats       TEXT    NOT NULL,  -- [{"user_id": int|null, "name": str, "is_bot": bool}, ...]
    entry_fee   INTEGER NOT NULL CHECK (entry_fee >= 0),
    pool        INTEGER NOT NULL CHECK (pool >= 0),
    status      TEXT    NOT NULL DEFAULT 'running'
                        CHECK (status IN ('running', 'finished', 'cancelled')),
    state       TEXT    NOT NULL,  -- the competition state JSON (bot.game.match.MatchState)
    result      TEXT,              -- final standings and prizes JSON, once finished
    created_at  INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE INDEX matches_running ON matches (id) WHERE status = 'running';

-- One row per human seat of a finished match: /me's matches played and won, /top matches.
CREATE TABLE match_places (
    match_id    INTEGER NOT NULL REFERENCES matches (id),
    seat        INTEGER NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES players (user_id),
    chat_id     INTEGER NOT NULL,
    place       INTEGER NOT NULL,  -- in the match's standings (1 = champion, 冠军)
    won         INTEGER NOT NULL,  -- champion and did not forfeit
    prize       INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;
CREATE INDEX match_places_by_chat ON match_places (chat_id, finished_at, user_id, won);
CREATE INDEX match_places_by_user ON match_places (user_id, won);

-- A deal played inside a match.
ALTER TABLE deals ADD COLUMN match_id INTEGER REFERENCES matches (id);

-- The ledger learns the reason 'match' and the match a row belongs to (a CHECK constraint can
-- only change by rebuilding the table; nothing references the ledger).
CREATE TABLE ledger_0005 (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES players (user_id),
    amount        INTEGER NOT NULL CHECK (amount <> 0),
    balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
    reason        TEXT    NOT NULL
                          CHECK (reason IN ('grant', 'daily', 'relief', 'deal', 'give', 'match')),
    deal_id       INTEGER REFERENCES deals (id),
    chat_id       INTEGER,
    created_at    INTEGER NOT NULL,
    match_id      INTEGER REFERENCES matches (id)
);
INSERT INTO ledger_0005 (id, user_id, amount, balance_after, reason, deal_id, chat_id, created_at)
SELECT id, user_id, amount, balance_after, reason, deal_id, chat_id, created_at FROM ledger;
DROP TABLE ledger;
ALTER TABLE ledger_0005 RENAME TO ledger;
CREATE INDEX ledger_by_user ON ledger (user_id, id);
CREATE INDEX ledger_by_match ON ledger (match_id) WHERE match_id IS NOT NULL;
