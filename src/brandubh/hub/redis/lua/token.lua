-- A mailed token's life (hub/tokens.py): issue it, read it, or use it once.
-- KEYS[1] the token's hash (keys.token)
-- ARGV[1] op: 'issue' | 'peek' | 'use'
--   issue: ARGV[2] lifetime ms, ARGV[3..] field, value pairs (account, email)
-- Returns issue: expiry ms; peek and use: {'ok', account, email} | {'used'} | {'expired'} |
-- {'unknown'}. 'use' marks it used, so a second use answers {'used'}.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local GRACE = 7 * 24 * 3600 * 1000  -- kept this long after expiry, to say "used" or "expired"
if ARGV[1] == 'issue' then
  local expires = now + tonumber(ARGV[2])
  local fields = {'state', 'live', 'expires', tostring(expires)}
  for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
  redis.call('HSET', KEYS[1], unpack(fields))
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + GRACE)
  return expires
end
local h = redis.call('HMGET', KEYS[1], 'state', 'expires', 'account', 'email')
if not h[1] then return {'unknown'} end
if h[1] == 'used' then return {'used'} end
if now >= tonumber(h[2]) then return {'expired'} end
if ARGV[1] == 'use' then redis.call('HSET', KEYS[1], 'state', 'used', 'used', now) end
return {'ok', h[3], h[4]}
