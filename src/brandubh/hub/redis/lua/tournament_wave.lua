-- An arena's pairing wave. ARGV[1] the wave's number (the previous one + 1; the log
-- counts pairings from 0)  ARGV[2] the free players the pairer was given (msgpack list)
-- ARGV[3] the pairing event  ARGV[4..] id, attacker, defender of each game (the ids
-- follow the hash's "seq"). Refused ("race") if the free players are others now: the
-- pairing is a function of exactly them (the event's "ratings"), so that anyone can
-- recompute it. Returns {"ok", the games' ids...}.
local status = tournament()
if status ~= 'running' then return {'race'} end
local waves = tonumber(redis.call('HGET', hash, 'waves') or '0')
if waves + 1 ~= tonumber(ARGV[1]) then return {'race'} end
local ends = tonumber(redis.call('HGET', hash, 'ends_at') or '0')
if ends > 0 and now >= ends then return {'race'} end
if not free_are(ARGV[2], function(p) return p.state == 'joined' and p.game == '' end) then
  return {'race'}
end
local tid = redis.call('HGET', hash, 'id')
local seq = tonumber(redis.call('HGET', hash, 'seq') or '0')
for i = 4, #ARGV, 3 do
  seq = seq + 1
  if ARGV[i] ~= tid .. '-' .. seq then return {'race'} end
end
local ids = {'ok'}
for i = 4, #ARGV, 3 do
  local gid, att, dfn = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local n = redis.call('HINCRBY', hash, 'seq', 1)
  save(games, gid, {n = n, wave = waves + 1, attackers = att, defenders = dfn, result = '',
    made = 0, at = now})
  for _, side in ipairs({att, dfn}) do
    local p = record(players, side)
    p.game = gid
    save(players, side, p)
  end
  ids[#ids + 1] = gid
end
redis.call('HSET', hash, 'waves', waves + 1)
append(ARGV[3])
bump()
return ids
