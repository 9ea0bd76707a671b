-- Claim due bot turns for a lease, so that a worker that dies mid-turn only delays the
-- move: the entry becomes due again when the lease runs out. The commit that plays the
-- bot's move removes the entry.
-- Used alike for deadlines and finished games.
-- KEYS[1] bot job zset   ARGV[1] lease (ms)   ARGV[2] at most this many
-- ARGV[3] (optional, "" for none) claim only entries due at or before this time (ms), even if now is later
-- ARGV[4] (optional) "scores": return id, due (ms) pairs, so a caller can serve its claims
-- of many buckets oldest first; "next": return first when the earliest entry left (claimed
-- or not) falls due ('' for none), then the ids, so a caller can wake up for it
-- Returns the claimed game ids.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local upto = now
if ARGV[3] and ARGV[3] ~= '' and tonumber(ARGV[3]) < now then upto = tonumber(ARGV[3]) end
local due = redis.call('ZRANGE', KEYS[1], '-inf', upto, 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[2]),
  'WITHSCORES')
local ids, pairs = {}, {}
for i = 1, #due, 2 do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), due[i])
  ids[#ids + 1] = due[i]
  pairs[#pairs + 1] = due[i]
  pairs[#pairs + 1] = due[i + 1]
end
if ARGV[4] == 'scores' then return pairs end
if ARGV[4] == 'next' then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  table.insert(ids, 1, first[2] or '')
end
return ids
