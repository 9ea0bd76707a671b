-- Not a script of its own: scripts.py puts this before each script that publishes about
-- a game (scripts.PUBLISHING). What concerns a game goes to the channel of each hub that
-- follows it, so a hub hears only the games it holds sockets for, once each.
-- hubs: the game's set of hubs (keys.game_hubs; an entry whose time ran out is a hub
-- gone: lua/member.lua)   stem: keys.game_channel_stem
-- skip: a hub not to tell ('' for none): the committing hub delivers to its own sockets
-- now: the script's Redis time (ms) if it has read it already; nil reads it here
local function publish(hubs, stem, message, skip, now)
  if not now then
    local t = redis.call('TIME')
    now = t[1] * 1000 + math.floor(t[2] / 1000)
  end
  for _, hub in ipairs(redis.call('ZRANGEBYSCORE', hubs, now, '+inf')) do
    if hub ~= skip then redis.call('SPUBLISH', stem .. hub, message) end
  end
end

