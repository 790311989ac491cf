-- 0002: deals won on the leaderboards (issue 5), as sqlite/0002_leaderboard_wins.sql.

ALTER TABLE group_players ADD COLUMN wins BIGINT NOT NULL DEFAULT 0;

UPDATE group_players SET wins = w.wins
FROM (
    SELECT chat_id, user_id, SUM(won) AS wins FROM deal_seats
    WHERE user_id IS NOT NULL GROUP BY chat_id, user_id
) AS w
WHERE group_players.chat_id = w.chat_id AND group_players.user_id = w.user_id;

DROP INDEX deal_seats_by_chat;
CREATE INDEX deal_seats_by_chat ON deal_seats (chat_id, finished_at, user_id, beans, won)
    WHERE user_id IS NOT NULL;
DROP INDEX deal_seats_by_time;
CREATE INDEX deal_seats_by_time ON deal_seats (finished_at, user_id, beans, won)
    WHERE user_id IS NOT NULL;
