-- A session's turn claim (see adk_runtime/sessions/claims.py), one atomic step.
-- Fields of the session's meta hash: 'ctok' (the latest claim's fencing token), 'cuntil'
-- (when its lease runs out, in ms by this server's clock; 0 or absent when released), 'ctook'
-- (the took_over its acquisition answered, for a retry of it), and the
-- open invocation: 'inv' (its id) and 'invat' (when it started, ms). The app's open index (a
-- sorted set, all scores 0, members 'user:session' escaped) lists the sessions with an 'inv'.
-- token: the caller's claim; for 'acquire', the new claim's token (drawn by the caller, never
-- reused: see claims.py). mark: '' or the invocation to record as open; member: the
-- session's open-index member.
-- op 'acquire': {'ok', token, took_over, open invocation or ''} |
--                {'held', ms the current claim still holds} | {'missing'}; took_over is '1'
--                when the previous claim ran out unreleased (then its 'inv' stays); an
--                acquire whose token is already the unreleased 'ctok' is a retry of that one
--                (a lost reply): the same answer, never 'held'
-- op 'extend':  {'ok', token} | {'lost'} | {'missing'}   (records mark when given)
-- op 'release': {'ok', token}; op 'finish': the same, and the open invocation is cleared
-- Idle expiry (ttl_ms > 0): a held session is never idle. Taking or renewing the claim makes
-- the session's own keys live at least until its lease ends (or a TTL after its last write,
-- if later); a release sets them back to a TTL after the last write, as if no turn had held
-- it (a past deadline deletes them).

local own_keys = {meta_key, state_key, events_key, event_ids_key, event_times_key}
local meta = redis.call('HMGET', meta_key, 'rev', 'ctok', 'cuntil', 'inv', 'mtime', 'ctook')
if not meta[1] then
  return {'missing'}
end
local now_ms = time_ms(redis.call('TIME'))
local current = meta[2] or '0'
local idle_deadline = math.floor(tonumber(meta[5] or '0') * 1000) + ttl_ms

local function set_open()
  redis.call('HSET', meta_key, 'inv', mark, 'invat', tostring(now_ms))
  redis.call('ZADD', open_index_key, 0, member)
end

if op == 'acquire' then
  if current == token and tonumber(meta[3] or '0') > 0 then
    -- A retry of this very acquisition (its reply was lost): the first answer, lease restarted.
    redis.call('HSET', meta_key, 'cuntil', tostring(now_ms + lease_ms))
    expire_session(own_keys, ttl_ms, math.max(idle_deadline, now_ms + lease_ms))
    return {'ok', token, meta[6] or '0', meta[4] or ''}
  end
  local held_ms = tonumber(meta[3] or '0') - now_ms
  if held_ms > 0 then
    return {'held', tostring(held_ms)}
  end
  local took_over = '0'
  if tonumber(meta[3] or '0') > 0 then
    took_over = '1'
  end
  redis.call('HSET', meta_key, 'ctok', token, 'cuntil', tostring(now_ms + lease_ms), 'ctook', took_over)
  expire_session(own_keys, ttl_ms, math.max(idle_deadline, now_ms + lease_ms))
  local open = meta[4] or ''
  if mark ~= '' and not (took_over == '1' and open ~= '') then
    set_open()
    open = mark
  end
  return {'ok', token, took_over, open}
end
if current ~= token then
  if op == 'extend' then
    return {'lost'}
  end
  -- released already (or taken over since): nothing left to write
  mark_replicated(ack_key, ack_ms)
  return {'ok', current}
end
if op == 'extend' then
  redis.call('HSET', meta_key, 'cuntil', tostring(now_ms + lease_ms))
  if mark ~= '' then
    set_open()
  end
  expire_session(own_keys, ttl_ms, math.max(idle_deadline, now_ms + lease_ms))
else
  redis.call('HSET', meta_key, 'cuntil', '0')
  if op == 'finish' then
    redis.call('HDEL', meta_key, 'inv', 'invat')
    redis.call('ZREM', open_index_key, member)
  end
  expire_session(own_keys, ttl_ms, idle_deadline)
end
return {'ok', token}
