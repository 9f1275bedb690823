-- The open invocations of an app (of one user, of one session): read through the app's open
-- index (a sorted set, all scores 0, members 'user:session' escaped, so a user's sessions
-- are one lexicographic range). Entries of sessions that are gone (deleted, expired) are
-- dropped from the index. The session keys derive from `base` (the app's key start, with its
-- hash tag): they share the app's slot, as every key of the app does.
-- user: '' (every user) or the escaped user id; session: '' or the escaped session id.
-- Returns {member, invocation id, started ms, status ('running'|'failed'|'crashed'),
-- lease ms left (0 unless running), ...}.

local members
if session ~= '' then
  members = {user .. ':' .. session}
elseif user ~= '' then
  members = redis.call('ZRANGE', open_index_key, '[' .. user .. ':', '(' .. user .. ';', 'BYLEX')
else
  members = redis.call('ZRANGE', open_index_key, '-', '+', 'BYLEX')
end
local now_ms = time_ms(redis.call('TIME'))
local found = {}
for _, member in ipairs(members) do
  local meta = redis.call('HMGET', base .. ':session:' .. member, 'rev', 'inv', 'invat', 'cuntil')
  if not meta[1] or not meta[2] then
    if session == '' then
      redis.call('ZREM', open_index_key, member)
    end
  else
    local until_ms = tonumber(meta[4] or '0')
    local status = 'crashed'
    local held_ms = 0
    if until_ms == 0 then
      status = 'failed'
    elseif until_ms > now_ms then
      status = 'running'
      held_ms = until_ms - now_ms
    end
    table.insert(found, member)
    table.insert(found, meta[2])
    table.insert(found, meta[3] or '0')
    table.insert(found, status)
    table.insert(found, held_ms)
  end
end
return found
