-- 0003: what a running deal holds back (issue 14, RULES.md §8), as sqlite/0003_deal_holds.sql.

CREATE TABLE deal_holds (
    deal_id          BIGINT NOT NULL REFERENCES deals (id),
    seat             BIGINT NOT NULL,
    user_id          BIGINT NOT NULL REFERENCES players (user_id),
    chat_id          BIGINT NOT NULL,
    balance_at_start BIGINT NOT NULL CHECK (balance_at_start >= 0),
    created_at       BIGINT NOT NULL,
    PRIMARY KEY (deal_id, seat)
);
CREATE INDEX deal_holds_by_user ON deal_holds (user_id);

-- Deals running at the upgrade hold what their players have now.
INSERT INTO deal_holds (deal_id, seat, user_id, chat_id, balance_at_start, created_at)
SELECT d.id, s.n - 1, p.user_id, d.chat_id, p.balance, d.created_at
FROM deals d
CROSS JOIN LATERAL jsonb_array_elements(d.seats::jsonb) WITH ORDINALITY AS s (value, n)
JOIN players p ON p.user_id = (s.value ->> 'user_id')::bigint
WHERE d.status = 'running';
