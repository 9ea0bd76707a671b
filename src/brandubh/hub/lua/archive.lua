-- Archive a finished game and, when it is rated, update both players' ratings: exactly
-- once per game, whoever calls and however often (the guard is the game's entry in the
-- archive hash). Python computed the new ratings (Glicko-2, brandubh/ratings.py) from the
-- ratings it read; each player's game count is the version: if either changed meanwhile
-- (another game of theirs was rated first), nothing is written and the caller retries.
--
-- KEYS[1] archive hash (game id -> summary)   KEYS[2] the rule set's leaderboard zset
-- then four keys per player i = 1..P, from KEYS[3 + 4(i-1)]:
--   finished-games zset, account hash, rating hash, rating history list
-- ARGV[1] game id   ARGV[2] summary (JSON)   ARGV[3] when it ended (ms)
-- ARGV[4] P (0 to 2)   ARGV[5] '1' if rated   ARGV[6] the RD from which a rating is
-- provisional   ARGV[7] how long a guest's game list lives (ms)   ARGV[8] history kept
-- then six values per player, from ARGV[9 + 6(i-1)]:
--   player id, games rated so far (the version read), new rating, new RD, new volatility,
--   '1' for a guest
-- Returns {'ok'} | {'dup'} (already archived) | {'retry'} (a rating changed meanwhile)
local game = ARGV[1]
if redis.call('HEXISTS', KEYS[1], game) == 1 then return {'dup'} end
local players = tonumber(ARGV[4])
local rated = ARGV[5] == '1'
if rated then
  for i = 1, players do
    local n = redis.call('HGET', KEYS[3 + 4 * (i - 1) + 2], 'n') or '0'
    if n ~= ARGV[9 + 6 * (i - 1) + 1] then return {'retry'} end
  end
end
local ended = ARGV[3]
redis.call('HSET', KEYS[1], game, ARGV[2])
for i = 1, players do
  local k = 3 + 4 * (i - 1)
  local a = 9 + 6 * (i - 1)
  local pid = ARGV[a]
  redis.call('ZADD', KEYS[k], tonumber(ended), game)
  if ARGV[a + 5] == '1' then redis.call('PEXPIRE', KEYS[k], tonumber(ARGV[7])) end
  if rated then
    local n = tonumber(ARGV[a + 1]) + 1
    redis.call('HSET', KEYS[k + 2], 'r', ARGV[a + 2], 'rd', ARGV[a + 3], 'vol', ARGV[a + 4],
      'n', tostring(n), 'last', ended)
    redis.call('RPUSH', KEYS[k + 3], ended .. '|' .. ARGV[a + 2] .. '|' .. ARGV[a + 3] .. '|' .. game)
    redis.call('LTRIM', KEYS[k + 3], -tonumber(ARGV[8]), -1)
    if redis.call('HGET', KEYS[k + 1], 'leaderboard') == '1'
        and tonumber(ARGV[a + 3]) < tonumber(ARGV[6]) then
      redis.call('ZADD', KEYS[2], tonumber(ARGV[a + 2]), pid)
    else
      redis.call('ZREM', KEYS[2], pid)
    end
  end
end
return {'ok'}
