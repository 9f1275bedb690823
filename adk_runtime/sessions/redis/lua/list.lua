-- One page of a listing index (a sorted set scored by update time), newest first, with each
-- listed session's revision and state and the app/user state: one consistent snapshot.
-- The keys of the listed sessions are derived from `base` (the app's key start, with its hash
-- tag): they share the app's slot, as every key of the app does.
-- count: how many entries (-1 = all); after_score: score of the last entry already returned
-- ('' = first page), entries tying with it are returned too (the caller drops those at or
-- before its cursor, comparing members bytewise); user: the escaped user id of a user's
-- listing ('' = the app-wide listing, whose members are 'user:session', both escaped).
-- Entries of sessions whose keys expired (TTL) are dropped from both indexes.
-- Returns {app state pairs, {escaped user, user state pairs, ...}, entries read (flat member,
--          score, ...), {member, revision, nonce, state pairs, ...} of the live sessions among
--          them}.

local entries
if after_score == '' then
  entries = redis.call('ZRANGE', index_key, '+inf', '-inf', 'BYSCORE', 'REV',
                       'LIMIT', 0, count, 'WITHSCORES')
else
  if count >= 0 then
    count = count + redis.call('ZCOUNT', index_key, after_score, after_score)
  end
  entries = redis.call('ZRANGE', index_key, after_score, '-inf', 'BYSCORE', 'REV',
                       'LIMIT', 0, count, 'WITHSCORES')
end

local escapes = {['%'] = '%25', [':'] = '%3A', ['{'] = '%7B', ['}'] = '%7D'}
local unescapes = {['%25'] = '%', ['%3A'] = ':', ['%7B'] = '{', ['%7D'] = '}'}
local users = {}
local user_list = {}
local sessions = {}
for i = 1, #entries, 2 do
  local member = entries[i]
  local owner, session_part, session_id
  if user == '' then
    owner, session_part = string.match(member, '^([^:]*):(.*)$')
    session_id = string.gsub(session_part, '%%%x%x', unescapes)
  else
    owner, session_id = user, member
    session_part = string.gsub(member, '[%%:{}]', escapes)
  end
  local suffix = owner .. ':' .. session_part
  local meta = redis.call('HMGET', base .. ':session:' .. suffix, 'rev', 'nonce')
  local revision = meta[1]
  if revision then
    if not users[owner] then
      users[owner] = true
      user_list[#user_list + 1] = owner
      user_list[#user_list + 1] = redis.call('HGETALL', base .. ':user:' .. owner)
    end
    sessions[#sessions + 1] = member
    sessions[#sessions + 1] = revision
    sessions[#sessions + 1] = meta[2] or ''
    sessions[#sessions + 1] = redis.call('HGETALL', base .. ':state:' .. suffix)
  else
    redis.call('ZREM', base .. ':sessions:' .. owner, session_id)
    redis.call('ZREM', base .. ':sessions', suffix)
  end
end
return {redis.call('HGETALL', app_state_key), user_list, entries, sessions}
