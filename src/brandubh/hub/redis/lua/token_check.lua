-- Not a script of its own: scripts.py puts this before lua/api_request.lua and
-- lua/commit.lua (scripts.TOKEN_CHECKING). One request of a personal API token
-- (hub/tokens/service.py): refused when the token was revoked since a hub cached its
-- holder, else counted against the token's sliding rate window as lua/windows.lua counts
-- (nothing counted when it is full).
-- requests: the token's window   revoked: its revoked mark   bot: its account's bot mark
-- window (ms)   nonce: the request's member of the window (sent again, counted once)
-- most: requests a window (0: no limit)
-- Returns {-1, 0, bot} revoked | {1, ms until the window has room, bot} | {0, 0, bot} counted
-- (bot: 1 while the account's upgrade to a bot account is marked)
local function token_check(requests, revoked, bot_mark, window, nonce, most)
  local bot = redis.call('EXISTS', bot_mark)
  if redis.call('EXISTS', revoked) == 1 then return {-1, 0, bot} end
  if most <= 0 then return {0, 0, bot} end
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  redis.call('ZREMRANGEBYSCORE', requests, '-inf', now - window)
  if redis.call('ZCARD', requests) >= most then
    local oldest = redis.call('ZRANGE', requests, 0, 0, 'WITHSCORES')
    local wait = window
    if oldest[2] then wait = tonumber(oldest[2]) + window - now end
    return {1, math.max(wait, 1), bot}
  end
  redis.call('ZADD', requests, now, nonce)
  redis.call('PEXPIRE', requests, window)
  return {0, 0, bot}
end
