-- A player's conditional moves (live/conditional.py): store them against the position
-- they were checked at, or drop a queued reply that turned out moot.
-- KEYS[1] game hash
-- 'store': KEYS[2] the player's tree (keys.conditional)   ARGV[2] the ply the lines start
--          at   ARGV[3] the tree as JSON, '' to clear it
--   Stored only if the game is still active at that ply (Python checked the lines against
--   it): otherwise {'err', 'game_not_active' | 'stale_ply', what it is}.
-- 'done':  KEYS[2] the conditional-reply job zset (keys.conditional_jobs)   ARGV[2] the ply
--          the worker found the game at   ARGV[3] the game's id
--   The job goes only if the game is still at that ply (or gone): a move since may have
--   queued a new reply, which must stay.
-- Returns {'ok'} | {'err', code, detail}
local st = redis.call('HMGET', KEYS[1], 'status', 'ply')
if ARGV[1] == 'store' then
  if st[1] ~= 'active' then return {'err', 'game_not_active', st[1] or ''} end
  if st[2] ~= ARGV[2] then return {'err', 'stale_ply', st[2] or ''} end
  if ARGV[3] == '' then
    redis.call('DEL', KEYS[2])
  else
    redis.call('SET', KEYS[2], ARGV[3])
  end
  return {'ok'}
end
if not st[1] or st[2] == ARGV[2] then redis.call('ZREM', KEYS[2], ARGV[3]) end
return {'ok'}
