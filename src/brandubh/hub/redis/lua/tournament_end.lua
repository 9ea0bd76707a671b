-- The end. ARGV[1] the seed, revealed now (hex)  ARGV[2] the end event. From upcoming:
-- too few joined to start. Returns {"ok", the instant}.
local status = tournament()
if not status then return {'err', 'not_found'} end
if status == 'finished' then return {'race'} end
redis.call('HSET', hash, 'status', 'finished', 'ended', now, 'revealed', ARGV[1])
append(ARGV[2])
bump()
return {'ok', now}
