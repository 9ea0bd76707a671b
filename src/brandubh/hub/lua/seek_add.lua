-- Open a seek. KEYS[1] seeks zset  KEYS[2] the seek hash  KEYS[3] the owner's seek set
-- ARGV[1] seek id  ARGV[2] ttl ms (0: a correspondence seek, kept until taken)
-- ARGV[3] most open seeks per player  ARGV[4] channel  ARGV[5] notice (msgpack)
-- ARGV[6..] field, value pairs.  Returns 'ok' or 'too_many'.
for _, id in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  -- forget seeks that expired with their owner's socket
  if redis.call('EXISTS', (string.gsub(KEYS[2], '[^:]+$', id))) == 0 then
    redis.call('SREM', KEYS[3], id)
    redis.call('ZREM', KEYS[1], id)
  end
end
if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[3]) then return 'too_many' end
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local fields = {'created', tostring(now)}
for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(fields))
if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2])) end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 'ok'
