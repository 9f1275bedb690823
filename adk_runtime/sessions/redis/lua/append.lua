-- Append one event to a session, atomically (see service.py for the key layout).
-- Arguments are bound by name below; _protocol.py builds them in this order (a test checks).
-- Returns {'dup', seq, stored event, mtime} | {'missing'} | {'recreated'} | {'lost'}
-- | {'busy', ms the other claim still holds} | {'stale'} | {'ok', seq, mtime}.
-- Every check runs before the first write: an error can never leave half an append.

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

local event_id = ARGV[1]
local expected_revision = ARGV[2]
local event_json = ARGV[3]
local timestamp = ARGV[4]
local ttl_ms = tonumber(ARGV[5])
local session_id = ARGV[6]
local app_member = ARGV[7]
local session_pairs = tonumber(ARGV[8])
local app_pairs = tonumber(ARGV[9])
local user_pairs = tonumber(ARGV[10])
-- incarnation: the create call's nonce the caller's object came from ('' = not checked)
local incarnation = ARGV[11]
-- fence: the caller's claim token ('' = written without a claim)
local fence = ARGV[12]
local ack_ms = tonumber(ARGV[13])
local first_pair = 14  -- then the pairs (field, JSON value): session, app, user

-- ack_ms > 0 (wait_replicas): a reply that wrote nothing (a retry finding its work done)
-- still makes one replicated write, the marker, so the WAIT after the script covers the state
-- the reply reports (see _replicas.py).
local function mark_replicated()
  if ack_ms > 0 then
    redis.call('SET', ack_key, '1', 'PX', ack_ms)
  end
end

local meta = redis.call('HMGET', meta_key, 'rev', 'mtime', 'nonce', 'ctok', 'cuntil')
if not meta[1] then
  return {'missing'}
end
if incarnation ~= '' and meta[3] ~= incarnation then
  return {'recreated'}
end
local seq = redis.call('HGET', event_ids_key, event_id)
if seq then
  mark_replicated()
  return {'dup', seq, redis.call('LINDEX', events_key, tonumber(seq) - 1), meta[2]}
end
local time = redis.call('TIME')
if fence ~= '' then
  if (meta[4] or '0') ~= fence then
    return {'lost'}
  end
else
  local held_ms = tonumber(meta[5] or '0') - (tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
  if held_ms > 0 then
    return {'busy', tostring(held_ms)}
  end
end
if meta[1] ~= expected_revision then
  return {'stale'}
end

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

redis.call('RPUSH', events_key, event_json)
redis.call('HSET', event_ids_key, event_id, rev)
redis.call('ZADD', event_times_key, timestamp, rev)
local next_arg = hset_pairs(state_key, first_pair, session_pairs)
next_arg = hset_pairs(app_state_key, next_arg, app_pairs)
hset_pairs(user_state_key, next_arg, user_pairs)
redis.call('HSET', meta_key, 'rev', rev, 'mtime', now)
redis.call('ZADD', user_index_key, now, session_id)
redis.call('ZADD', app_index_key, now, app_member)

if ttl_ms > 0 then
  -- a TTL after this write, and never before the lease of the claim holding it ends
  local deadline = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + ttl_ms
  deadline = math.max(deadline, tonumber(meta[5] or '0'))
  for _, key in ipairs({meta_key, state_key, events_key, event_ids_key, event_times_key}) do
    redis.call('PEXPIREAT', key, deadline)
  end
end
return {'ok', rev, now}
