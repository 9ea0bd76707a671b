-- A hub enters, or stays in, a game's set of hubs for ARGV[2] ms more (fanout.py); the
-- entries whose time ran out leave it (their hubs died, or stalled that long). The set
-- itself expires with its latest entry, so one that no hub renews any more goes.
-- KEYS[1] the game's set of hubs (sorted set: hub id -> until when, ms, Redis clock)
-- ARGV[1] the hub's id   ARGV[2] how long the entry holds (ms)
-- Returns 1 if the hub was not in it (what was published meanwhile did not reach it), else 0.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local added = redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return added
