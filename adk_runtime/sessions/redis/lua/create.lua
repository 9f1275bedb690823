-- Create a session, atomically (see service.py for the key layout).
-- KEYS: 1 meta, 2 state, 3 events, 4 event ids, 5 event times,
--       6 app state, 7 user state, 8 user index, 9 app index
-- ARGV: 1 nonce of this call, 2 expiry (ms, 0 = none), 3 session id, 4 app index member,
--       5/6/7 number of session/app/user state pairs, 8.. the pairs (field, JSON value)
-- Returns {'exists'} or {'ok', {rev, ctime, mtime}, state pairs, app pairs, user pairs}.
-- A retry of the same call (same nonce) after a lost reply finds its own session and
-- returns 'ok' again.

local function snapshot()
  return {'ok', redis.call('HMGET', KEYS[1], 'rev', 'ctime', 'mtime'),
          redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[6]),
          redis.call('HGETALL', KEYS[7])}
end

local existing = redis.call('HMGET', KEYS[1], 'nonce', 'ctime')
if existing[2] then
  if existing[1] == ARGV[1] then
    return snapshot()
  end
  return {'exists'}
end

local time = redis.call('TIME')
local now = time[1] .. '.' .. string.format('%06d', time[2])

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

-- Leftovers of an expired session must not leak into the new one.
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call('HSET', KEYS[1], 'rev', '0', 'ctime', now, 'mtime', now, 'nonce', ARGV[1])
local next_arg = hset_pairs(KEYS[2], 8, tonumber(ARGV[5]))
next_arg = hset_pairs(KEYS[6], next_arg, tonumber(ARGV[6]))
hset_pairs(KEYS[7], next_arg, tonumber(ARGV[7]))
redis.call('ZADD', KEYS[8], now, ARGV[3])
redis.call('ZADD', KEYS[9], now, ARGV[4])

local ttl = tonumber(ARGV[2])
if ttl > 0 then
  local deadline = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + ttl
  for i = 1, 5 do
    redis.call('PEXPIREAT', KEYS[i], deadline)
  end
end
return snapshot()
