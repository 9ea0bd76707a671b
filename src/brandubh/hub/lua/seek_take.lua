-- Take a seek off the lobby: cancelled by its owner, or accepted by someone else.
-- Accepting also takes every live seek and quick-pairing entry of both players, so
-- nobody lands in two games at once.
-- KEYS[1] seeks zset  KEYS[2] the seek hash  KEYS[3] pools hash
-- ARGV[1] seek id  ARGV[2] player id  ARGV[3] 'cancel' or 'accept'  ARGV[4] channel
-- ARGV[5] key prefix of the lobby ("bd:{lobby}:")
-- Returns {'ok', field, value, ...} | {'err', code}
local seek = redis.call('HGETALL', KEYS[2])
if #seek == 0 then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return {'err', 'seek_gone'}
end
local f = {}
for i = 1, #seek, 2 do f[seek[i]] = seek[i + 1] end
if ARGV[3] == 'cancel' and f.player ~= ARGV[2] then return {'err', 'not_yours'} end
if ARGV[3] == 'accept' and f.player == ARGV[2] then return {'err', 'own_seek'} end

local function take(id)
  local key = ARGV[5] .. 'seek:' .. id
  local owner = redis.call('HGET', key, 'player')
  redis.call('DEL', key)
  redis.call('ZREM', KEYS[1], id)
  if owner then redis.call('SREM', ARGV[5] .. 'owned:' .. owner, id) end
  redis.call('PUBLISH', ARGV[4], cmsgpack.pack({t = 'seek_removed', seek = id}))
end

take(ARGV[1])
if ARGV[3] == 'accept' then
  for _, pid in ipairs({f.player, ARGV[2]}) do
    for _, id in ipairs(redis.call('SMEMBERS', ARGV[5] .. 'owned:' .. pid)) do
      if redis.call('HGET', ARGV[5] .. 'seek:' .. id, 'live') == '1' then take(id) end
    end
    local where = redis.call('HGET', KEYS[3], pid)
    if where then
      local ruleset, minutes = string.match(where, '^([^|]+)|([^|]+)|')
      redis.call('ZREM', ARGV[5] .. 'pool:' .. ruleset .. ':' .. minutes, pid)
      redis.call('HDEL', KEYS[3], pid)
    end
  end
end
local out = {'ok'}
for i = 1, #seek do out[#out + 1] = seek[i] end
return out
