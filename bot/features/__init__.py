"""The bot's features: each a competition or a part of the game a player meets by name."""
