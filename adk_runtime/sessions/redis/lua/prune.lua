-- Drop the listing entries of a session whose keys expired (only if it is really gone).
-- KEYS: 1 meta, 2 user index, 3 app index
-- ARGV: 1 session id, 2 app index member
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[2])
return 1
