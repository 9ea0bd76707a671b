-- Quick pairing: join a pool, or be paired at once with the closest-rated compatible
-- player already waiting. Two players are compatible when their rating difference is
-- within both their windows and neither blocks the other; a window widens the longer
-- one waits.
-- Pairing also takes both players' live seeks, so nobody lands in two games at once.
-- Every key is declared (a Redis Cluster routes a script by its keys):
-- KEYS[1] the pool zset (player -> rating)   KEYS[2] pools hash (player -> "where")
-- KEYS[3] seeks zset   KEYS[4] seek data hash   KEYS[5] live seeks' expiry zset
-- KEYS[6] owned hash (player -> 'id id ...')
-- KEYS[7] avoid hash (player -> ' id id ... ': whom they block or are blocked by)
-- ARGV[1] player ('' for a sweep: pair whoever in the pool now fits)
-- ARGV[2] rating  ARGV[3] ruleset  ARGV[4] move time  ARGV[5] connection id
-- ARGV[6] base window  ARGV[7] widening per second  ARGV[8] widest window
-- ARGV[9] channel
-- Returns a flat list of pairs {a, b, a, b, ...} (empty: nobody paired)
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local base, per_s, widest = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])

local function window(pid)
  local where = redis.call('HGET', KEYS[2], pid)
  if not where then return base end
  local joined = tonumber(string.match(where, '^[^|]+|[^|]+|[^|]+|([^|]+)|'))
  return math.min(widest, base + per_s * (now - joined) / 1000)
end

-- Whether either of two players blocks the other: never paired.
local function avoids(a, b)
  for _, p in ipairs({{a, b}, {b, a}}) do
    local list = redis.call('HGET', KEYS[7], p[1])
    if list and string.find(list, ' ' .. p[2] .. ' ', 1, true) then return true end
  end
  return false
end

local function best_for(pid, rating, skip)
  local mine = window(pid)
  local found, gap = nil, nil
  local near = redis.call('ZRANGE', KEYS[1], rating - widest, rating + widest, 'BYSCORE',
                          'WITHSCORES')
  for i = 1, #near, 2 do
    local other, r = near[i], tonumber(near[i + 1])
    if other ~= pid and not skip[other] and not avoids(pid, other) then
      local d = math.abs(r - rating)
      if d <= mine and d <= window(other) and (gap == nil or d < gap) then
        found, gap = other, d
      end
    end
  end
  return found
end

local pairs_out = {}
local function pair(a, b)
  redis.call('ZREM', KEYS[1], a, b)
  redis.call('HDEL', KEYS[2], a, b)
  for _, pid in ipairs({a, b}) do
    local kept = {}
    for id in string.gmatch(redis.call('HGET', KEYS[6], pid) or '', '%S+') do
      local raw = redis.call('HGET', KEYS[4], id)
      if raw and cmsgpack.unpack(raw).live == '1' then
        redis.call('HDEL', KEYS[4], id)
        redis.call('ZREM', KEYS[3], id)
        redis.call('ZREM', KEYS[5], id)
        redis.call('PUBLISH', ARGV[9], cmsgpack.pack({t = 'seek_removed', seek = id}))
      elseif raw then
        kept[#kept + 1] = id
      end
    end
    if #kept == 0 then redis.call('HDEL', KEYS[6], pid)
    else redis.call('HSET', KEYS[6], pid, table.concat(kept, ' ')) end
  end
  pairs_out[#pairs_out + 1] = a
  pairs_out[#pairs_out + 1] = b
end

if ARGV[1] ~= '' then
  local pid, rating = ARGV[1], tonumber(ARGV[2])
  if redis.call('HEXISTS', KEYS[2], pid) == 1 then
    local where = redis.call('HGET', KEYS[2], pid)
    local r, m = string.match(where, '^([^|]+)|([^|]+)|')
    if r ~= ARGV[3] or m ~= ARGV[4] then return {'err', 'already_waiting'} end
  else
    redis.call('HSET', KEYS[2], pid,
      ARGV[3] .. '|' .. ARGV[4] .. '|' .. ARGV[2] .. '|' .. now .. '|' .. ARGV[5])
  end
  local other = best_for(pid, rating, {})
  if other then
    pair(other, pid)
  else
    redis.call('ZADD', KEYS[1], rating, pid)
  end
  return pairs_out
end

-- A sweep: pair greedily in rating order whoever now fits.
local taken = {}
local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #all, 2 do
  local pid = all[i]
  if not taken[pid] then
    local other = best_for(pid, tonumber(all[i + 1]), taken)
    if other then
      taken[pid], taken[other] = true, true
      pair(pid, other)
    end
  end
end
return pairs_out
