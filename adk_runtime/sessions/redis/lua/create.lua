-- Create a session, atomically (see service.py for the key layout).
-- Arguments are bound by name below; _protocol.py builds them in this order (a test checks).
-- Returns {'exists'} or {'ok', {rev, ctime, mtime}, state pairs, app pairs, user pairs}.
-- A retry of the same call (same nonce) after a lost reply finds its own session and
-- returns 'ok' again.

local meta_key = KEYS[1]
local state_key = KEYS[2]
local events_key = KEYS[3]
local event_ids_key = KEYS[4]
local event_times_key = KEYS[5]
local app_state_key = KEYS[6]
local user_state_key = KEYS[7]
local user_index_key = KEYS[8]
local app_index_key = KEYS[9]
local ack_key = KEYS[10]

local nonce = ARGV[1]
local ttl_ms = tonumber(ARGV[2])
local session_id = ARGV[3]
local app_member = ARGV[4]
local session_pairs = tonumber(ARGV[5])
local app_pairs = tonumber(ARGV[6])
local user_pairs = tonumber(ARGV[7])
local event_count = tonumber(ARGV[8])
-- creation: the creation state (meta field 'init', JSON object text), '' when unknown.
local creation = ARGV[9]
local ack_ms = tonumber(ARGV[10])
local first_pair = 11  -- then the pairs (field, JSON value): session, app, user
-- then event_count triples (id, timestamp, JSON): the events the session holds from the
-- start (an import), sequences 1..event_count; their deltas are not applied.

local function snapshot()
  return {'ok', redis.call('HMGET', meta_key, 'rev', 'ctime', 'mtime', 'nonce'),
          redis.call('HGETALL', state_key), redis.call('HGETALL', app_state_key),
          redis.call('HGETALL', user_state_key)}
end

-- ack_ms > 0 (wait_replicas): a reply that wrote nothing (a retry finding its work done)
-- still makes one replicated write, the marker, so the WAIT after the script covers the state
-- the reply reports (see _replicas.py).
local function mark_replicated()
  if ack_ms > 0 then
    redis.call('SET', ack_key, '1', 'PX', ack_ms)
  end
end

local existing = redis.call('HMGET', meta_key, 'nonce', 'ctime')
if existing[2] then
  mark_replicated()
  if existing[1] == nonce then
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
redis.call('DEL', state_key, events_key, event_ids_key, event_times_key)
redis.call('HSET', meta_key, 'rev', tostring(event_count), 'ctime', now, 'mtime', now,
           'nonce', nonce)
if creation ~= '' then
  redis.call('HSET', meta_key, 'init', creation)
else
  redis.call('HDEL', meta_key, 'init')
end
local next_arg = hset_pairs(state_key, first_pair, session_pairs)
next_arg = hset_pairs(app_state_key, next_arg, app_pairs)
next_arg = hset_pairs(user_state_key, next_arg, user_pairs)
for n = 1, event_count do
  local at = next_arg + 3 * (n - 1)
  redis.call('RPUSH', events_key, ARGV[at + 2])
  redis.call('HSET', event_ids_key, ARGV[at], tostring(n))
  redis.call('ZADD', event_times_key, ARGV[at + 1], tostring(n))
end
redis.call('ZADD', user_index_key, now, session_id)
redis.call('ZADD', app_index_key, now, app_member)

if ttl_ms > 0 then
  local deadline = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + ttl_ms
  for _, key in ipairs({meta_key, state_key, events_key, event_ids_key, event_times_key}) do
    redis.call('PEXPIREAT', key, deadline)
  end
end
return snapshot()
