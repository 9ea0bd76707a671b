-- The one commit path: every change to a live game goes through this script -- moves,
-- draw offers and answers, resignations, aborts, timeouts, bot moves, deadline changes.
-- Python has already validated the change with the engine against the state at
-- expected_seq; this re-checks, in order, that nothing moved since, then writes the
-- new fields, appends the numbered event, publishes it and updates the deadline and
-- bot indexes -- all or nothing. Check order (DESIGN.md): resend, status, ply, turn,
-- deadline, version. Redis's TIME is the one clock.
--
-- KEYS[1] game hash   KEYS[2] event list   KEYS[3] ack hash   KEYS[4] bot job zset
-- KEYS[5] deadline zset   KEYS[6] finished-games zset (to archive and rate: rater.py)
-- ARGV[1] actor id    ARGV[2] client message id ('' for none)
-- ARGV[3] required status ('active', or 'waiting' for a join)
-- ARGV[4] expected ply ('' to skip)   ARGV[5] expected event number
-- ARGV[6] '1' if the actor must be the player on turn
-- ARGV[7] deadline check: '' none, 'before' (the deadline has not passed),
--         'after' (it has: a timeout)
-- ARGV[8] deadline change: '' leave, 'set' (now + ARGV[9] ms), 'at' (ARGV[9] ms),
--         'del' (no deadline: the game ended)
-- ARGV[9] milliseconds for ARGV[8]
-- ARGV[10] channel    ARGV[11] event frame (msgpack)
-- ARGV[12] the 9 bytes that stand for the new deadline in the frame ('' if none)
-- ARGV[13] bot job: '' leave, 'add' queue the game, 'del' drop it
-- ARGV[14] game id    ARGV[15] the fields to write: a msgpack array of name, value, ...
-- ARGV[16] when this change ends the game: after how many ms a sweep may archive it
--          (it is queued in KEYS[6]; the live path usually archives it first), else ''
--
-- Returns {'ok', n, deadline} | {'dup', n} | {'err', code, detail} | {'retry'}

local actor, msg_id = ARGV[1], ARGV[2]
if msg_id ~= '' then
  local prev = redis.call('HGET', KEYS[3], actor .. ':' .. msg_id)
  if prev then return {'dup', prev} end
end

local st = redis.call('HMGET', KEYS[1], 'status', 'ply', 'seq', 'turn', 'deadline')
if not st[1] then return {'err', 'not_found', ''} end
if st[1] ~= ARGV[3] then return {'err', 'wrong_status', st[1]} end
if ARGV[4] ~= '' and st[2] ~= ARGV[4] then return {'err', 'stale_ply', st[2]} end
if ARGV[6] == '1' and st[4] ~= actor then return {'err', 'not_your_turn', st[4] or ''} end

local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local deadline = tonumber(st[5] or '0') or 0
if ARGV[7] == 'before' and deadline > 0 and now > deadline then
  return {'err', 'deadline_passed', tostring(deadline)}
end
if ARGV[7] == 'after' and (deadline == 0 or now <= deadline) then
  return {'err', 'deadline_not_passed', tostring(deadline)}
end
if st[3] ~= ARGV[5] then return {'retry'} end

local frame = ARGV[11]
if ARGV[8] == 'set' then
  deadline = now + tonumber(ARGV[9])
elseif ARGV[8] == 'at' then
  deadline = tonumber(ARGV[9])
elseif ARGV[8] == 'del' then
  deadline = 0
end
if ARGV[12] ~= '' then
  -- The frame carries the deadline as a msgpack uint64 (0xcf + 8 bytes, big-endian);
  -- Python wrote a placeholder there because only this script knows the time.
  local bytes = {}
  local v = deadline
  for i = 8, 1, -1 do
    bytes[i] = string.char(v % 256)
    v = math.floor(v / 256)
  end
  local at = string.find(frame, ARGV[12], 1, true)
  if not at then return {'err', 'internal', 'deadline placeholder missing'} end
  frame = string.sub(frame, 1, at) .. table.concat(bytes) .. string.sub(frame, at + 9)
end

local n = tonumber(st[3]) + 1
local fields = {'seq', tostring(n), 'updated', tostring(now)}
if ARGV[8] ~= '' then
  fields[#fields + 1] = 'deadline'
  fields[#fields + 1] = tostring(deadline)
  fields[#fields + 1] = 'deadline_set'
  fields[#fields + 1] = tostring(now)
end
for _, v in ipairs(cmsgpack.unpack(ARGV[15])) do fields[#fields + 1] = v end
redis.call('HSET', KEYS[1], unpack(fields))
-- A waiting game expires unless joined (games.py, WAITING_TTL_S): a join makes it last.
if ARGV[3] == 'waiting' then redis.call('PERSIST', KEYS[1]) end
redis.call('RPUSH', KEYS[2], frame)
if msg_id ~= '' then redis.call('HSET', KEYS[3], actor .. ':' .. msg_id, n) end
if ARGV[8] == 'set' or ARGV[8] == 'at' then
  redis.call('ZADD', KEYS[5], deadline, ARGV[14])
elseif ARGV[8] == 'del' then
  redis.call('ZREM', KEYS[5], ARGV[14])
end
if ARGV[13] == 'add' then
  redis.call('ZADD', KEYS[4], now, ARGV[14])
elseif ARGV[13] == 'del' then
  redis.call('ZREM', KEYS[4], ARGV[14])
end
if ARGV[16] ~= '' then redis.call('ZADD', KEYS[6], now + tonumber(ARGV[16]), ARGV[14]) end
redis.call('PUBLISH', ARGV[10], frame)
return {'ok', n, tostring(deadline)}
