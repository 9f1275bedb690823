-- Read a session in one consistent snapshot. num_recent_events=k costs O(k) (LRANGE -k -1);
-- after_timestamp costs O(log n + m) to find the m matching events in the timestamp index plus
-- one LRANGE over the span from the oldest match to the newest (about m when timestamps grow
-- with history, up to n when an old event carries a late timestamp).
-- count: number of recent events (-1 = all); after: after_timestamp ('' = none); since: only
-- the events after this revision (-1 = no such bound; count and after are then ignored).
-- Returns false when the session does not exist, else
-- {{rev, ctime, mtime, nonce}, state pairs, app pairs, user pairs, events}.

local meta = redis.call('HMGET', meta_key, 'rev', 'ctime', 'mtime', 'nonce')
if not meta[1] then
  return false
end

local events
if since >= 0 then
  events = redis.call('LRANGE', events_key, since, -1)
elseif after == '' then
  if count < 0 then
    events = redis.call('LRANGE', events_key, 0, -1)
  elseif count == 0 then
    events = {}
  else
    events = redis.call('LRANGE', events_key, -count, -1)
  end
else
  -- O(log n + m) to find the m matching sequence numbers, then one LRANGE over the span
  -- from the oldest match to the newest.
  local found = redis.call('ZRANGEBYSCORE', event_times_key, after, '+inf')
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
    local span = redis.call('LRANGE', events_key, seqs[1] - 1, seqs[#seqs] - 1)
    for i, seq in ipairs(seqs) do
      events[i] = span[seq - seqs[1] + 1]
    end
  end
end

return {meta, redis.call('HGETALL', state_key), redis.call('HGETALL', app_state_key),
        redis.call('HGETALL', user_state_key), events}
