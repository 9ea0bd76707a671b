-- The start. A round robin or Swiss logs its players at the start, with their ratings,
-- and keeps them in its hash (the roster: its standings' players).
-- ARGV[1] the players not withdrawn as the hub read them (msgpack list)  ARGV[2] their
-- ratings, the roster (msgpack map)  ARGV[3] the start event ("" for an arena: none).
-- "race" if the players are others now.
local status, format = tournament()
if status ~= 'upcoming' then return {'race'} end
if format ~= 'arena' then
  if not free_are(ARGV[1], function(p) return p.state ~= 'withdrawn' end) then
    return {'race'}
  end
  redis.call('HSET', hash, 'roster', ARGV[2])
  append(ARGV[3])
end
redis.call('HSET', hash, 'status', 'running', 'started', now)
bump()
return {'ok'}
