-- Delete a session: its own keys and its listing entries; app and user state stay.
-- Arguments are bound by name below; _protocol.py builds them in this order (a test checks).
-- idle_before: '' deletes unconditionally (delete_session); otherwise (pruning) the session is
-- deleted only if its last write (its score in the user's listing index, seconds) is before
-- this time and no turn holds it (its claim's lease, 'cuntil' in ms by this server's clock,
-- has run out). Returns 1 when it deleted the session, 0 when it kept it.

local meta_key = KEYS[1]
local state_key = KEYS[2]
local events_key = KEYS[3]
local event_ids_key = KEYS[4]
local event_times_key = KEYS[5]
local user_index_key = KEYS[6]
local app_index_key = KEYS[7]
local open_index_key = KEYS[8]
local ack_key = KEYS[9]

local session_id = ARGV[1]
local app_member = ARGV[2]
local idle_before = ARGV[3]
local ack_ms = tonumber(ARGV[4])

-- ack_ms > 0 (wait_replicas): a reply that wrote nothing (a retry finding its work done)
-- still makes one replicated write, the marker, so the WAIT after the script covers the state
-- the reply reports (see _replicas.py).
local function mark_replicated()
  if ack_ms > 0 then
    redis.call('SET', ack_key, '1', 'PX', ack_ms)
  end
end

if idle_before ~= '' then
  local updated = redis.call('ZSCORE', user_index_key, session_id)
  if not updated or tonumber(updated) >= tonumber(idle_before) then
    return 0
  end
  local held_until = tonumber(redis.call('HGET', meta_key, 'cuntil') or '0')
  local time = redis.call('TIME')
  local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  if held_until > now_ms then
    return 0
  end
end

local removed = redis.call('DEL', meta_key, state_key, events_key, event_ids_key, event_times_key)
  + redis.call('ZREM', user_index_key, session_id)
  + redis.call('ZREM', app_index_key, app_member)
  + redis.call('ZREM', open_index_key, app_member)
if removed == 0 then
  mark_replicated()  -- already gone (a retry): the earlier delete is what the reply reports
end
return 1
