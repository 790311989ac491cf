-- 0003: what a running deal holds back (issue 14, RULES.md §8). One row per human seat of a
-- running deal, written in the transaction that creates the deal and deleted in the one that
-- settles or cancels it: the store answers "is this player seated in a running deal, and what
-- did they hold when it started" without asking the handlers. While a row exists the player
-- cannot /give; settlement caps the seat's loss at `balance_at_start`.

CREATE TABLE deal_holds (
    deal_id          INTEGER NOT NULL REFERENCES deals (id),
    seat             INTEGER NOT NULL,
    user_id          INTEGER NOT NULL REFERENCES players (user_id),
    chat_id          INTEGER NOT NULL,
    balance_at_start INTEGER NOT NULL CHECK (balance_at_start >= 0),
    created_at       INTEGER NOT NULL,
    PRIMARY KEY (deal_id, seat)
) WITHOUT ROWID;
CREATE INDEX deal_holds_by_user ON deal_holds (user_id);

-- Deals running at the upgrade hold what their players have now.
INSERT INTO deal_holds (deal_id, seat, user_id, chat_id, balance_at_start, created_at)
SELECT d.id, s.key, p.user_id, d.chat_id, p.balance, d.created_at
FROM deals d, json_each(d.seats) s JOIN players p ON p.user_id = s.value ->> 'user_id'
WHERE d.status = 'running';
