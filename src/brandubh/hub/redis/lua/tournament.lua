-- Every change of a tournament, each one atomic and checked against the state it changes,
-- so that two hubs doing the same step (a pairing wave, a round, the start, the end) change
-- it once: the second finds the check failed and changes nothing (hub/tournaments/).
-- Each change that matters to the pairings is appended to the log, in commit order.
-- KEYS[1] the tournament's hash   KEYS[2] its players   KEYS[3] its games (or matches)
-- KEYS[4] its log
-- ARGV[1] the operation, then its arguments (below). Returns {status, ...}: "ok" and what
-- the operation says, or "err" and a refusal's code ("not_found", "tournament_closed",
-- "tournament_full", "not_joined"), or "race" (the state moved on: read it again).
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local op = ARGV[1]
local hash, players, games, log = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

local function log_entry(entry)
  redis.call('RPUSH', log, cjson.encode(entry))
end

local function bump()
  redis.call('HINCRBY', hash, 'rev', 1)
end

if op == 'create' then
  -- ARGV[2..] the hash's fields and values
  if redis.call('EXISTS', hash) == 1 then return {'race'} end
  redis.call('HSET', hash, unpack(ARGV, 2))
  return {'ok'}
end

local status = redis.call('HGET', hash, 'status')
if not status then return {'err', 'not_found'} end
local format = redis.call('HGET', hash, 'format')

local function player(id)
  local raw = redis.call('HGET', players, id)
  if not raw then return nil end
  return cjson.decode(raw)
end

local function save_player(id, p)
  redis.call('HSET', players, id, cjson.encode(p))
end

if op == 'join' then
  -- ARGV[2] player id  ARGV[3] name  ARGV[4] rating
  local id = ARGV[2]
  local p = player(id)
  if status == 'finished' or status == 'finishing' then return {'err', 'tournament_closed'} end
  if format ~= 'arena' and status ~= 'upcoming' then return {'err', 'tournament_closed'} end
  if p and (p.state == 'joined' or p.state == 'paused') then return {'ok', 'already'} end
  local max = tonumber(redis.call('HGET', hash, 'max_players') or '0') or 0
  if max > 0 then
    local count = 0
    for _, raw in ipairs(redis.call('HVALS', players)) do
      if cjson.decode(raw).state ~= 'withdrawn' then count = count + 1 end
    end
    if count >= max then return {'err', 'tournament_full'} end
  end
  if p then
    p.state = 'joined'
    p.free = now
  else
    local n = redis.call('HLEN', players) + 1
    p = {name = ARGV[3], rating = tonumber(ARGV[4]), state = 'joined', game = '', free = now, n = n}
  end
  save_player(id, p)
  log_entry({t = 'join', at = now, player = id, rating = p.rating})
  bump()
  return {'ok', 'joined'}
end

if op == 'withdraw' or op == 'pause' or op == 'resume' then
  -- ARGV[2] player id
  local id = ARGV[2]
  local p = player(id)
  if status == 'finished' then return {'err', 'tournament_closed'} end
  if not p or p.state == 'withdrawn' then return {'err', 'not_joined'} end
  local want = op == 'withdraw' and 'withdrawn' or op == 'pause' and 'paused' or 'joined'
  if p.state == want then return {'ok', p.game} end
  if op == 'resume' and p.state ~= 'paused' then return {'ok', p.game} end
  if op == 'pause' and format ~= 'arena' then return {'err', 'tournament_closed'} end
  p.state = want
  p.free = now
  save_player(id, p)
  log_entry({t = op, at = now, player = id})
  bump()
  return {'ok', p.game}
end

