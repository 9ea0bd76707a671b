-- An arena's time ran out: no more waves; its games in progress finish and count.
if tournament() ~= 'running' then return {'race'} end
redis.call('HSET', hash, 'status', 'finishing')
bump()
return {'ok'}
