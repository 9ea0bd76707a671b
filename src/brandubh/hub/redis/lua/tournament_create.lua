-- A new tournament. ARGV[1] how long it is kept (ms) until its creator's limit takes it
-- (lua/run_limit.lua; then it is kept for ever): one whose hub died between goes.
-- ARGV[2..] its hash's fields and values.
if redis.call('EXISTS', hash) == 1 then return {'race'} end
redis.call('HSET', hash, unpack(ARGV, 2))
redis.call('PEXPIRE', hash, tonumber(ARGV[1]))
return {'ok'}
