-- A turn's start in one step (TurnStart in adk_runtime/sessions/claims.py): claim the
-- session if its last claim was released (or it was never claimed), as claim.lua's
-- 'acquire' does with token, lease_ms and mark; read it as it is (read_session: count,
-- after, since; with since >= 0, a session whose nonce is not `identity` is read whole);
-- then commit the turn's message (event_id '' = none), as append.lua does, under the claim.
-- Returns {'missing'} | {'busy'} (held, or left unreleased: the usual steps, nothing
-- written) | {'ok', open invocation or '', the read (get.lua's reply), the message's
-- commit: {} (none) | {'ok', seq, mtime} | {'dup', seq, stored event, mtime}}.

local meta = redis.call('HMGET', meta_key, 'rev', 'cuntil', 'inv', 'mtime', 'nonce')
if not meta[1] then
  return {'missing'}
end
if tonumber(meta[2] or '0') > 0 then
  return {'busy'}
end
if since >= 0 and meta[5] ~= identity then
  since = 0
end
local read = read_session({meta_key, state_key, events_key, event_times_key, app_state_key,
                           user_state_key}, count, after, since)
local time = redis.call('TIME')
local now_ms = time_ms(time)
redis.call('HSET', meta_key, 'ctok', token, 'cuntil', tostring(now_ms + lease_ms), 'ctook', '0')
local open = meta[3] or ''
if mark ~= '' then
  redis.call('HSET', meta_key, 'inv', mark, 'invat', tostring(now_ms))
  redis.call('ZADD', open_index_key, 0, app_member)
  open = mark
end
local idle_deadline = math.floor(tonumber(meta[4]) * 1000) + ttl_ms
local commit = {}
if event_id ~= '' then
  local seq, stored = stored_event(event_ids_key, events_key, event_id)
  if seq then
    commit = {'dup', seq, stored, meta[4]}
  else
    local rev, stored_at = store_event(
      {meta_key, events_key, event_ids_key, event_times_key, state_key, app_state_key,
       user_state_key, user_index_key, app_index_key},
      meta[1], meta[4], time, {event_id, event_json, timestamp}, rest,
      {session_pairs, app_pairs, user_pairs}, session_id, app_member)
    commit = {'ok', rev, stored_at}
    idle_deadline = now_ms + ttl_ms
  end
end
local own_keys = {meta_key, state_key, events_key, event_ids_key, event_times_key}
expire_session(own_keys, ttl_ms, math.max(idle_deadline, now_ms + lease_ms))
return {'ok', open, read, commit}
