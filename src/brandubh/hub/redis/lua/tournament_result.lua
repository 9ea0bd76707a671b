-- An arena game's result. ARGV[1] the game's id  ARGV[2] attackers | defenders | draw |
-- aborted  ARGV[3] the result event. Returns {"ok", "recorded" or "dup", games in play}.
if not tournament() then return {'err', 'not_found'} end
local g = record(games, ARGV[1])
if not g then return {'err', 'not_found'} end
if g.result ~= '' then return {'ok', 'dup', playing()} end
g.result = ARGV[2]
g.ended = now
save(games, ARGV[1], g)
for _, side in ipairs({g.attackers, g.defenders}) do
  local p = record(players, side)
  if p and p.game == ARGV[1] then
    p.game = ''
    p.free = now
    save(players, side, p)
  end
end
append(ARGV[3])
bump()
return {'ok', 'recorded', playing()}
