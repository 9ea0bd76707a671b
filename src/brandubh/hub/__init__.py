"""The hub: live games in Redis, pushed over websockets to players and spectators."""
