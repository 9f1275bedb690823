-- Merge keys into the app state or one user's state, atomically (an import's state lines).
-- Arguments are bound by name below; _protocol.py builds them in this order (a test checks).
-- ARGV holds the pairs (field, JSON value). App and user state never expire. Returns 'ok'.

local state_key = KEYS[1]

local i = 1
while i <= #ARGV do
  local stop = math.min(i + 199, #ARGV)
  redis.call('HSET', state_key, unpack(ARGV, i, stop))
  i = stop + 1
end
return 'ok'
