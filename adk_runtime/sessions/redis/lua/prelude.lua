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
