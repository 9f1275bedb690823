-- The functions the scripts share, assembled into each script at load (see _scripts.py):
-- after the script's bindings, each function the script calls, then the script's own code.
-- A function takes what it touches as arguments: it never reads a script's bindings.

-- A TIME reply in milliseconds.
local function time_ms(time)
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- A TIME reply as the times of a session are stored: seconds with microseconds.
local function time_text(time)
  return time[1] .. '.' .. string.format('%06d', time[2])
end

-- HSET the `count` (field, value) pairs of ARGV that start at ARGV[first], 100 pairs a
-- command; returns the index of the ARGV entry after them.
local function hset_pairs(key, first, count)
  local last = first + 2 * count - 1
  local i = first
  while i <= last do
    local stop = math.min(i + 199, last)
    redis.call('HSET', key, unpack(ARGV, i, stop))
    i = stop + 1
  end
  return last + 1
end

-- ack_ms > 0 (wait_replicas): a reply that wrote nothing (a retry finding its work done)
-- still makes one replicated write, the marker, so the WAIT after the script covers the state
-- the reply reports (see _replicas.py).
local function mark_replicated(ack_key, ack_ms)
  if ack_ms > 0 then
    redis.call('SET', ack_key, '1', 'PX', ack_ms)
  end
end

-- Idle expiry (ttl_ms > 0): a session's own keys (meta, state, events, event ids, event
-- times) expire together at `deadline` (ms by this server's clock). HSET keeps a key's TTL.
local function expire_session(own_keys, ttl_ms, deadline)
  if ttl_ms > 0 then
    for _, key in ipairs(own_keys) do
      redis.call('PEXPIREAT', key, deadline)
    end
  end
end

-- Who holds the key of a new session: false (nobody), 'own' (the create call `nonce` made it:
-- a retry after a lost reply) or 'other'. When it is taken the call writes nothing, so it
-- sets the replication marker (see mark_replicated).
local function session_at(meta_key, nonce, ack_key, ack_ms)
  local existing = redis.call('HMGET', meta_key, 'nonce', 'ctime')
  if not existing[2] then
    return false
  end
  mark_replicated(ack_key, ack_ms)
  if existing[1] == nonce then
    return 'own'
  end
  return 'other'
end

-- Start a new session on its own keys, now by this server's clock: leftovers of an expired
-- session are removed, the meta hash holds revision `rev`, both times, the create call's
-- `nonce` and the creation state (meta field 'init', JSON object text; '' when unknown: no
-- 'init'). Returns the TIME reply and the time as stored.
local function start_session(own_keys, rev, nonce, creation)
  local time = redis.call('TIME')
  local now = time_text(time)
  local meta_key = own_keys[1]
  redis.call('DEL', own_keys[2], own_keys[3], own_keys[4], own_keys[5])
  redis.call('HSET', meta_key, 'rev', tostring(rev), 'ctime', now, 'mtime', now, 'nonce', nonce)
  if creation ~= '' then
    redis.call('HSET', meta_key, 'init', creation)
  else
    redis.call('HDEL', meta_key, 'init')
  end
  return time, now
end

-- A session as get.lua returns it, read in one snapshot: false when it does not exist, else
-- {{rev, ctime, mtime, nonce}, state pairs, app pairs, user pairs, events}. keys: meta,
-- state, events, event times, app state, user state. count: recent events (-1 = all);
-- after: after_timestamp ('' = none); since: only the events after this revision (-1 = no
-- such bound; count and after are then ignored).
local function read_session(keys, count, after, since)
  local meta = redis.call('HMGET', keys[1], 'rev', 'ctime', 'mtime', 'nonce')
  if not meta[1] then
    return false
  end
  local events_key = keys[3]
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
    local found = redis.call('ZRANGEBYSCORE', keys[4], after, '+inf')
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
  return {meta, redis.call('HGETALL', keys[2]), redis.call('HGETALL', keys[5]),
          redis.call('HGETALL', keys[6]), events}
end

-- The event stored under event_id: its sequence number and its JSON; nil when none is.
local function stored_event(event_ids_key, events_key, event_id)
  local seq = redis.call('HGET', event_ids_key, event_id)
  if not seq then
    return nil
  end
  return seq, redis.call('LINDEX', events_key, tonumber(seq) - 1)
end

-- Store an event as the session's next revision (its checks made): the event, its id and
-- time indexes, the state pairs of ARGV from `first` (`counts`: session, app, user pairs),
-- the revision, the update time (the server's `time`, never before the last one, `mtime`)
-- and the listing indexes. keys: meta, events, event ids, event times, state, app state,
-- user state, user index, app index. Returns the new revision and the update time stored.
local function store_event(keys, rev, mtime, time, event, first, counts, session_id, app_member)
  local now = time_text(time)
  if tonumber(mtime) > tonumber(now) then
    now = mtime
  end
  local new_rev = tostring(tonumber(rev) + 1)
  redis.call('RPUSH', keys[2], event[2])
  redis.call('HSET', keys[3], event[1], new_rev)
  redis.call('ZADD', keys[4], event[3], new_rev)
  local next_arg = hset_pairs(keys[5], first, counts[1])
  next_arg = hset_pairs(keys[6], next_arg, counts[2])
  hset_pairs(keys[7], next_arg, counts[3])
  redis.call('HSET', keys[1], 'rev', new_rev, 'mtime', now)
  redis.call('ZADD', keys[8], now, session_id)
  redis.call('ZADD', keys[9], now, app_member)
  return new_rev, now
end
