-- Create a game: write its fields, seed and first repetition count unless the id is taken.
-- KEYS[1] game hash   KEYS[2] seed key   KEYS[3] repetitions hash
-- ARGV[1] seed        ARGV[2] the start position's hash (decimal)   ARGV[3..] field, value pairs
-- Returns the creation time in ms (Redis clock), or false if the id exists.
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local fields = {'created', tostring(now)}
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('SET', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], ARGV[2], 1)
return now
