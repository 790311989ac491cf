-- 0012: where a player wants their hands shown, whatever the group's `hands` setting says:
-- 'group' (an ephemeral message in the group only they see), 'private' (their private chat
-- with the bot) or NULL (the group's setting).

ALTER TABLE players ADD COLUMN hands TEXT;
