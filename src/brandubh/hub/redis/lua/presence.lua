-- Add, refresh or remove a player's connection to a game they play, and publish who is
-- connected when that changes. Entries expire so that a hub that dies does not leave its
-- players shown as connected for longer than the ttl. When a player's last socket goes,
-- the time is kept as theirs "gone since" (an opponent may claim the game after a grace:
-- changes.claim, commit.lua); a socket of theirs coming back clears it.
-- Each change takes a version (field '#v' of the gone hash: never below the Redis clock in
-- microseconds, so it still grows after the hash expired): a hub reads presence on its
-- command connection and hears changes on pub/sub, two paths with no order between them,
-- and a socket is sent a presence only if it is no older than the last it was sent.
-- KEYS[1] presence zset: "<connection id>|<player id>" -> expiry (ms, Redis clock)
-- KEYS[2] the game's set of hubs (publish.lua)
-- KEYS[3] gone hash: player id -> when their last socket went (ms, Redis clock)
-- KEYS[4] the game's hash: once the game has ended (or is gone) nobody can claim it, and
-- the gone hash, deleted by the final change (commit.lua), is kept only as long as an entry
-- (ARGV[3]), not ARGV[7]
-- ARGV[1] member   ARGV[2] 'add', 'del' or 'get'   ARGV[3] ttl (ms)
-- ARGV[4] channel stem  ARGV[5] game id                 ARGV[6] '1' to publish a change
-- ARGV[7] how long a gone time is kept (ms) while the game is played
-- Returns {the ids of the players connected now, {player id, gone since, ...}, version}.
-- Publishes "p <version> <frame>" on a change.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)

-- The ids of the players connected, in order, and each one's latest expiry.
local function online()
  local z, last, out = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'), {}, {}
  for i = 1, #z, 2 do
    local pid, at = string.match(z[i], '^[^|]*|(.*)$'), tonumber(z[i + 1])
    if pid then
      if not last[pid] then out[#out + 1] = pid end
      if not last[pid] or at > last[pid] then last[pid] = at end
    end
  end
  table.sort(out)
  return out, last
end

local keep = tonumber(ARGV[7])
local status = redis.call('HGET', KEYS[4], 'status')
if status == 'ended' or not status then keep = tonumber(ARGV[3]) end

local was, expiry = online()
local before = table.concat(was, ' ')
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local player = string.match(ARGV[1], '^[^|]*|(.*)$')
if ARGV[2] == 'add' then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
  redis.call('HDEL', KEYS[3], player)
elseif ARGV[2] == 'del' then
  redis.call('ZREM', KEYS[1], ARGV[1])
end
local after = online()
local here = {}
for _, pid in ipairs(after) do here[pid] = true end
for _, pid in ipairs(was) do
  if not here[pid] then
    -- Gone: now if their last socket closed, else when their last entry ran out (a hub
    -- that died): never earlier than they could still have been there.
    local since = now
    if ARGV[2] ~= 'del' or pid ~= player then since = math.min(now, expiry[pid]) end
    redis.call('HSET', KEYS[3], pid, since)
    redis.call('PEXPIRE', KEYS[3], keep)
  end
end
local version = tonumber(redis.call('HGET', KEYS[3], '#v') or '0')
local changed = table.concat(after, ' ') ~= before
if changed then
  version = math.max(t[1] * 1000000 + t[2], version + 1)
  redis.call('HSET', KEYS[3], '#v', string.format('%.0f', version))
  redis.call('PEXPIRE', KEYS[3], keep)
end
local gone = {}
local flat = redis.call('HGETALL', KEYS[3])
for i = 1, #flat, 2 do
  if flat[i] ~= '#v' then
    gone[#gone + 1] = flat[i]
    gone[#gone + 1] = flat[i + 1]
  end
end
if ARGV[6] == '1' and changed then
  local frame = {t = 'presence', game = ARGV[5], online = after}
  if #gone > 0 then
    frame.gone = {}
    for i = 1, #gone, 2 do frame.gone[gone[i]] = tonumber(gone[i + 1]) end
  end
  publish(KEYS[2], ARGV[4], 'p ' .. string.format('%.0f', version) .. ' ' .. cmsgpack.pack(frame), '', now)
end
return {after, gone, string.format('%.0f', version)}
