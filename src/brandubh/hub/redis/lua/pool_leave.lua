-- Leave quick pairing. KEYS[1] pools hash  KEYS[2] the pool zset the caller read the
-- player waits in.  ARGV[1] player  ARGV[2] connection id ('' for any)  ARGV[3] the terms
-- ("ruleset|move time") of KEYS[2].
-- Returns 1 if the player was waiting (and is no longer), 0 if not, -1 if they now wait
-- in another pool (nothing written: the caller reads again).
local where = redis.call('HGET', KEYS[1], ARGV[1])
if not where then return 0 end
local terms, conn = string.match(where, '^([^|]+|[^|]+)|[^|]+|[^|]+|(.*)$')
if ARGV[2] ~= '' and conn ~= ARGV[2] then return 0 end
if terms ~= ARGV[3] then return -1 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
