-- The analysis queue: hubs ask (hub/analysis/analyses.py), workers work
-- (brandubh/hub/analysis/worker.py; docs/analysis.md). A queue is a sorted set scored by when
-- each job may be claimed (ms, Redis clock): its request while it waits, the end of its
-- lease while a worker holds it, as claim.lua's (which claims them). Each job's hash
-- (keys.analysis_job) says what to analyse, who holds it, its tries and the ply reached.
-- Every key shares the tag {ana}: one slot, on one Redis or a cluster.
-- KEYS[1] the queue   KEYS[2] the job's hash   KEYS[3] (finish) the evaluation's cache key,
--   (request) the workers' wake list, optional: a token for the job queued wakes one worker
-- ARGV[1] the mode   ARGV[2] the job's id, then by mode:
--   status                  -> {'none'} | {'queued', place} | {'running', ply, of}
--   request  max, wake max, field, value, ...
--                           -> {'queued', place} | {'running', ply, of} | {'busy', waiting}
--   start    worker, most tries
--                           -> the job's fields and values | {} (no job: dropped from the
--                              queue) | {'dropped'} (tried too often: removed)
--   renew    worker, lease (ms), ply, of   -> 1 | 0 (another worker holds it now)
--   release  worker, delay (ms)   -> 1 | 0: given back uncounted (its holder failed cleanly:
--                                   Redis or PostgreSQL away), due again after the delay
--   finish   [value, ttl (ms)] for KEYS[3] -> 1
-- "place": 1 is next; a job's place counts the waiting jobs queued before it (those asked
-- for in the same millisecond in the order of their ids).
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local queue, job, mode, id = KEYS[1], KEYS[2], ARGV[1], ARGV[2]

local function state()
  local due = redis.call('ZSCORE', queue, id)
  if not due or redis.call('EXISTS', job) == 0 then return nil end
  due = tonumber(due)
  if due > now then
    local progress = redis.call('HMGET', job, 'ply', 'of')
    return {'running', tonumber(progress[1] or '0') or 0, tonumber(progress[2] or '0') or 0}
  end
  -- Its rank: the waiting jobs before it (a running one's score, its lease, is later).
  return {'queued', redis.call('ZRANK', queue, id) + 1}
end

if mode == 'status' then
  return state() or {'none', redis.call('ZCOUNT', queue, '-inf', now)}
end

if mode == 'request' then
  local known = state()
  if known then return known end
  local waiting = redis.call('ZCOUNT', queue, '-inf', now)
  if waiting >= tonumber(ARGV[3]) then return {'busy', waiting} end
  redis.call('DEL', job)
  for i = 5, #ARGV, 2 do redis.call('HSET', job, ARGV[i], ARGV[i + 1]) end
  redis.call('HSET', job, 'queued', now)
  redis.call('ZADD', queue, now, id)
  if KEYS[3] then
    redis.call('LPUSH', KEYS[3], 1)
    redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[4]) - 1)
  end
  return {'queued', redis.call('ZRANK', queue, id) + 1}
end

if mode == 'start' then
  if redis.call('EXISTS', job) == 0 then
    redis.call('ZREM', queue, id)
    return {}
  end
  local tries = redis.call('HINCRBY', job, 'tries', 1)
  if tries > tonumber(ARGV[4]) then
    redis.call('ZREM', queue, id)
    redis.call('DEL', job)
    return {'dropped'}
  end
  redis.call('HSET', job, 'worker', ARGV[3], 'ply', 0)
  return redis.call('HGETALL', job)
end

if mode == 'renew' then
  if redis.call('HGET', job, 'worker') ~= ARGV[3] then return 0 end
  redis.call('ZADD', queue, 'XX', now + tonumber(ARGV[4]), id)
  redis.call('HSET', job, 'ply', ARGV[5], 'of', ARGV[6])
  return 1
end

if mode == 'release' then
  if redis.call('HGET', job, 'worker') ~= ARGV[3] then return 0 end
  redis.call('ZADD', queue, 'XX', now + tonumber(ARGV[4]), id)
  redis.call('HINCRBY', job, 'tries', -1)
  redis.call('HDEL', job, 'worker')
  return 1
end

if mode == 'finish' then
  redis.call('ZREM', queue, id)
  redis.call('DEL', job)
  if KEYS[3] then redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4]) end
  return 1
end

return redis.error_reply('analysis.lua: unknown mode ' .. tostring(mode))
