-- One page of a listing index (a sorted set scored by update time), newest first.
-- KEYS: 1 index
-- ARGV: 1 how many entries (-1 = all), 2 score of the last entry already returned
--       ('' = first page)
-- Returns flat {member, score, ...}. With a cursor it also returns the entries that tie with
-- the cursor's score; the caller drops those at or before the cursor (members are compared
-- bytewise in Python, never with Lua's locale-dependent string order).

local count = tonumber(ARGV[1])
if ARGV[2] == '' then
  return redis.call('ZRANGE', KEYS[1], '+inf', '-inf', 'BYSCORE', 'REV',
                    'LIMIT', 0, count, 'WITHSCORES')
end
if count >= 0 then
  count = count + redis.call('ZCOUNT', KEYS[1], ARGV[2], ARGV[2])
end
return redis.call('ZRANGE', KEYS[1], ARGV[2], '-inf', 'BYSCORE', 'REV',
                  'LIMIT', 0, count, 'WITHSCORES')
