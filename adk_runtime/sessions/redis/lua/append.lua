-- Append one event to a session, atomically (see _keys.py for the key layout).
-- incarnation: the create call's nonce the caller's object came from ('' = not checked);
-- fence: the caller's claim token ('' = written without a claim); release: '1' to release
-- that claim and close the open invocation with this commit (a turn's last event), as
-- claim.lua's 'finish' does; from ARGV[rest]: the
-- (field, JSON value) pairs of the session, app and user deltas.
-- Returns {'dup', seq, stored event, mtime} | {'missing'} | {'recreated'} | {'lost'}
-- | {'busy', ms the other claim still holds} | {'stale'} | {'ok', seq, mtime}.
-- Every check runs before the first write: an error can never leave half an append.

local meta = redis.call('HMGET', meta_key, 'rev', 'mtime', 'nonce', 'ctok', 'cuntil')
if not meta[1] then
  return {'missing'}
end
if incarnation ~= '' and meta[3] ~= incarnation then
  return {'recreated'}
end
local seq, stored = stored_event(event_ids_key, events_key, event_id)
if seq then
  mark_replicated(ack_key, ack_ms)
  return {'dup', seq, stored, meta[2]}
end
local time = redis.call('TIME')
local lease_until = tonumber(meta[5] or '0')
if fence ~= '' then
  if (meta[4] or '0') ~= fence then
    return {'lost'}
  end
else
  local held_ms = lease_until - time_ms(time)
  if held_ms > 0 then
    return {'busy', tostring(held_ms)}
  end
end
if meta[1] ~= expected_revision then
  return {'stale'}
end

local rev, now = store_event(
  {meta_key, events_key, event_ids_key, event_times_key, state_key, app_state_key,
   user_state_key, user_index_key, app_index_key},
  meta[1], meta[2], time, {event_id, event_json, timestamp}, rest,
  {session_pairs, app_pairs, user_pairs}, session_id, app_member)
if release == '1' then
  redis.call('HSET', meta_key, 'cuntil', '0')
  redis.call('HDEL', meta_key, 'inv', 'invat')
  redis.call('ZREM', open_index_key, app_member)
  lease_until = 0
end
-- a TTL after this write, and never before the lease of the claim holding it ends
local own_keys = {meta_key, state_key, events_key, event_ids_key, event_times_key}
expire_session(own_keys, ttl_ms, math.max(time_ms(time) + ttl_ms, lease_until))
return {'ok', rev, now}
