-- Say one line in a chat room of a game (chat/service.py): the limits, the room's own line
-- number (apart from the game's event numbers, which a line never takes), the room's
-- capped list, and the line published to every hub that follows the game as
-- "c <room> <author> <muted> <frame>" (fanout.py hands it to the sockets that may see it).
-- KEYS[1] the game's hash   KEYS[2] the room's list (keys.chat)   KEYS[3] keys.chat_numbers
-- KEYS[4] the author's window (keys.chat_window)   KEYS[5] the room's window
-- KEYS[6] the game's set of hubs (publish.lua)
-- ARGV[1] channel stem   ARGV[2] game id   ARGV[3] room   ARGV[4] author id
-- ARGV[5] author name    ARGV[6] text      ARGV[7] '1' if the author is muted
-- ARGV[8] lines per author per window      ARGV[9] lines per room per window
-- ARGV[10] the window (ms)                 ARGV[11] lines kept in the room's list
-- Returns {'ok', n, at}, {'gone'} (no such game), or {'limit', 'account'|'room', wait ms}.
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
local muted = ARGV[7] == '1'
local function wait(key, cap)
  if tonumber(redis.call('GET', key) or '0') >= cap then
    return math.max(redis.call('PTTL', key), 1)
  end
  return nil
end
local w = wait(KEYS[4], tonumber(ARGV[8]))
if w then return {'limit', 'account', w} end
-- A muted author's lines reach nobody else: they do not use up the room's allowance.
if not muted then
  w = wait(KEYS[5], tonumber(ARGV[9]))
  if w then return {'limit', 'room', w} end
end
local counted = muted and {KEYS[4]} or {KEYS[4], KEYS[5]}
for _, key in ipairs(counted) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, tonumber(ARGV[10])) end
end
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local n = redis.call('HINCRBY', KEYS[3], ARGV[3], 1)
local from = {id = ARGV[4], name = ARGV[5]}
local kept = {n = n, from = from, text = ARGV[6], at = now}
if muted then kept.muted = true end
redis.call('RPUSH', KEYS[2], cmsgpack.pack(kept))
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[11]), -1)
-- An archived game's keys run out after the grace: its chat goes with them. (Only an
-- ended game's: a waiting invitation's expiry is no end, and a join makes it last.)
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 and redis.call('HGET', KEYS[1], 'status') == 'ended' then
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
local frame = cmsgpack.pack({t = 'chat', game = ARGV[2], room = ARGV[3], n = n, from = from,
  text = ARGV[6], at = now})
publish(KEYS[6], ARGV[1], 'c ' .. ARGV[3] .. ' ' .. ARGV[4] .. ' ' .. (muted and '1' or '0')
  .. ' ' .. frame, '', now)
return {'ok', n, now}
