-- Read a session in one consistent snapshot.
-- KEYS: 1 meta, 2 state, 3 events, 4 event times, 5 app state, 6 user state
-- ARGV: 1 number of recent events (-1 = all), 2 after_timestamp ('' = none)
-- Returns false when the session does not exist, else
-- {{rev, ctime, mtime}, state pairs, app pairs, user pairs, events}.

local meta = redis.call('HMGET', KEYS[1], 'rev', 'ctime', 'mtime')
if not meta[1] then
  return false
end

local count = tonumber(ARGV[1])
local events
if ARGV[2] == '' then
  if count < 0 then
    events = redis.call('LRANGE', KEYS[3], 0, -1)
  elseif count == 0 then
    events = {}
  else
    events = redis.call('LRANGE', KEYS[3], -count, -1)
  end
else
  -- O(log n + m) to find the m matching sequence numbers, then one LRANGE over the span
  -- from the oldest match to the newest.
  local found = redis.call('ZRANGEBYSCORE', KEYS[4], ARGV[2], '+inf')
  local seqs = {}
  for i, member in ipairs(found) do
    seqs[i] = tonumber(member)
  end
  table.sort(seqs)
  if count >= 0 and #seqs > count then
    local kept = {}
    for i = #seqs - count + 1, #seqs do
      kept[#kept + 1] = seqs[i]
    end
    seqs = kept
  end
  events = {}
  if #seqs > 0 then
    local span = redis.call('LRANGE', KEYS[3], seqs[1] - 1, seqs[#seqs] - 1)
    for i, seq in ipairs(seqs) do
      events[i] = span[seq - seqs[1] + 1]
    end
  end
end

return {meta, redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[5]),
        redis.call('HGETALL', KEYS[6]), events}