if op == 'start' then
  -- A round robin or Swiss logs its players at the start, with their ratings, and keeps
  -- them in its hash (the roster: its standings' players).
  if status ~= 'upcoming' then return {'race'} end
  redis.call('HSET', hash, 'status', 'running', 'started', now)
  if format ~= 'arena' then
    local ratings = {}
    local all = redis.call('HGETALL', players)
    for i = 1, #all, 2 do
      local p = cjson.decode(all[i + 1])
      if p.state ~= 'withdrawn' then ratings[all[i]] = p.rating end
    end
    log_entry({t = 'start', at = now, ratings = ratings})
    redis.call('HSET', hash, 'roster', cjson.encode(ratings))
  end
  bump()
  return {'ok'}
end

if op == 'wave' then
  -- ARGV[2] the wave's number (the previous one + 1; the log counts pairings from 0)
  -- ARGV[3] the free players the pairer was given, JSON  ARGV[4..] attacker, defender of
  -- each pairing. Refused ("race") if the free players are others now: the pairing is a
  -- function of exactly them (the log's "ratings"), so that anyone can recompute it.
  if status ~= 'running' then return {'race'} end
  local waves = tonumber(redis.call('HGET', hash, 'waves') or '0')
  if waves + 1 ~= tonumber(ARGV[2]) then return {'race'} end
  local ends = tonumber(redis.call('HGET', hash, 'ends_at') or '0')
  if ends > 0 and now >= ends then return {'race'} end
  local given = {}
  for _, id in ipairs(cjson.decode(ARGV[3])) do given[id] = true end
  local ratings = {}
  local all = redis.call('HGETALL', players)
  for i = 1, #all, 2 do
    local p = cjson.decode(all[i + 1])
    if p.state == 'joined' and p.game == '' then
      if not given[all[i]] then return {'race'} end
      given[all[i]] = nil
      ratings[all[i]] = p.rating
    end
  end
  if next(given) ~= nil then return {'race'} end
  local tid = redis.call('HGET', hash, 'id')
  local ids, made = {'ok'}, {}
  for i = 4, #ARGV, 2 do
    local n = redis.call('HINCRBY', hash, 'seq', 1)
    local gid = tid .. '-' .. n
    redis.call('HSET', games, gid, cjson.encode({
      n = n, wave = waves + 1, attackers = ARGV[i], defenders = ARGV[i + 1], result = '',
      made = 0, at = now}))
    for _, side in ipairs({ARGV[i], ARGV[i + 1]}) do
      local p = player(side)
      p.game = gid
      save_player(side, p)
    end
    ids[#ids + 1] = gid
    made[#made + 1] = {id = gid, attackers = ARGV[i], defenders = ARGV[i + 1]}
  end
  redis.call('HSET', hash, 'waves', waves + 1)
  log_entry({t = 'pairing', at = now, n = waves, ratings = ratings, games = made})
  bump()
  return ids
end

if op == 'made' then
  -- ARGV[2] a game's (or match's) id: its game was created
  local raw = redis.call('HGET', games, ARGV[2])
  if not raw then return {'race'} end
  local g = cjson.decode(raw)
  if g.made ~= 1 then
    g.made = 1
    redis.call('HSET', games, ARGV[2], cjson.encode(g))
  end
  return {'ok'}
end

local function playing()
  -- How many games (or matches) of the tournament are not over.
  local n = 0
  for _, raw in ipairs(redis.call('HVALS', games)) do
    local g = cjson.decode(raw)
    if g.result == '' or g.done == 0 then n = n + 1 end
  end
  return n
end

if op == 'result' then
  -- ARGV[2] an arena game's id  ARGV[3] attackers | defenders | draw
  local raw = redis.call('HGET', games, ARGV[2])
  if not raw then return {'err', 'not_found'} end
  local g = cjson.decode(raw)
  if g.result ~= '' then return {'ok', 'dup', playing()} end
  g.result = ARGV[3]
  g.ended = now
  redis.call('HSET', games, ARGV[2], cjson.encode(g))
  for _, side in ipairs({g.attackers, g.defenders}) do
    local p = player(side)
    if p and p.game == ARGV[2] then
      p.game = ''
      p.free = now
      save_player(side, p)
    end
  end
  log_entry({t = 'result', at = now, game = ARGV[2], result = ARGV[3]})
  bump()
  return {'ok', 'recorded', playing()}
end

if op == 'round' then
  -- ARGV[2] the round's number (the previous one + 1)  ARGV[3] the bye ("" for none)
  -- ARGV[4..] a, b, decided ("1": a withdrawn player's, decided without a game) of each
  -- pairing
  if status ~= 'running' then return {'race'} end
  local r = tonumber(redis.call('HGET', hash, 'round') or '0')
  if r + 1 ~= tonumber(ARGV[2]) then return {'race'} end
  r = r + 1
  local tid = redis.call('HGET', hash, 'id')
  local ids, pairs = {'ok'}, {}
  local board = 0
  for i = 4, #ARGV, 3 do
    board = board + 1
    local mid = tid .. '-r' .. r .. '-' .. board
    local a, b, decided = ARGV[i], ARGV[i + 1], ARGV[i + 2] == '1'
    redis.call('HSET', games, mid, cjson.encode({
      round = r, a = a, b = b, games = {}, sides = {}, results = {},
      done = decided and 1 or 0, made = decided and 1 or 0, at = now}))
    if not decided then
      for _, side in ipairs({a, b}) do
        local p = player(side)
        p.game = mid
        save_player(side, p)
      end
    end
    ids[#ids + 1] = mid
    pairs[#pairs + 1] = {a = a, b = b}
  end
  if ARGV[3] ~= '' then
    board = board + 1
    redis.call('HSET', games, tid .. '-r' .. r .. '-' .. board, cjson.encode({
      round = r, a = ARGV[3], b = '', games = {}, sides = {}, results = {}, done = 1,
      made = 1, at = now}))
  end
  redis.call('HSET', hash, 'round', r)
  local entry = {t = 'round', at = now, round = r, bye = ARGV[3] ~= '' and ARGV[3] or cjson.null}
  entry.pairings = pairs
  log_entry(entry)
  bump()
  return ids
end

local function match(mid)
  local raw = redis.call('HGET', games, mid)
  if not raw then return nil end
  return cjson.decode(raw)
end

if op == 'game' then
  -- ARGV[2] a match's id  ARGV[3] a game of it  ARGV[4] its attacker  ARGV[5] its defender
  local m = match(ARGV[2])
  if not m then return {'err', 'not_found'} end
  for _, gid in ipairs(m.games) do
    if gid == ARGV[3] then return {'ok', 'dup'} end
  end
  m.games[#m.games + 1] = ARGV[3]
  m.sides[ARGV[3]] = {ARGV[4], ARGV[5]}
  redis.call('HSET', games, ARGV[2], cjson.encode(m))
  log_entry({t = 'game', at = now, round = m.round, game = ARGV[3], attackers = ARGV[4],
    defenders = ARGV[5]})
  bump()
  return {'ok', 'logged'}
end

if op == 'mresult' then
  -- ARGV[2] a match's id  ARGV[3] its game that ended  ARGV[4] the result
  -- ARGV[5] "1" when the match is decided with it
  local m = match(ARGV[2])
  if not m then return {'err', 'not_found'} end
  if m.results[ARGV[3]] then return {'ok', 'dup', playing()} end
  local known = false
  for _, gid in ipairs(m.games) do known = known or gid == ARGV[3] end
  if not known then return {'race'} end
  m.results[ARGV[3]] = ARGV[4]
  log_entry({t = 'result', at = now, game = ARGV[3], result = ARGV[4]})
  if ARGV[5] == '1' then
    m.done = 1
    for _, side in ipairs({m.a, m.b}) do
      local p = player(side)
      if p and p.game == ARGV[2] then
        p.game = ''
        save_player(side, p)
      end
    end
  end
  redis.call('HSET', games, ARGV[2], cjson.encode(m))
  bump()
  return {'ok', 'recorded', playing()}
end

if op == 'finish' then
  -- An arena's time ran out: no more waves; its games in progress finish and count.
  if status ~= 'running' then return {'race'} end
  redis.call('HSET', hash, 'status', 'finishing')
  bump()
  return {'ok'}
end

if op == 'end' then
  -- ARGV[2] the seed, revealed now (hex). From upcoming: too few joined to start.
  if status == 'finished' then return {'race'} end
  redis.call('HSET', hash, 'status', 'finished', 'ended', now, 'revealed', ARGV[2])
  log_entry({t = 'end', at = now})
  bump()
  return {'ok', now}
end

if op == 'kept' then
  -- ARGV[2] the grace (ms): the tournament is in PostgreSQL; its keys go after the grace
  if status ~= 'finished' then return {'race'} end
  redis.call('HSET', hash, 'kept', '1')
  for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, tonumber(ARGV[2])) end
  return {'ok'}
end

return {'unknown_op'}
