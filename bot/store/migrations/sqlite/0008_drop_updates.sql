-- 0008: drop 0004's `updates` (Telegram update ids taken by a worker): 0007's `inbox` stores the
-- whole update before its 200 answer and deduplicates by `update_id` (issue 16); nothing reads
-- `updates` any more.

DROP INDEX IF EXISTS updates_by_time;
DROP TABLE IF EXISTS updates;
