-- Open a seek. Every key is declared (a Redis Cluster routes a script by its keys); all
-- are the lobby's, under one hash tag.
-- KEYS[1] seeks zset (id -> created)   KEYS[2] seek data hash (id -> msgpack fields)
-- KEYS[3] live seeks' expiry zset (id -> ms)   KEYS[4] owned hash (player -> 'id id ...')
-- ARGV[1] seek id  ARGV[2] player  ARGV[3] ttl ms (0: a correspondence seek, kept until
-- taken)  ARGV[4] most open seeks per player  ARGV[5] channel  ARGV[6] notice (msgpack)
-- ARGV[7] the seek's fields (a msgpack map).  Returns 'ok' or 'too_many'.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)

-- Forget the seeks that expired with their owner's socket (their hub died).
for _, id in ipairs(redis.call('ZRANGE', KEYS[3], '-inf', now, 'BYSCORE')) do
  remove_seek(KEYS[1], KEYS[2], KEYS[3], KEYS[4], id)
end

local mine = redis.call('HGET', KEYS[4], ARGV[2]) or ''
local count = 0
for _ in string.gmatch(mine, '%S+') do count = count + 1 end
if count >= tonumber(ARGV[4]) then return 'too_many' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[7])
redis.call('ZADD', KEYS[1], now, ARGV[1])
if tonumber(ARGV[3]) > 0 then redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[1]) end
if mine == '' then mine = ARGV[1] else mine = mine .. ' ' .. ARGV[1] end
redis.call('HSET', KEYS[4], ARGV[2], mine)
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 'ok'
