-- 0012: as sqlite/0012_player_hands.sql (where a player wants their hands shown).

ALTER TABLE players ADD COLUMN hands TEXT;
