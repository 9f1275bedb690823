-- Fork a session: a new session holding the first `copied` events of the source and the
-- given session state, atomically (see adk_runtime/sessions/fork.py and service.py).
-- Arguments are bound by name below; _protocol.py builds them in this order (a test checks).
-- source_nonce: the source's incarnation as read; copied: how many events to copy;
-- creation: the fork's creation state (meta field 'init'); then
-- ARGV holds state_pairs (field, JSON value) pairs, then the copied events' ids in order.
-- Returns {'ok'} | {'missing'} (no source, another incarnation, or fewer events) |
--         {'exists'} (the new key is taken).

local source_meta_key = KEYS[1]
local source_events_key = KEYS[2]
local source_event_times_key = KEYS[3]
local meta_key = KEYS[4]
local state_key = KEYS[5]
local events_key = KEYS[6]
local event_ids_key = KEYS[7]
local event_times_key = KEYS[8]
local user_index_key = KEYS[9]
local app_index_key = KEYS[10]
local ack_key = KEYS[11]

local source_nonce = ARGV[1]
local copied = tonumber(ARGV[2])
local ttl_ms = tonumber(ARGV[3])
local session_id = ARGV[4]
local app_member = ARGV[5]
local nonce = ARGV[6]
local state_pairs = tonumber(ARGV[7])
local creation = ARGV[8]
local ack_ms = tonumber(ARGV[9])
local first_pair = 10

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
    return {'ok'}  -- a retry of this very call after a lost reply
  end
  return {'exists'}
end
local source = redis.call('HMGET', source_meta_key, 'rev', 'nonce')
if not source[1] or (source_nonce ~= '' and source[2] ~= source_nonce)
    or tonumber(source[1]) < copied then
  return {'missing'}
end

local time = redis.call('TIME')
local now = time[1] .. '.' .. string.format('%06d', time[2])

-- Leftovers of an expired session must not leak into the new one.
redis.call('DEL', state_key, events_key, event_ids_key, event_times_key)
redis.call('HSET', meta_key, 'rev', tostring(copied), 'ctime', now, 'mtime', now, 'nonce', nonce)
if creation ~= '' then
  redis.call('HSET', meta_key, 'init', creation)
else
  redis.call('HDEL', meta_key, 'init')
end
local first_id = first_pair + 2 * state_pairs
local i = first_pair
while i < first_id do
  local stop = math.min(i + 199, first_id - 1)
  redis.call('HSET', state_key, unpack(ARGV, i, stop))
  i = stop + 1
end
if copied > 0 then
  local payloads = redis.call('LRANGE', source_events_key, 0, copied - 1)
  for start = 1, #payloads, 200 do
    redis.call('RPUSH', events_key, unpack(payloads, start, math.min(start + 199, #payloads)))
  end
  for n = 1, copied do
    redis.call('HSET', event_ids_key, ARGV[first_id + n - 1], tostring(n))
  end
  local times = redis.call('ZRANGE', source_event_times_key, 0, -1, 'WITHSCORES')
  for t = 1, #times, 2 do
    if tonumber(times[t]) <= copied then
      redis.call('ZADD', event_times_key, times[t + 1], times[t])
    end
  end
end
redis.call('ZADD', user_index_key, now, session_id)
redis.call('ZADD', app_index_key, now, app_member)

if ttl_ms > 0 then
  local deadline = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + ttl_ms
  for _, key in ipairs({meta_key, state_key, events_key, event_ids_key, event_times_key}) do
    redis.call('PEXPIREAT', key, deadline)
  end
end
return {'ok'}
