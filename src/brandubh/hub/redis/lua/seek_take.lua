-- Take a seek off the lobby: cancelled by its owner, or accepted by someone else.
-- Accepting also takes every live seek and quick-pairing place of both players, so
-- nobody lands in two games at once. Every key is declared: the caller read which pool
-- each player waits in and passes those pools; if that changed meanwhile, nothing is
-- written and the caller reads again ('retry').
-- KEYS[1] seeks zset  KEYS[2] seek data hash  KEYS[3] live seeks' expiry zset
-- KEYS[4] owned hash  KEYS[5] pools hash (player -> "where")  KEYS[6..] pool zsets
-- ARGV[1] seek id  ARGV[2] player id  ARGV[3] 'cancel' or 'accept'  ARGV[4] channel
-- ARGV[5..] the terms ("ruleset|move time") of each pool zset, in order
-- Returns {'ok', field, value, ...} | {'err', code} | {'retry'}
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)

local function fields(id)
  local raw = redis.call('HGET', KEYS[2], id)
  if not raw then return nil end
  local expiry = redis.call('ZSCORE', KEYS[3], id)
  if expiry and tonumber(expiry) <= now then return nil end  -- its socket's hub died
  return cmsgpack.unpack(raw)
end

local function take(id)
  remove_seek(KEYS[1], KEYS[2], KEYS[3], KEYS[4], id)
  redis.call('PUBLISH', ARGV[4], cmsgpack.pack({t = 'seek_removed', seek = id}))
end

local f = fields(ARGV[1])
if not f then
  take(ARGV[1])  -- whatever is left of it
  return {'err', 'seek_gone'}
end
if ARGV[3] == 'cancel' and f.player ~= ARGV[2] then return {'err', 'not_yours'} end
if ARGV[3] == 'accept' and f.player == ARGV[2] then return {'err', 'own_seek'} end

-- The pool key of each player who waits in quick pairing, among those passed.
local pool_of = {}
if ARGV[3] == 'accept' then
  for _, pid in ipairs({f.player, ARGV[2]}) do
    local where = redis.call('HGET', KEYS[5], pid)
    if where then
      local terms = string.match(where, '^([^|]+|[^|]+)|')
      for k = 6, #KEYS do
        if ARGV[k - 1] == terms then pool_of[pid] = KEYS[k] end
      end
      if not pool_of[pid] then return {'retry'} end
    end
  end
end

local out = {'ok'}
for k, v in pairs(f) do
  out[#out + 1] = k
  out[#out + 1] = v
end
take(ARGV[1])
if ARGV[3] == 'accept' then
  for _, pid in ipairs({f.player, ARGV[2]}) do
    for id in string.gmatch(redis.call('HGET', KEYS[4], pid) or '', '%S+') do
      local other = fields(id)
      if other and other.live == '1' then take(id) end
    end
    if pool_of[pid] then
      redis.call('ZREM', pool_of[pid], pid)
      redis.call('HDEL', KEYS[5], pid)
    end
  end
end
return out
