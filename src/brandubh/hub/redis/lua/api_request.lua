-- One request of a personal API token (hub/tokens/service.py), in one round trip: refused
-- when the token was revoked since a hub cached its holder, else counted against the
-- token's sliding rate window as lua/windows.lua counts (nothing counted when it is full).
-- KEYS[1] the token's window   KEYS[2] its revoked mark   KEYS[3] its account's bot mark
-- ARGV[1] window (ms)   ARGV[2] nonce   ARGV[3] most requests a window (0: no limit)
-- Returns {-1, 0, bot} revoked | {1, ms until the window has room, bot} | {0, 0, bot} counted
-- (bot: 1 while the account's upgrade to a bot account is marked)
local bot = redis.call('EXISTS', KEYS[3])
if redis.call('EXISTS', KEYS[2]) == 1 then return {-1, 0, bot} end
local max = tonumber(ARGV[3])
if max <= 0 then return {0, 0, bot} end
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= max then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local wait = window
  if oldest[2] then wait = tonumber(oldest[2]) + window - now end
  return {1, math.max(wait, 1), bot}
end
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('PEXPIRE', KEYS[1], window)
return {0, 0, bot}
