-- A new tournament taken against its creator's limit of tournaments not finished, in one
-- step (hub/tournaments/service.py): ten creations at once take at most the limit. Taken,
-- it is listed and falls due at its start. All these keys share {tourn}.
-- KEYS[1] the account's set (keys.tournaments_run)  KEYS[2] keys.tournaments()
-- KEYS[3] keys.tournament_events()
-- ARGV[1] the tournament  ARGV[2] the limit  ARGV[3] the set's lifetime (s)
-- ARGV[4] when it starts (ms)
-- Returns 1 (taken) or 0 (the account is at its limit).
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
redis.call('ZADD', KEYS[2], tonumber(ARGV[4]), ARGV[1])
redis.call('ZADD', KEYS[3], tonumber(ARGV[4]), ARGV[1])
return 1
