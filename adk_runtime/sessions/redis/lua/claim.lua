-- A session's turn claim (see adk_runtime/sessions/claims.py), one atomic step.
-- Fields of the session's meta hash: 'ctok' (the latest claim's fencing token) and 'cuntil'
-- (when its lease runs out, in ms by this server's clock; 0 or absent when released).
-- op 'acquire': {'ok', token, took_over} | {'held', ms the current claim still holds} |
--                {'missing'}; took_over is '1' when the previous claim ran out unreleased
-- op 'extend':  {'ok', token} | {'lost'} | {'missing'}
-- op 'release': {'ok', token}
-- Writing these fields keeps the keys' idle expiry (HSET keeps a key's TTL).

local meta_key = KEYS[1]

local op = ARGV[1]
local token = ARGV[2]
local lease_ms = tonumber(ARGV[3])

local meta = redis.call('HMGET', meta_key, 'rev', 'ctok', 'cuntil')
if not meta[1] then
  return {'missing'}
end
local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local current = meta[2] or '0'

if op == 'acquire' then
  local held_ms = tonumber(meta[3] or '0') - now_ms
  if held_ms > 0 then
    return {'held', tostring(held_ms)}
  end
  local took_over = '0'
  if tonumber(meta[3] or '0') > 0 then
    took_over = '1'
  end
  local next_token = tostring(tonumber(current) + 1)
  redis.call('HSET', meta_key, 'ctok', next_token, 'cuntil', tostring(now_ms + lease_ms))
  return {'ok', next_token, took_over}
end
if current ~= token then
  if op == 'extend' then
    return {'lost'}
  end
  return {'ok', current}
end
if op == 'extend' then
  redis.call('HSET', meta_key, 'cuntil', tostring(now_ms + lease_ms))
else
  redis.call('HSET', meta_key, 'cuntil', '0')
end
return {'ok', token}
