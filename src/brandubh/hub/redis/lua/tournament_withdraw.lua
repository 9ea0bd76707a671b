-- A player withdraws. ARGV[1] player id  ARGV[2] the withdraw event. Returns the game
-- (arena) or match (rounds) they are in, "" for none.
local id = ARGV[1]
local status = tournament()
if not status then return {'err', 'not_found'} end
if status == 'finished' then return {'err', 'tournament_closed'} end
local p = record(players, id)
if not p or p.state == 'withdrawn' then return {'err', 'not_joined'} end
p.state = 'withdrawn'
p.free = now
save(players, id, p)
append(ARGV[2])
bump()
return {'ok', p.game}
