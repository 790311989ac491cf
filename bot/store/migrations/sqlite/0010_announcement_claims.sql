-- 0010: a claim on posting a challenge's final ranking runs out (QA: a kill during the post
-- left the seed never revealed). `announced` 2 (claimed) holds until `announce_until` (ms); a
-- claim that ran out (its poster died before the ranking was recorded as sent) may be taken
-- again, and the ranking is posted then: at least once, as a deal's result.

ALTER TABLE challenges ADD COLUMN announce_until INTEGER;
