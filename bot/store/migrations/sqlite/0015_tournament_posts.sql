-- 0015: a tournament's group messages of a step (a stage's lead and draw, a tie's extra deals,
-- the cancel) are stored with the step and posted at least once: a worker killed after the step
-- was stored and before the message went out left the group without it. `posts`: a JSON list
-- of the messages still due, each {"key", "text", "until"} (`until`: ms a poster's claim holds,
-- 0 none); a message is taken off the list once it was sent.

ALTER TABLE tournaments ADD COLUMN posts TEXT NOT NULL DEFAULT '[]';
