-- A game of a match was created. ARGV[1] the match's id  ARGV[2] the game's id
-- ARGV[3] its attacker  ARGV[4] its defender  ARGV[5] the game event.
if not tournament() then return {'err', 'not_found'} end
local m = record(games, ARGV[1])
if not m then return {'err', 'not_found'} end
for _, gid in ipairs(m.games) do
  if gid == ARGV[2] then return {'ok', 'dup'} end
end
m.games[#m.games + 1] = ARGV[2]
m.sides[ARGV[2]] = {ARGV[3], ARGV[4]}
save(games, ARGV[1], m)
append(ARGV[5])
bump()
return {'ok', 'logged'}
