-- 0006: the duplicate challenge (复式挑战, issue 12, RULES.md §10). A challenge row holds its
-- options, the seed that fixes its deals (secret until it closes) and the SHA-256 published
-- when it opened, its window and its status. An entry is one row per member; the entry fee is
-- a ledger row with reason 'challenge' and the challenge's id in the same transaction. A play is
-- one member's finished deal with the points from the member's seat, written in the transaction
-- that ends the deal (the deal itself moves no beans and is stored cancelled, as a practice
-- deal). The payout is written with the status change to 'closed', once: a unique key allows one
-- fee row and one prize (or refund) row per member and challenge.

CREATE TABLE challenges (
    id          INTEGER PRIMARY KEY,
    chat_id     INTEGER NOT NULL,
    thread_id   INTEGER,
    opener_id   INTEGER NOT NULL,
    options     TEXT    NOT NULL,  -- bot.game.challenge.ChallengeOptions JSON
    seed        TEXT    NOT NULL,  -- lowercase hex; revealed when closed
    seed_hash   TEXT    NOT NULL,  -- SHA-256 of the seed's text, published at once
    entry_fee   INTEGER NOT NULL CHECK (entry_fee >= 0),
    pool        INTEGER NOT NULL DEFAULT 0 CHECK (pool >= 0),
    status      TEXT    NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    announced   INTEGER NOT NULL DEFAULT 0,  -- the final ranking was posted in the group
    message_id  INTEGER,           -- the group's challenge message (board, Enter button)
    daily       TEXT,              -- the group's day (YYYY-MM-DD) of a daily challenge
    result      TEXT,              -- final board and payout JSON, once closed
    created_at  INTEGER NOT NULL,
    closes_at   INTEGER NOT NULL,
    closed_at   INTEGER
);
CREATE UNIQUE INDEX challenges_open ON challenges (chat_id) WHERE status = 'open';
CREATE UNIQUE INDEX challenges_daily ON challenges (chat_id, daily) WHERE daily IS NOT NULL;

CREATE TABLE challenge_entries (
    challenge_id INTEGER NOT NULL REFERENCES challenges (id),
    user_id      INTEGER NOT NULL REFERENCES players (user_id),
    name         TEXT    NOT NULL,
    entered_at   INTEGER NOT NULL,
    PRIMARY KEY (challenge_id, user_id)
) WITHOUT ROWID;

CREATE TABLE challenge_plays (
    challenge_id INTEGER NOT NULL REFERENCES challenges (id),
    user_id      INTEGER NOT NULL REFERENCES players (user_id),
    deal         INTEGER NOT NULL CHECK (deal >= 1),
    deal_id      INTEGER REFERENCES deals (id),
    points       INTEGER NOT NULL,
    landlord_won INTEGER NOT NULL,
    finished_at  INTEGER NOT NULL,
    PRIMARY KEY (challenge_id, user_id, deal)
) WITHOUT ROWID;

-- The ledger learns the reason 'challenge' and the challenge a row belongs to.
CREATE TABLE ledger_0006 (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES players (user_id),
    amount        INTEGER NOT NULL CHECK (amount <> 0),
    balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
    reason        TEXT    NOT NULL
                          CHECK (reason IN ('grant', 'daily', 'relief', 'deal', 'give', 'match',
                                            'challenge')),
    deal_id       INTEGER REFERENCES deals (id),
    chat_id       INTEGER,
    created_at    INTEGER NOT NULL,
    match_id      INTEGER REFERENCES matches (id),
    challenge_id  INTEGER REFERENCES challenges (id)
);
INSERT INTO ledger_0006 (id, user_id, amount, balance_after, reason, deal_id, chat_id, created_at,
                         match_id)
SELECT id, user_id, amount, balance_after, reason, deal_id, chat_id, created_at, match_id
FROM ledger;
DROP TABLE ledger;
ALTER TABLE ledger_0006 RENAME TO ledger;
CREATE INDEX ledger_by_user ON ledger (user_id, id);
CREATE INDEX ledger_by_match ON ledger (match_id) WHERE match_id IS NOT NULL;
-- one fee (amount < 0) and one payout (amount > 0) per member and challenge, ever
CREATE UNIQUE INDEX ledger_challenge_fee ON ledger (challenge_id, user_id)
    WHERE challenge_id IS NOT NULL AND amount < 0;
CREATE UNIQUE INDEX ledger_challenge_payout ON ledger (challenge_id, user_id)
    WHERE challenge_id IS NOT NULL AND amount > 0;
