-- 0008: as sqlite/0008_drop_updates.sql (0007's `inbox` replaced 0004's `updates`).

DROP INDEX IF EXISTS updates_by_time;
DROP TABLE IF EXISTS updates;
