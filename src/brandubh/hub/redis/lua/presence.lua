-- Add, refresh or remove a player's connection to a game they play, and publish who is
-- connected when that changes. Entries expire so that a hub that dies does not leave its
-- players shown as connected for longer than the ttl.
-- KEYS[1] presence zset: "<connection id>|<player id>" -> expiry (ms, Redis clock)
-- KEYS[2] the game's set of hubs (publish.lua)
-- ARGV[1] member   ARGV[2] 'add', 'del' or 'get'   ARGV[3] ttl (ms)
-- ARGV[4] channel stem  ARGV[5] game id                 ARGV[6] '1' to publish a change
-- Returns the ids of the players connected now.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)

local function online()
  local seen, out = {}, {}
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local pid = string.match(m, '^[^|]*|(.*)$')
    if pid and not seen[pid] then
      seen[pid] = true
      out[#out + 1] = pid
    end
  end
  table.sort(out)
  return out
end

local before = table.concat(online(), ' ')
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[2] == 'add' then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
elseif ARGV[2] == 'del' then
  redis.call('ZREM', KEYS[1], ARGV[1])
end
local after = online()
if ARGV[6] == '1' and table.concat(after, ' ') ~= before then
  publish(KEYS[2], ARGV[4], '0 ' .. cmsgpack.pack({t = 'presence', game = ARGV[5], online = after}), '', now)
end
return after
