-- Delete a session: its own keys and its listing entries; app and user state stay.
-- idle_before: '' deletes unconditionally (delete_session); otherwise (pruning) the session is
-- deleted only if its last write (its score in the user's listing index, seconds) is before
-- this time and no turn holds it (its claim's lease, 'cuntil' in ms by this server's clock,
-- has run out). Returns 1 when it deleted the session, 0 when it kept it.

if idle_before ~= '' then
  local updated = redis.call('ZSCORE', user_index_key, session_id)
  if not updated or tonumber(updated) >= tonumber(idle_before) then
    return 0
  end
  local held_until = tonumber(redis.call('HGET', meta_key, 'cuntil') or '0')
  if held_until > time_ms(redis.call('TIME')) then
    return 0
  end
end

local removed = redis.call('DEL', meta_key, state_key, events_key, event_ids_key, event_times_key)
  + redis.call('ZREM', user_index_key, session_id)
  + redis.call('ZREM', app_index_key, app_member)
  + redis.call('ZREM', open_index_key, app_member)
if removed == 0 then
  -- already gone (a retry): the earlier delete is what the reply reports
  mark_replicated(ack_key, ack_ms)
end
return 1
