-- Read a live game at one instant: its hash, its moves and its repetition counts, so that
-- no commit falls between them (the state is built from all three: live/state.py).
-- KEYS[1] game hash   KEYS[2] moves string   KEYS[3] repetitions hash
-- KEYS[4] (optional) the acks hash (ARGV[1] 'ack', ARGV[2] the ack's field) or the seed
-- (ARGV[1] 'seed')
-- Returns {hash as name, value, ...; moves ('' for none); repetitions as hash, count, ...;
-- the ack or seed (nil for none)}
local extra = false
if KEYS[4] then
  if ARGV[1] == 'ack' then
    extra = redis.call('HGET', KEYS[4], ARGV[2])
  else
    extra = redis.call('GET', KEYS[4])
  end
end
return {redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2]) or '',
  redis.call('HGETALL', KEYS[3]), extra}
