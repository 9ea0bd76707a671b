-- Add, refresh or remove a spectator connection and publish the new count (a notice on
-- the game's sharded channel: "0 <frame>"), at most once per ARGV[7] ms per game (every
-- hub shares KEYS[2]): spectators churning cannot flood the players with counts. A change
-- not published is published by its hub a little later.
-- Entries expire so that a hub that dies does not leave its spectators counted.
-- KEYS[1] watcher zset   KEYS[2] the game's last-publish marker
-- KEYS[3] the game's set of hubs (publish.lua)
-- ARGV[1] connection id   ARGV[2] 'add', 'del' or 'get'   ARGV[3] ttl (ms)
-- ARGV[4] channel stem    ARGV[5] game id          ARGV[6] '1' to publish the count
-- ARGV[7] least interval between two published counts (ms)
-- Returns {count, 1 if published (or not asked to), 0 if held back}.
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
  if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', tonumber(ARGV[7])) then
    return {count, 0}
  end
  publish(KEYS[3], ARGV[4], '0 ' .. cmsgpack.pack({t = 'watchers', game = ARGV[5], count = count}), '', now)
end
return {count, 1}
