-- 0009: who holds each @username, for /give @user and /audit @user (QA5 defect 7). Before, the
-- bot kept this in memory only: after a restart, and on webhook workers that did not receive a
-- user's updates, @username was unknown until that user wrote again.
-- `username`: lower-cased, without the @ (Telegram usernames are case-insensitive); one owner,
-- the latest seen (a username that moved to another user is theirs now); one row per user at
-- most (a changed username replaces the old one, a removed one deletes it). `name`: the
-- display name when last seen (a target who never played is created with it).

CREATE TABLE usernames (
    username   TEXT    PRIMARY KEY,
    user_id    INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE UNIQUE INDEX usernames_by_user ON usernames (user_id);
