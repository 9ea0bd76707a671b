-- A player joins. ARGV[1] player id  ARGV[2] name  ARGV[3] rating  ARGV[4] the join event.
-- A player who comes back keeps their rating: "race" if the event says another.
local id = ARGV[1]
local status, format = tournament()
if not status then return {'err', 'not_found'} end
if status == 'finished' or status == 'finishing' then return {'err', 'tournament_closed'} end
if format ~= 'arena' and status ~= 'upcoming' then return {'err', 'tournament_closed'} end
local p = record(players, id)
if p and (p.state == 'joined' or p.state == 'paused') then return {'ok', 'already'} end
local max = tonumber(redis.call('HGET', hash, 'max_players') or '0') or 0
if max > 0 then
  local count = 0
  for _, raw in ipairs(redis.call('HVALS', players)) do
    if decode(raw).state ~= 'withdrawn' then count = count + 1 end
  end
  if count >= max then return {'err', 'tournament_full'} end
end
if p then
  if p.rating ~= tonumber(ARGV[3]) then return {'race'} end
  p.state = 'joined'
  p.free = now
else
  local n = redis.call('HLEN', players) + 1
  p = {name = ARGV[2], rating = tonumber(ARGV[3]), state = 'joined', game = '', free = now, n = n}
end
save(players, id, p)
append(ARGV[4])
bump()
return {'ok', 'joined'}
