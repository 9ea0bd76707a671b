-- The one commit path: every change to a live game goes through this script.
-- Python has already validated the change with the engine against the state at
-- expected_seq; this re-checks, in order, that nothing moved since, then writes the
-- new fields, appends the numbered event, publishes it and updates the bot queue --
-- all or nothing. Check order (DESIGN.md): resend, status, ply, turn, version.
--
-- KEYS[1] game hash   KEYS[2] event list   KEYS[3] ack hash   KEYS[4] bot job zset
-- ARGV[1] actor id    ARGV[2] client message id ('' for none)
-- ARGV[3] required status ('active', or 'waiting' for a join)
-- ARGV[4] expected ply ('' to skip)   ARGV[5] expected event number
-- ARGV[6] '1' if the actor must be the player on turn
-- ARGV[7] channel     ARGV[8] event frame (msgpack)
-- ARGV[9] bot job: '' leave, 'add' queue the game, 'del' drop it
-- ARGV[10] game id    ARGV[11..] field, value pairs to write
--
-- Returns {'ok', n} | {'dup', n} | {'err', code, detail} | {'retry'}

local actor, msg_id = ARGV[1], ARGV[2]
if msg_id ~= '' then
  local prev = redis.call('HGET', KEYS[3], actor .. ':' .. msg_id)
  if prev then return {'dup', prev} end
end

local st = redis.call('HMGET', KEYS[1], 'status', 'ply', 'seq', 'turn')
if not st[1] then return {'err', 'not_found', ''} end
if st[1] ~= ARGV[3] then return {'err', 'wrong_status', st[1]} end
if ARGV[4] ~= '' and st[2] ~= ARGV[4] then return {'err', 'stale_ply', st[2]} end
if ARGV[6] == '1' and st[4] ~= actor then return {'err', 'not_your_turn', st[4] or ''} end
if st[3] ~= ARGV[5] then return {'retry'} end

local n = tonumber(st[3]) + 1
local fields = {'seq', tostring(n)}
for i = 11, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('RPUSH', KEYS[2], ARGV[8])
if msg_id ~= '' then redis.call('HSET', KEYS[3], actor .. ':' .. msg_id, n) end
if ARGV[9] == 'add' then
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[4], t[1] * 1000 + math.floor(t[2] / 1000), ARGV[10])
elseif ARGV[9] == 'del' then
  redis.call('ZREM', KEYS[4], ARGV[10])
end
redis.call('PUBLISH', ARGV[7], ARGV[8])
return {'ok', n}
