-- The tournament is in PostgreSQL: its keys go after the grace. ARGV[1] the grace (ms).
if tournament() ~= 'finished' then return {'race'} end
redis.call('HSET', hash, 'kept', '1')
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, tonumber(ARGV[1])) end
return {'ok'}
