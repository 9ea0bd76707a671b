-- An arena's player pauses (is paired no more until they resume). ARGV[1] player id
-- ARGV[2] the pause event. Returns the game they are in, "" for none.
local id = ARGV[1]
local status, format = tournament()
if not status then return {'err', 'not_found'} end
if status == 'finished' then return {'err', 'tournament_closed'} end
local p = record(players, id)
if not p or p.state == 'withdrawn' then return {'err', 'not_joined'} end
if p.state == 'paused' then return {'ok', p.game} end
if format ~= 'arena' then return {'err', 'tournament_closed'} end
p.state = 'paused'
p.free = now
save(players, id, p)
append(ARGV[2])
bump()
return {'ok', p.game}
