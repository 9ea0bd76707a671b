-- Decline the opponent's rematch offer after the end: the offer closes, the side that
-- declined is recorded (its offerer may not offer again: rematch.lua), and everyone
-- following the ended game hears it at once, as a notice on its sharded channel
-- ("0 <frame>"), like the offer itself. Not an event (nothing is applied to an ended game).
-- KEYS[1] game hash   KEYS[2] the game's set of hubs (publish.lua)   KEYS[3] ack hash
-- ARGV[1] the side declining   ARGV[2] channel stem   ARGV[3] game id
-- ARGV[4] '<player>:<client message id>': the decline is acked under it, so that only a
-- resend (the same id) is acked again; another decline finds no offer open
-- Returns {'declined'} | {'exists', id} (a rematch was agreed first) | {'err', code}
local st = redis.call('HMGET', KEYS[1], 'status', 'rematch', 'rematch_offer', 'rematch_declined')
if not st[1] then return {'err', 'not_found'} end
if st[1] ~= 'ended' then return {'err', 'game_not_over'} end
if st[2] and st[2] ~= '' then return {'exists', st[2]} end
-- (stored as commit.lua stores an ack, "<n>:<fingerprint>": a move reusing the id is id_reused)
local ACK = '0:decline_rematch'
if redis.call('HGET', KEYS[3], ARGV[4]) == ACK then return {'declined'} end -- a resend
local offer = st[3] or ''
if offer == '' or offer == ARGV[1] then return {'err', 'no_rematch_offer'} end
redis.call('HSET', KEYS[1], 'rematch_offer', '', 'rematch_declined', ARGV[1])
redis.call('HSET', KEYS[3], ARGV[4], ACK)
local ttl = redis.call('PTTL', KEYS[1]) -- archived already: the acks go with the game
if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
publish(KEYS[2], ARGV[2], '0 ' .. cmsgpack.pack({t = 'rematch', game = ARGV[3], declined = ARGV[1]}), '')
return {'declined'}
