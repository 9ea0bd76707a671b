-- Create an account unless its email is taken or its id exists; the account keeps the
-- finished games of the guest whose id it adopts (their list no longer expires).
-- KEYS[1] email index hash   KEYS[2] account hash   KEYS[3] the id's finished-games zset
-- ARGV[1] normalised email   ARGV[2] account id     ARGV[3..] field, value pairs
-- Returns {'ok', created ms} | {'err', 'email_taken'} | {'err', 'id_taken'}
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {'err', 'email_taken'} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {'err', 'id_taken'} end
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local fields = {'created', tostring(now)}
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], unpack(fields))
redis.call('PERSIST', KEYS[3])
return {'ok', now}
