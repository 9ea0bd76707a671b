-- One request of a personal API token on its own (hub/tokens/service.py's bearer, and a
-- Bot API move on Redis Cluster): lua/token_check.lua's check, put before this by
-- scripts.py. A Bot API move on one Redis has it done by lua/commit.lua instead.
-- KEYS[1] the token's window   KEYS[2] its revoked mark   KEYS[3] its account's bot mark
-- ARGV[1] window (ms)   ARGV[2] nonce   ARGV[3] most requests a window (0: no limit)
-- Returns token_check's reply: {-1, 0, bot} revoked | {1, ms until the window has room, bot}
-- | {0, 0, bot} counted
return token_check(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]))
