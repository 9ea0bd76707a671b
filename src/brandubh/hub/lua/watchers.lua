-- Add, refresh or remove a spectator connection and publish the new count (a notice on
-- the game's sharded channel: "0 <frame>").
-- Entries expire so that a hub that dies does not leave its spectators counted.
-- KEYS[1] watcher zset
-- ARGV[1] connection id   ARGV[2] 'add', 'del' or 'get'   ARGV[3] ttl (ms)
-- ARGV[4] channel         ARGV[5] game id          ARGV[6] '1' to publish the count
-- Returns the count.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[2] == 'add' then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
elseif ARGV[2] == 'del' then
  redis.call('ZREM', KEYS[1], ARGV[1])
end
local count = redis.call('ZCARD', KEYS[1])
if ARGV[6] == '1' then
  redis.call('SPUBLISH', ARGV[4], '0 ' .. cmsgpack.pack({t = 'watchers', game = ARGV[5], count = count}))
end
return count
