-- Not a script of its own: scripts.py puts this before the scripts that take seeks off the
-- lobby (seek_add.lua for the expired ones, seek_take.lua). A seek leaves its three keys
-- and its owner's list of seeks at once.
-- seeks: the seeks zset   data: the seek data hash   expiry: the live seeks' expiry zset
-- owned: the owned hash (player -> 'id id ...')
local function remove_seek(seeks, data, expiry, owned, id)
  local raw = redis.call('HGET', data, id)
  redis.call('HDEL', data, id)
  redis.call('ZREM', seeks, id)
  redis.call('ZREM', expiry, id)
  if raw then
    local owner = cmsgpack.unpack(raw).player
    local kept = {}
    for s in string.gmatch(redis.call('HGET', owned, owner) or '', '%S+') do
      if s ~= id then kept[#kept + 1] = s end
    end
    if #kept == 0 then redis.call('HDEL', owned, owner)
    else redis.call('HSET', owned, owner, table.concat(kept, ' ')) end
  end
end

