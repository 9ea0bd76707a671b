-- Count an attempt against several sliding windows at once, or refuse it: each key is a
-- sorted set of attempts (member: a unique nonce, score: when, ms, Redis clock). Nothing
-- is counted when any window is full. Used for sign-ups and new guest sessions (limits.py).
-- KEYS[1..n] the windows   ARGV[1] window (ms)   ARGV[2] nonce   ARGV[3..n+2] their maxima
-- Returns {0, 0} (counted) | {i, ms until window i has room again}
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local window = tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  local max = tonumber(ARGV[i + 2])
  if redis.call('ZCARD', KEYS[i]) >= max then
    local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
    local wait = window
    if oldest[2] then wait = tonumber(oldest[2]) + window - now end
    return {i, math.max(wait, 1)}
  end
end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], now, ARGV[2])
  redis.call('PEXPIRE', KEYS[i], window)
end
return {0, 0}
