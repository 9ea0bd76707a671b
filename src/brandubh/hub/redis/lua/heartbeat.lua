-- A scheduler's heartbeat, and how outages of the whole service are detected.
-- Every running scheduler calls this about once a second. When the last beat is older
-- than the threshold, no scheduler ran in between: the whole service was down, and the
-- gap [last beat, now] is recorded as an outage so that deadlines falling inside it are
-- extended by it.
-- KEYS[1] last beat (ms)   KEYS[2] outage list ("start:end" ms)
-- ARGV[1] threshold (ms)   ARGV[2] outages to keep
-- Returns {now, outage start or 0, the outages recorded ("start:end", oldest first)...}
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
local started = 0
if last > 0 and now - last > tonumber(ARGV[1]) then
  redis.call('RPUSH', KEYS[2], last .. ':' .. now)
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
  started = last
end
redis.call('SET', KEYS[1], now)
return {now, started, unpack(redis.call('LRANGE', KEYS[2], 0, -1))}
