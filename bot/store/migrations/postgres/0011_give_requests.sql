-- 0011: a /give is done once per command message. `request` names the message that asked for it
-- (chat id and message id); an update processed again (a polling bot or a worker killed between
-- the gift's commit and marking its update done) finds its gift and moves no beans twice.
-- Gifts made before have none.
ALTER TABLE gives ADD COLUMN request TEXT;
CREATE UNIQUE INDEX gives_by_request ON gives (request);
