"""Computer players and the coach (strategy code; depends on games.rules only)."""
