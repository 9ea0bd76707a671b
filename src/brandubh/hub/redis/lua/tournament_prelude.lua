-- Not a script of its own: scripts.py puts this before each tournament script
-- (lua/tournament_*.lua, Scripts.tournament: one per change). Each change is atomic and
-- checked against the state it changes, so that two hubs doing the same step (a pairing
-- wave, a round, the start, the end) change it once: the second finds the check failed
-- and changes nothing (hub/tournaments/).
-- KEYS[1] the tournament's hash   KEYS[2] its players   KEYS[3] its games (or matches)
-- KEYS[4] its log
-- A script returns {status, ...}: "ok" and what it says, or "err" and a refusal's code
-- ("not_found", "tournament_closed", "tournament_full", "not_joined"), or "race" (the
-- state moved on: read it again). Every check comes before the first write.
-- Records are msgpack (hub/tournaments/records.py reads them); one the previous version
-- wrote as JSON is read too. Each change that matters to the pairings appends the event
-- the hub built with the core (brandubh.tournaments.export), as it is, stamped with the
-- instant of the commit: the log is in commit order.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local hash, players, games, log = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

local function decode(raw)
  if string.sub(raw, 1, 1) == '{' then return cjson.decode(raw) end
  return cmsgpack.unpack(raw)
end

local function tournament()
  -- Its status and format (false, false when Redis has no such tournament).
  local found = redis.call('HMGET', hash, 'status', 'format')
  return found[1], found[2]
end

local function record(key, id)
  local raw = redis.call('HGET', key, id)
  if not raw then return nil end
  return decode(raw)
end

local function save(key, id, value)
  redis.call('HSET', key, id, cmsgpack.pack(value))
end

local function append(event)
  -- event: msgpack, the hub's; the entry is [now, event] (\146: an array of two)
  redis.call('RPUSH', log, '\146' .. cmsgpack.pack(now) .. event)
end

local function bump()
  redis.call('HINCRBY', hash, 'rev', 1)
end

local function playing()
  -- How many games (or matches) of the tournament are not over.
  local n = 0
  for _, raw in ipairs(redis.call('HVALS', games)) do
    local g = decode(raw)
    if g.result == '' or g.done == 0 then n = n + 1 end
  end
  return n
end

local function free_are(given, keep)
  -- Whether the players who are ``keep(p)`` are exactly the ids ``given`` (msgpack list).
  local left = {}
  for _, id in ipairs(cmsgpack.unpack(given)) do left[id] = true end
  local all = redis.call('HGETALL', players)
  for i = 1, #all, 2 do
    if keep(decode(all[i + 1])) then
      if not left[all[i]] then return false end
      left[all[i]] = nil
    end
  end
  return next(left) == nil
end

