-- A match game's result. ARGV[1] the match's id  ARGV[2] its game that ended  ARGV[3] the
-- result  ARGV[4] "1" when the match is decided with it  ARGV[5] the result event.
-- Returns {"ok", "recorded" or "dup", matches in play}.
if not tournament() then return {'err', 'not_found'} end
local m = record(games, ARGV[1])
if not m then return {'err', 'not_found'} end
if m.results[ARGV[2]] then return {'ok', 'dup', playing()} end
local known = false
for _, gid in ipairs(m.games) do known = known or gid == ARGV[2] end
if not known then return {'race'} end
m.results[ARGV[2]] = ARGV[3]
append(ARGV[5])
if ARGV[4] == '1' then
  m.done = 1
  for _, side in ipairs({m.a, m.b}) do
    local p = record(players, side)
    if p and p.game == ARGV[1] then
      p.game = ''
      save(players, side, p)
    end
  end
end
save(games, ARGV[1], m)
bump()
return {'ok', 'recorded', playing()}
