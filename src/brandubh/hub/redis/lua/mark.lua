-- A hub's watermark: a time (ms, Redis clock) before which it holds no uncommitted move,
-- or 'idle' (it holds none and marks again before it stamps one), with when it was written
-- and the id of the connection it holds open (clock.py).
-- KEYS[1] the hubs' marks hash
-- ARGV[1] hub id   ARGV[2] watermark or 'idle'   ARGV[3] client id of its marks connection
-- Returns when it was written (ms): the hub stamps nothing earlier from then on.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. now .. ':' .. ARGV[3])
return now
