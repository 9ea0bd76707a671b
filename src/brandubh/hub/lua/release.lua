-- Release the address of an account that never confirmed it: the account is deleted and
-- its email may sign up again; a confirmed (or gone) account is only taken off the list.
-- KEYS[1] email index hash   KEYS[2] account hash   KEYS[3] unverified zset
-- ARGV[1] account id
-- Returns 1 (released) | 0
redis.call('ZREM', KEYS[3], ARGV[1])
local a = redis.call('HMGET', KEYS[2], 'email', 'verified')
if not a[1] or a[2] ~= '0' then return 0 end
if redis.call('HGET', KEYS[1], a[1]) == ARGV[1] then redis.call('HDEL', KEYS[1], a[1]) end
redis.call('DEL', KEYS[2])
return 1
