-- Leave quick pairing. KEYS[1] pools hash  ARGV[1] player  ARGV[2] key prefix of the lobby
-- ARGV[3] connection id ('' for any). Returns 1 if the player was waiting.
local where = redis.call('HGET', KEYS[1], ARGV[1])
if not where then return 0 end
local ruleset, minutes, conn = string.match(where, '^([^|]+)|([^|]+)|[^|]+|[^|]+|(.*)$')
if ARGV[3] ~= '' and conn ~= ARGV[3] then return 0 end
redis.call('ZREM', ARGV[2] .. 'pool:' .. ruleset .. ':' .. minutes, ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
