-- The login limits (docs/accounts.md): sliding windows of sorted sets (member: a nonce,
-- score: when, ms, Redis clock), kept per client address (attempts, and failures) and per
-- account (failures from each address, and from all).
-- KEYS[1] overall failures   KEYS[2] the address's attempts   KEYS[3] the address's failures
-- KEYS[4] this account's failures from this address   KEYS[5] this account's failures
-- ARGV[1] window (ms)   ARGV[2] nonce   ARGV[3] 'check' | 'fail' | 'ok'
-- ARGV[4] most failures overall   ARGV[5] most attempts per address   ARGV[6] most
-- failures per account (from one address, and from the addresses that failed there)
-- 'check': refuse, or count the attempt: an address with no failure of its own is held up
-- only by its attempts window, so neither a stranger nor a crowd locks the owner out.
-- 'fail': count a failure.  'ok': a success clears this address's failures for the account.
-- Returns {0, 0} (allowed or done) | {who, ms until allowed}: 1 service, 2 address, 3 account
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local window = tonumber(ARGV[1])
for i = 1, #KEYS do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window) end
local function wait(key)
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if oldest[2] then return math.max(tonumber(oldest[2]) + window - now, 1) end
  return window
end
local function add(key)
  redis.call('ZADD', key, now, ARGV[2])
  redis.call('PEXPIRE', key, window)
end
if ARGV[3] == 'ok' then
  redis.call('DEL', KEYS[4])
  return {0, 0}
end
if ARGV[3] == 'fail' then
  add(KEYS[1]); add(KEYS[3]); add(KEYS[4]); add(KEYS[5])
  return {0, 0}
end
local per_account = tonumber(ARGV[6])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return {2, wait(KEYS[2])} end
local mine = redis.call('ZCARD', KEYS[4])
if mine >= per_account then return {3, wait(KEYS[4])} end
if mine > 0 and redis.call('ZCARD', KEYS[5]) >= per_account then return {3, wait(KEYS[5])} end
if redis.call('ZCARD', KEYS[3]) > 0 and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return {1, wait(KEYS[1])}
end
add(KEYS[2])
return {0, 0}
