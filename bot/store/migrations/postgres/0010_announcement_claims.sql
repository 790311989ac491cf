-- 0010: as sqlite/0010_announcement_claims.sql (a claim on posting a final ranking runs out).

ALTER TABLE challenges ADD COLUMN announce_until BIGINT;
