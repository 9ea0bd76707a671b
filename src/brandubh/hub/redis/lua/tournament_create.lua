-- A new tournament. ARGV: its hash's fields and values.
if redis.call('EXISTS', hash) == 1 then return {'race'} end
redis.call('HSET', hash, unpack(ARGV))
return {'ok'}
