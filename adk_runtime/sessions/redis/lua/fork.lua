-- Fork a session: a new session holding the first `copied` events of the source and the
-- given session state, atomically (see adk_runtime/sessions/fork.py; keys: _keys.py).
-- source_nonce: the source's incarnation as read; copied: how many events to copy;
-- creation: the fork's creation state (meta field 'init'). From ARGV[rest]: state_pairs
-- (field, JSON value) pairs, then the copied events' ids in order.
-- Returns {'ok'} | {'missing'} (no source, another incarnation, or fewer events) |
--         {'exists'} (the new key is taken).

local holder = session_at(meta_key, nonce, ack_key, ack_ms)
if holder == 'own' then
  return {'ok'}  -- a retry of this very call after a lost reply
elseif holder then
  return {'exists'}
end
local source = redis.call('HMGET', source_meta_key, 'rev', 'nonce')
if not source[1] or (source_nonce ~= '' and source[2] ~= source_nonce)
    or tonumber(source[1]) < copied then
  return {'missing'}
end

local own_keys = {meta_key, state_key, events_key, event_ids_key, event_times_key}
local time, now = start_session(own_keys, copied, nonce, creation)
local first_id = hset_pairs(state_key, rest, state_pairs)
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
expire_session(own_keys, ttl_ms, time_ms(time) + ttl_ms)
return {'ok'}
