-- ARGV[1] a game's (or match's) id: its game was created.
local g = record(games, ARGV[1])
if not g then return {'race'} end
if g.made ~= 1 then
  g.made = 1
  save(games, ARGV[1], g)
end
return {'ok'}
