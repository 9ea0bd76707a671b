-- Claim due entries of one or more sorted sets (scored by when each falls due) for a lease,
-- so that a worker that dies mid-task only delays it: the entry becomes due again when the
-- lease runs out. The commit that completes the task removes the entry.
-- Used alike for deadlines, bot turns, finished games, reminders, mail: on one Redis a
-- caller passes every bucket's set at once (one call a sweep); on a cluster a call may
-- only touch one slot, so it passes one set a call (redis/client.py, claim_buckets).
-- KEYS[1..n] the sets   ARGV[1] lease (ms)   ARGV[2] at most this many from each set
-- ARGV[3] (optional, "" for none) claim only entries due at or before this time (ms), even if now is later
-- ARGV[4] (optional) "scores": return id, due (ms) pairs, so a caller can serve its claims
-- of many sets oldest first; "next": return first when the earliest entry left in any of
-- the sets (claimed or not) falls due ('' for none), then the ids, so a caller can wake up
-- for it
-- Returns the claimed ids (of every set, in the order of KEYS).
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local upto = now
if ARGV[3] and ARGV[3] ~= '' and tonumber(ARGV[3]) < now then upto = tonumber(ARGV[3]) end
local lease = now + tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local ids, pairs = {}, {}
local first = nil
for k = 1, #KEYS do
  local due = redis.call('ZRANGE', KEYS[k], '-inf', upto, 'BYSCORE', 'LIMIT', 0, limit,
    'WITHSCORES')
  for i = 1, #due, 2 do
    redis.call('ZADD', KEYS[k], lease, due[i])
    ids[#ids + 1] = due[i]
    pairs[#pairs + 1] = due[i]
    pairs[#pairs + 1] = due[i + 1]
  end
  if ARGV[4] == 'next' then
    local head = redis.call('ZRANGE', KEYS[k], 0, 0, 'WITHSCORES')
    if head[2] and (first == nil or tonumber(head[2]) < first) then first = tonumber(head[2]) end
  end
end
if ARGV[4] == 'scores' then return pairs end
if ARGV[4] == 'next' then
  table.insert(ids, 1, first and string.format('%d', first) or '')
end
return ids
