-- Append one event to a session, atomically (see service.py for the key layout).
-- KEYS: 1 meta, 2 state, 3 events, 4 event ids, 5 event times,
--       6 app state, 7 user state, 8 user index, 9 app index
-- ARGV: 1 event id, 2 expected revision, 3 event JSON, 4 event timestamp,
--       5 expiry (ms, 0 = none), 6 session id, 7 app index member,
--       8/9/10 number of session/app/user state pairs, 11.. the pairs (field, JSON value)
-- Returns {'dup', seq, stored event, mtime} | {'missing'} | {'stale'} | {'ok', seq, mtime}.
-- Every check runs before the first write: an error can never leave half an append.

local seq = redis.call('HGET', KEYS[4], ARGV[1])
if seq then
  return {'dup', seq, redis.call('LINDEX', KEYS[3], tonumber(seq) - 1),
          redis.call('HGET', KEYS[1], 'mtime')}
end
local meta = redis.call('HMGET', KEYS[1], 'rev', 'mtime')
if not meta[1] then
  return {'missing'}
end
if meta[1] ~= ARGV[2] then
  return {'stale'}
end

local time = redis.call('TIME')
local now = time[1] .. '.' .. string.format('%06d', time[2])
if tonumber(meta[2]) > tonumber(now) then
  now = meta[2]
end
local rev = tostring(tonumber(meta[1]) + 1)

local function hset_pairs(key, first, count)
  local last = first + 2 * count - 1
  local i = first
  while i <= last do
    local stop = math.min(i + 199, last)
    redis.call('HSET', key, unpack(ARGV, i, stop))
    i = stop + 1
  end
  return last + 1
end

redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[4], ARGV[1], rev)
redis.call('ZADD', KEYS[5], ARGV[4], rev)
local next_arg = hset_pairs(KEYS[2], 11, tonumber(ARGV[8]))
next_arg = hset_pairs(KEYS[6], next_arg, tonumber(ARGV[9]))
hset_pairs(KEYS[7], next_arg, tonumber(ARGV[10]))
redis.call('HSET', KEYS[1], 'rev', rev, 'mtime', now)
redis.call('ZADD', KEYS[8], now, ARGV[6])
redis.call('ZADD', KEYS[9], now, ARGV[7])

local ttl = tonumber(ARGV[5])
if ttl > 0 then
  local deadline = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + ttl
  for i = 1, 5 do
    redis.call('PEXPIREAT', KEYS[i], deadline)
  end
end
return {'ok', rev, now}
