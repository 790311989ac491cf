-- 0009: who holds each @username (QA5 defect 7), as sqlite/0009_usernames.sql.

CREATE TABLE usernames (
    username   TEXT   PRIMARY KEY,
    user_id    BIGINT NOT NULL,
    name       TEXT   NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX usernames_by_user ON usernames (user_id);
