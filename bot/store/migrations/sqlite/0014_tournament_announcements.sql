-- 0014: a tournament's final ranking is posted once, as a duplicate challenge's (0010): a worker
-- that died after the payout and before the post left the group without it, and a retry could
-- post it twice. `announced`: 0 due, 1 posted, 2 claimed by a poster until `announce_until`
-- (ms); a claim that ran out (its poster died during the send) may be taken again. The
-- tournaments that ended before count as posted.

ALTER TABLE tournaments ADD COLUMN announced INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournaments ADD COLUMN announce_until INTEGER;
UPDATE tournaments SET announced = 1 WHERE status IN ('finished', 'cancelled');
