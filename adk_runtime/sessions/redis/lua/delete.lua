-- Delete a session: its own keys and its listing entries; app and user state stay.
-- Arguments are bound by name below; _protocol.py builds them in this order (a test checks).

local meta_key = KEYS[1]
local state_key = KEYS[2]
local events_key = KEYS[3]
local event_ids_key = KEYS[4]
local event_times_key = KEYS[5]
local user_index_key = KEYS[6]
local app_index_key = KEYS[7]

local session_id = ARGV[1]
local app_member = ARGV[2]

redis.call('DEL', meta_key, state_key, events_key, event_ids_key, event_times_key)
redis.call('ZREM', user_index_key, session_id)
redis.call('ZREM', app_index_key, app_member)
return 1
