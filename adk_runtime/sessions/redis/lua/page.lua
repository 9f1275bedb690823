-- One page of a listing index (a sorted set scored by update time), newest first.
-- Arguments are bound by name below; _protocol.py builds them in this order (a test checks).
-- count: how many entries (-1 = all); after_score: score of the last entry already returned
-- ('' = first page).
-- Returns flat {member, score, ...}. With a cursor it also returns the entries that tie with
-- the cursor's score; the caller drops those at or before the cursor (members are compared
-- bytewise in Python, never with Lua's locale-dependent string order).

local index_key = KEYS[1]

local count = tonumber(ARGV[1])
local after_score = ARGV[2]

if after_score == '' then
  return redis.call('ZRANGE', index_key, '+inf', '-inf', 'BYSCORE', 'REV',
                    'LIMIT', 0, count, 'WITHSCORES')
end
if count >= 0 then
  count = count + redis.call('ZCOUNT', index_key, after_score, after_score)
end
return redis.call('ZRANGE', index_key, after_score, '-inf', 'BYSCORE', 'REV',
                  'LIMIT', 0, count, 'WITHSCORES')
