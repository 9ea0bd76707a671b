-- Opt a player in to the leaderboards, or out: the flag on the account, and their entry
-- in every rule set's board (in only with a rating that is not provisional).
-- KEYS[1] account hash, then two keys per rule set: rating hash, leaderboard zset
-- ARGV[1] '1' in, '0' out   ARGV[2] the RD from which a rating is provisional
-- ARGV[3] player id
-- Returns 1, or 0 when there is no such account.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'leaderboard', ARGV[1])
for k = 2, #KEYS, 2 do
  local r = redis.call('HMGET', KEYS[k], 'r', 'rd')
  if ARGV[1] == '1' and r[1] and tonumber(r[2]) < tonumber(ARGV[2]) then
    redis.call('ZADD', KEYS[k + 1], tonumber(r[1]), ARGV[3])
  else
    redis.call('ZREM', KEYS[k + 1], ARGV[3])
  end
end
return 1
