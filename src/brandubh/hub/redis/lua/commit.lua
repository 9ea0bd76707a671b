-- The one commit path: every change to a live game goes through this script -- moves,
-- draw offers and answers, takebacks, resignations, aborts, timeouts, bot moves, deadline changes.
-- Python has already validated the change with the engine against the state at
-- expected_seq; this re-checks, in order, that nothing moved since, then writes the
-- new fields, appends the numbered event, publishes it (SPUBLISH, as "<n> <frame>", on
-- the channel of each hub that follows the game but the committing one: publish.lua)
-- and updates the deadline and bot indexes -- all or nothing. Check order (docs/architecture.md): a Bot API move's token (KEYS[15..17]), resend, status,
-- ply, turn, deadline, a claim's absence, version: otherwise a harmless resend reads as "not your turn". Redis's TIME is the one clock.
--
-- KEYS[1] game hash   KEYS[2] event list   KEYS[3] ack hash   KEYS[4] bot job zset
-- KEYS[5] deadline zset   KEYS[6] finished-games zset (to archive and rate: endings.py)
-- KEYS[7] the set of hubs that follow the game (fanout.py)
-- KEYS[8] moves string   KEYS[9] repetitions hash (keys.moves, keys.repetitions)
-- KEYS[10], KEYS[11] the attacker's and the defender's conditional moves (keys.conditional)
-- KEYS[12] the conditional-reply job zset (keys.conditional_jobs)
-- KEYS[13] presence zset  KEYS[14] gone hash (keys.presence, keys.gone: lua/presence.lua;
--          a move sets its player's gone time, if any, to now)
-- KEYS[15], KEYS[16], KEYS[17] (a Bot API move on one Redis; absent otherwise) its token's
--          rate window, revoked mark and account's bot mark (keys.api_requests,
--          keys.api_revoked, keys.api_bot): lua/token_check.lua's check, done before
--          anything else, so that the move costs one call (hub/tokens/service.py, spend)
-- ARGV[1] a msgpack map (commit.py builds it):
--   actor, id      the actor's id; the client message id ('' for none)
--   fp             what the message asked for; an id reused for another action is refused
--   status         the status the game must have ('active', or 'waiting' for a join)
--   ply            the ply it must be at (absent: not checked)
--   seq            the event number it must be at
--   turn           true if the actor must be the player on turn
--   check          deadline check: '' none, 'before' (not passed), 'after' (passed: a timeout)
--   change         deadline change: '' leave, 'set' (now + ms), 'at' (ms), 'del' (none)
--   ms             milliseconds for change
--   bot            bot job: '' leave, 'add' queue the game, 'del' drop it
--   game, channel  the game's id and the stem of its hubs' channels (keys.game_channel_stem)
--   hub            the committing hub's id when it hands the event to its own sockets
--                  itself; '' when it relies on pub/sub for them too
--   stamp          a move: when it reached the hub (ms, Redis clock as the hub estimates
--                  it); absent for none. A move stamped by its deadline is in time even if
--                  this runs after it, unless the stamp is older than max_age ms
--   safe           a timeout: the last time (ms) that may be judged, since no hub can
--                  still hold an uncommitted move stamped at or before it (clock.py,
--                  Marks.safe); a deadline after it is not passed yet
--   fields         the fields to write: an array of name, value, ...
--   placeholder    the 9 bytes that stand for the new deadline in the frame (absent: none;
--                  the contract is live/events.py's docstring)
--   archive_after  when this change ends the game: after how many ms a sweep may take it
--                  from KEYS[6] (the live path usually does first); absent otherwise
--   append         a move: its text and a space, appended to KEYS[8]; absent otherwise
--   rep            a move: the new position's hash (decimal), counted in KEYS[9]; with
--   rep_reset      true when the move changed the piece count: older positions cannot
--                  come round again, so the counts start afresh
--   cond           a move in a correspondence game: the id of the player on turn after
--                  it. Each stored tree of conditional moves (live/conditional.py) keeps
--                  the lines that begin with this move, less it, or goes; a tree left
--                  whose owner is on turn is marked due and its game queued in KEYS[12]
--   absent         a claim (changes.claim): the opponent's id; the claim holds only if
--                  none of their sockets follows the game and they have been gone for
--   grace          ms, counted from when they went or, if later, from
--   after          the end of the last recorded outage of the service (ms), or from now if
--   beat, gap      the schedulers' last heartbeat (ms) is more than gap ms old: an outage
--                  not yet recorded (docs/fair-play.md §Outages)
--   moves_all, reps_all  a game stored before KEYS[8] and KEYS[9] existed (its moves in
--                  the hash, its recent positions in the snapshot): what they hold before
--                  this change (moves, each followed by a space; hash, count, ...)
--                  A takeback: what they hold after it (the moves that remain, the
--                  counts of their positions since the piece count last changed), with
--   back_to        the ply the game goes back to: both players' conditional moves go
--                  (and the game's reply job), and so do the acks of moves at that ply or
--                  later, so that a message id made from a ply (the bot's, a conditional
--                  reply's, the Bot API's) can play that ply again
--   token_window, token_nonce, token_most   with KEYS[15..17]: token_check's window (ms),
--                  the request's nonce and the most requests a window (0: no limit)
-- ARGV[2] the event frame (msgpack)
--
-- Returns {'ok', n, deadline} | {'dup', n} | {'err', code, detail} | {'retry'}; with the
-- token's keys, token_check's reply when it refused the request, nothing of the game
-- changed ({-1, 0, bot} revoked | {1, ms to wait, bot} window full), else {0, 0, bot, the
-- commit's reply}: a request counted stays counted whatever the commit answers.

local function commit(p)
  local actor, msg_id = p.actor, p.id
  if msg_id ~= '' then
    local prev = redis.call('HGET', KEYS[3], actor .. ':' .. msg_id)
    if prev then
      local sep = string.find(prev, ':', 1, true)
      if sep and string.sub(prev, sep + 1) ~= p.fp then return {'err', 'id_reused', ''} end
      return {'dup', sep and string.sub(prev, 1, sep - 1) or prev}
    end
  end

  local st = redis.call('HMGET', KEYS[1], 'status', 'ply', 'seq', 'turn', 'deadline')
  if not st[1] then return {'err', 'not_found', ''} end
  if st[1] ~= p.status then return {'err', 'wrong_status', st[1]} end
  if p.ply ~= nil and st[2] ~= tostring(p.ply) then return {'err', 'stale_ply', st[2]} end
  if p.turn and st[4] ~= actor then return {'err', 'not_your_turn', st[4] or ''} end

  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  local deadline = tonumber(st[5] or '0') or 0
  if p.check == 'before' and deadline > 0 and now > deadline then
    local stamped = p.stamp and p.stamp <= deadline and now - p.stamp <= p.max_age
    if not stamped then return {'err', 'deadline_passed', tostring(deadline)} end
  end
  if p.check == 'after' and (deadline == 0 or now <= deadline or (p.safe and p.safe < deadline)) then
    return {'err', 'deadline_not_passed', tostring(deadline)}
  end
  if p.absent then
    for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[13], now, '+inf')) do
      if string.match(m, '^[^|]*|(.*)$') == p.absent then return {'err', 'opponent_back', ''} end
    end
    local since = tonumber(redis.call('HGET', KEYS[14], p.absent) or '')
    if not since then  -- gone with a hub that died, not yet noticed: when their entries ran out
      local z = redis.call('ZRANGE', KEYS[13], 0, -1, 'WITHSCORES')
      for i = 1, #z, 2 do
        if string.match(z[i], '^[^|]*|(.*)$') == p.absent then
          since = math.max(since or 0, tonumber(z[i + 1]))
        end
      end
    end
    if not since then return {'err', 'opponent_back', 'never'} end
    local from = math.max(since, p.after)
    if now - p.beat > p.gap then from = now end
    if now - from < p.grace then
      return {'err', 'claim_too_soon', tostring(from + p.grace - now)}
    end
  end
  if st[3] ~= tostring(p.seq) then return {'retry'} end

  local frame = ARGV[2]
  if p.change == 'set' then
    deadline = now + p.ms
  elseif p.change == 'at' then
    deadline = p.ms
  elseif p.change == 'del' then
    deadline = 0
  end
  if p.placeholder then
    -- The deadline over the placeholder, as a msgpack uint64 (0xcf kept, 8 bytes
    -- big-endian): only this script knows the time (live/events.py owns the contract).
    local bytes = {}
    local v = deadline
    for i = 8, 1, -1 do
      bytes[i] = string.char(v % 256)
      v = math.floor(v / 256)
    end
    local at = string.find(frame, p.placeholder, 1, true)
    if not at then return {'err', 'internal', 'deadline placeholder missing'} end
    frame = string.sub(frame, 1, at) .. table.concat(bytes) .. string.sub(frame, at + 9)
  end

  local n = tonumber(st[3]) + 1
  local fields = {'seq', tostring(n), 'updated', tostring(now)}
  if p.change ~= '' then
    fields[#fields + 1] = 'deadline'
    fields[#fields + 1] = tostring(deadline)
    fields[#fields + 1] = 'deadline_set'
    fields[#fields + 1] = tostring(now)
  end
  for _, v in ipairs(p.fields) do fields[#fields + 1] = v end
  redis.call('HSET', KEYS[1], unpack(fields))
  -- A waiting game expires unless joined (games.py, WAITING_TTL_S): a join makes it last.
  if p.status == 'waiting' then
    redis.call('PERSIST', KEYS[1])
    redis.call('PERSIST', KEYS[9])
  end
  redis.call('RPUSH', KEYS[2], frame)
  if p.moves_all then
    redis.call('SET', KEYS[8], p.moves_all)
    redis.call('HDEL', KEYS[1], 'moves')
  end
  if p.reps_all then
    redis.call('DEL', KEYS[9])
    if #p.reps_all > 0 then redis.call('HSET', KEYS[9], unpack(p.reps_all)) end
  end
  if p.append then redis.call('APPEND', KEYS[8], p.append) end
  if p.back_to then
    redis.call('DEL', KEYS[10], KEYS[11])
    redis.call('ZREM', KEYS[12], p.game)
    local acks = redis.call('HGETALL', KEYS[3])
    for i = 1, #acks, 2 do
      local ply = string.match(acks[i + 1], '^%d+:move:(%d+):')
      if ply and tonumber(ply) >= p.back_to then redis.call('HDEL', KEYS[3], acks[i]) end
    end
  end
  -- A move is presence, from whatever socket it came (one that does not follow the game
  -- counts in KEYS[13] for nothing): a player marked gone was here now, and a claim against
  -- them counts its grace from this move. (Never marked gone: no claim holds anyway.)
  if p.append and redis.call('HEXISTS', KEYS[14], actor) == 1 then
    redis.call('HSET', KEYS[14], actor, now)
  end
  if p.rep then
    if p.rep_reset then redis.call('DEL', KEYS[9]) end
    redis.call('HINCRBY', KEYS[9], p.rep, 1)
  end
  if msg_id ~= '' then redis.call('HSET', KEYS[3], actor .. ':' .. msg_id, n .. ':' .. p.fp) end
  if p.change == 'set' or p.change == 'at' then
    redis.call('ZADD', KEYS[5], deadline, p.game)
  elseif p.change == 'del' then
    redis.call('ZREM', KEYS[5], p.game)
  end
  if p.bot == 'add' then
    redis.call('ZADD', KEYS[4], now, p.game)
  elseif p.bot == 'del' then
    redis.call('ZREM', KEYS[4], p.game)
  end
  if p.archive_after then redis.call('ZADD', KEYS[6], now + p.archive_after, p.game) end
  if p.cond then
    -- Here, not after the commit, so a hub that dies in between loses no reply and no
    -- prune: the answer is queued with the move that calls for it, once.
    redis.call('ZREM', KEYS[12], p.game)
    local played = string.sub(p.append, 1, -2)
    for k = 10, 11 do
      local raw = redis.call('GET', KEYS[k])
      if raw then
        local tree = cjson.decode(raw)
        local kept = {}
        if tree.ply == p.ply then
          for _, line in ipairs(tree.lines) do
            if line[1] == played and #line > 1 then
              table.remove(line, 1)
              kept[#kept + 1] = line
            end
          end
        end
        if #kept == 0 or p.archive_after then
          redis.call('DEL', KEYS[k])
        else
          tree.ply = p.ply + 1
          tree.lines = kept
          tree.due = tree.player == p.cond
          redis.call('SET', KEYS[k], cjson.encode(tree))
          if tree.due then redis.call('ZADD', KEYS[12], now, p.game) end
        end
      end
    end
  end
  -- The final change: what only a game in play needs goes with it (presence.lua keeps
  -- the gone hash short from now on).
  if p.archive_after then redis.call('DEL', KEYS[10], KEYS[11], KEYS[14]) end
  -- Only hubs that follow the game hear it; the committing one delivers to its own sockets.
  publish(KEYS[7], p.channel, n .. ' ' .. frame, p.hub, now)
  return {'ok', n, tostring(deadline)}
end

local p = cmsgpack.unpack(ARGV[1])
if not p.token_window then return commit(p) end
local checked =
  token_check(KEYS[15], KEYS[16], KEYS[17], p.token_window, p.token_nonce, p.token_most)
if checked[1] ~= 0 then return checked end
checked[4] = commit(p)
return checked
