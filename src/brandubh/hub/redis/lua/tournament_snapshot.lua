-- A tournament read at one instant with its version, for its frames (hub/tournaments/
-- state.py, snapshot): the version counts the frames published about it (the hash's field
-- `version`, gone with the hash). ARGV[1] "1": bump it first (the runner, about to publish
-- this state as that version); "0": read it (a socket that starts to follow: the state read
-- is then the version's or a later one, never an earlier).
-- Returns false when Redis has no such tournament (no field is written to a hash gone),
-- else {version, the hash, its players, its games}, each hash as HGETALL's flat list.
if redis.call('EXISTS', hash) == 0 then return false end
local version
if ARGV[1] == '1' then
  version = redis.call('HINCRBY', hash, 'version', 1)
else
  version = tonumber(redis.call('HGET', hash, 'version') or '0')
end
return {version, redis.call('HGETALL', hash), redis.call('HGETALL', players),
  redis.call('HGETALL', games)}
