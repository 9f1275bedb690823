-- Create a session, atomically (see _keys.py for the key layout).
-- creation: the creation state (meta field 'init', JSON object text), '' when unknown.
-- From ARGV[rest]: the (field, JSON value) pairs of the session, app and user state, then
-- event_count triples (id, timestamp, JSON): the events the session holds from the start
-- (an import), sequences 1..event_count; their deltas are not applied.
-- Returns {'exists'} or {'ok', {rev, ctime, mtime, nonce}, state pairs, app pairs, user pairs}.
-- A retry of the same call (same nonce) after a lost reply finds its own session and
-- returns 'ok' again.

local function snapshot()
  return {'ok', redis.call('HMGET', meta_key, 'rev', 'ctime', 'mtime', 'nonce'),
          redis.call('HGETALL', state_key), redis.call('HGETALL', app_state_key),
          redis.call('HGETALL', user_state_key)}
end

local holder = session_at(meta_key, nonce, ack_key, ack_ms)
if holder == 'own' then
  return snapshot()
elseif holder then
  return {'exists'}
end

local own_keys = {meta_key, state_key, events_key, event_ids_key, event_times_key}
local time, now = start_session(own_keys, event_count, nonce, creation)
local next_arg = hset_pairs(state_key, rest, session_pairs)
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
expire_session(own_keys, ttl_ms, time_ms(time) + ttl_ms)
return snapshot()
