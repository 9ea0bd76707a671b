-- The outbox's state machine, one step of one mail at a time (hub/outbox.py):
--   queue   a new mail, unless its id was queued before (sent ones are kept 7 days)
--   take    after claim.lua leased it: own it; one found 'handed' goes to the unsure list
--   hand    just before its content goes to the SMTP server: 'handed' (only by its owner)
--   retry   after a failure: queued again, due after a pause (only by its owner)
--   done    the server accepted it: 'sent', kept 7 days (so its id is never queued again)
--   dead    refused for good: out of the queue, onto the dead list, kept 30 days
-- A mail that will not be sent again (sent, unsure, dead) keeps neither its content nor
-- its link: both hold a live token (mail/tokens.py), which no backup or AOF should keep.
-- KEYS[1] outbox zset   KEYS[2] mail hash   KEYS[3] unsure list   KEYS[4] dead list
-- ARGV[1] op   ARGV[2] mail id   then per op:
--   queue: ARGV[3] recipient, ARGV[4] message bytes, ARGV[5] link, ARGV[6] delay ms
--   take/hand: ARGV[3] lease owner, ARGV[4] lease ms      retry: ARGV[3] owner, ARGV[4] delay ms
-- Returns queue: 1 | 0 (known id); take: {'ok', to, message, link, tries, queued ms} |
-- {'unsure'} | {'gone'}; hand, retry: 1 | 0 (not the owner); done, dead: 1
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local op, id = ARGV[1], ARGV[2]
local WEEK = 7 * 24 * 3600
if op == 'queue' then
  if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
  redis.call('HSET', KEYS[2], 'to', ARGV[3], 'msg', ARGV[4], 'link', ARGV[5],
    'state', 'queued', 'tries', 0, 'queued', now)
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[6]), id)
  return 1
end
local state = redis.call('HGET', KEYS[2], 'state')
if op == 'take' then
  if not state or state == 'sent' or state == 'dead' then
    redis.call('ZREM', KEYS[1], id)
    return {'gone'}
  end
  if state == 'handed' then
    -- Its hub died between handing it over and recording the answer: most likely
    -- delivered, so it is not sent again (docs/accounts.md, "the promise").
    redis.call('ZREM', KEYS[1], id)
    redis.call('HSET', KEYS[2], 'state', 'unsure')
    redis.call('HDEL', KEYS[2], 'msg', 'link')
    redis.call('EXPIRE', KEYS[2], WEEK)
    redis.call('RPUSH', KEYS[3], id)
    redis.call('LTRIM', KEYS[3], -1000, -1)
    return {'unsure'}
  end
  redis.call('HSET', KEYS[2], 'owner', ARGV[3])
  local tries = redis.call('HINCRBY', KEYS[2], 'tries', 1)
  local m = redis.call('HMGET', KEYS[2], 'to', 'msg', 'link', 'queued')
  return {'ok', m[1], m[2], m[3], tries, m[4]}
end
if op == 'hand' or op == 'retry' then
  if redis.call('HGET', KEYS[2], 'owner') ~= ARGV[3] or state ~= (op == 'hand' and 'queued' or state) then
    return 0
  end
  redis.call('HSET', KEYS[2], 'state', op == 'hand' and 'handed' or 'queued')
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[4]), id)
  return 1
end
if op == 'done' then
  redis.call('ZREM', KEYS[1], id)
  redis.call('HSET', KEYS[2], 'state', 'sent', 'sent', now)
  redis.call('HDEL', KEYS[2], 'msg', 'link', 'to', 'owner')
  redis.call('EXPIRE', KEYS[2], WEEK)
  return 1
end
if op == 'dead' then
  redis.call('ZREM', KEYS[1], id)
  redis.call('HSET', KEYS[2], 'state', 'dead')
  redis.call('HDEL', KEYS[2], 'msg', 'link', 'owner')
  redis.call('EXPIRE', KEYS[2], 30 * 24 * 3600)
  redis.call('RPUSH', KEYS[4], id)
  redis.call('LTRIM', KEYS[4], -1000, -1)
  return 1
end
return redis.error_reply('unknown op ' .. tostring(op))
