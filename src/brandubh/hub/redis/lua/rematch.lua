-- A rematch after the end: the first player to ask offers it; when the other asks too,
-- the rematch game (already created by the caller) is recorded once. Not an event of the
-- ended game (nothing is applied to an ended game): a notice on its sharded channel
-- ("0 <frame>").
-- KEYS[1] game hash   KEYS[2] the game's set of hubs (publish.lua)
-- ARGV[1] the side asking   ARGV[2] the new game's id ('' when only offering)
-- ARGV[3] channel stem      ARGV[4] game id   ARGV[5] '1': the opponent (the bot) agrees
-- Returns {'offered'} | {'agreed', id} | {'exists', id} | {'wait'} (the other side has
-- offered: call again with a new game's id) | {'err', code} ('rematch_declined': the
-- other side declined this side's offer, rematch_decline.lua, so it may not offer again)
local st = redis.call('HMGET', KEYS[1], 'status', 'rematch', 'rematch_offer', 'rematch_declined')
if not st[1] then return {'err', 'not_found'} end
if st[1] ~= 'ended' then return {'err', 'game_not_over'} end
if st[2] and st[2] ~= '' then return {'exists', st[2]} end
local offer = st[3] or ''
if ARGV[5] == '1' and ARGV[2] ~= '' then offer = 'bot' end
if offer == '' or offer == ARGV[1] then
  if st[4] and st[4] ~= '' and st[4] ~= ARGV[1] then return {'err', 'rematch_declined'} end
  redis.call('HSET', KEYS[1], 'rematch_offer', ARGV[1])
  publish(KEYS[2], ARGV[3], '0 ' .. cmsgpack.pack({t = 'rematch', game = ARGV[4], offer = ARGV[1]}), '')
  return {'offered'}
end
if ARGV[2] == '' then return {'wait'} end
redis.call('HSET', KEYS[1], 'rematch', ARGV[2], 'rematch_offer', '')
publish(KEYS[2], ARGV[3], '0 ' .. cmsgpack.pack({t = 'rematch', game = ARGV[4], next = ARGV[2]}), '')
return {'agreed', ARGV[2]}
