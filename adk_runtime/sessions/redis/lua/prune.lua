-- Drop the listing entries of a session whose keys expired (only if it is really gone).
-- Arguments are bound by name below; _protocol.py builds them in this order (a test checks).

local meta_key = KEYS[1]
local user_index_key = KEYS[2]
local app_index_key = KEYS[3]

local session_id = ARGV[1]
local app_member = ARGV[2]

if redis.call('EXISTS', meta_key) == 1 then
  return 0
end
redis.call('ZREM', user_index_key, session_id)
redis.call('ZREM', app_index_key, app_member)
return 1
