-- A round of a round robin or Swiss. ARGV[1] the round's number (the previous one + 1)
-- ARGV[2] the bye ("" for none)  ARGV[3] the round event  ARGV[4..] a, b, decided ("1":
-- a withdrawn player's, decided without a game) of each pairing. Returns {"ok", the
-- matches' ids...} (<tournament>-r<round>-<board>).
local status = tournament()
if status ~= 'running' then return {'race'} end
local r = tonumber(redis.call('HGET', hash, 'round') or '0')
if r + 1 ~= tonumber(ARGV[1]) then return {'race'} end
r = r + 1
local tid = redis.call('HGET', hash, 'id')
local ids = {'ok'}
local board = 0
for i = 4, #ARGV, 3 do
  board = board + 1
  local mid = tid .. '-r' .. r .. '-' .. board
  local a, b, decided = ARGV[i], ARGV[i + 1], ARGV[i + 2] == '1'
  save(games, mid, {round = r, a = a, b = b, games = {}, sides = {}, results = {},
    done = decided and 1 or 0, made = decided and 1 or 0, at = now})
  if not decided then
    for _, side in ipairs({a, b}) do
      local p = record(players, side)
      p.game = mid
      save(players, side, p)
    end
  end
  ids[#ids + 1] = mid
end
if ARGV[2] ~= '' then
  board = board + 1
  save(games, tid .. '-r' .. r .. '-' .. board, {round = r, a = ARGV[2], b = '', games = {},
    sides = {}, results = {}, done = 1, made = 1, at = now})
end
redis.call('HSET', hash, 'round', r)
append(ARGV[3])
bump()
return ids
