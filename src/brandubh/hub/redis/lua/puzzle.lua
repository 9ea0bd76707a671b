-- Move a player's puzzle attempt on only if nobody moved it since it was read
-- (hub/puzzles/service.py): two moves of one attempt sent at once change it once.
-- KEYS[1] keys.puzzle_attempt   ARGV[1] the attempt as read   ARGV[2] the attempt after
-- ARGV[3] its life (s)
-- Returns 1 (changed) | 0 (it had changed meanwhile: nothing written)
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
return 1
