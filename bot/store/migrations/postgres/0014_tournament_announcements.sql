-- 0014: as sqlite/0014_tournament_announcements.sql (a tournament's final ranking posted once).

ALTER TABLE tournaments ADD COLUMN announced INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournaments ADD COLUMN announce_until BIGINT;
UPDATE tournaments SET announced = 1 WHERE status IN ('finished', 'cancelled');
