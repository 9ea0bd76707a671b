-- Claim due bot turns for a lease, so that a worker that dies mid-turn only delays the
-- move: the entry becomes due again when the lease runs out. The commit that plays the
-- bot's move removes the entry.
-- Used alike for deadlines and finished games.
-- KEYS[1] bot job zset   ARGV[1] lease (ms)   ARGV[2] at most this many
-- ARGV[3] (optional) claim only entries due at or before this time (ms), even if now is later
-- Returns the claimed game ids.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local upto = now
if ARGV[3] and tonumber(ARGV[3]) < now then upto = tonumber(ARGV[3]) end
local due = redis.call('ZRANGE', KEYS[1], '-inf', upto, 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), id)
end
return due
