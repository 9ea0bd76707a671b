-- Claim due bot turns for a lease, so that a worker that dies mid-turn only delays the
-- move: the entry becomes due again when the lease runs out. The commit that plays the
-- bot's move removes the entry.
-- KEYS[1] bot job zset   ARGV[1] lease (ms)   ARGV[2] at most this many
-- Returns the claimed game ids.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local due = redis.call('ZRANGE', KEYS[1], '-inf', now, 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), id)
end
return due
