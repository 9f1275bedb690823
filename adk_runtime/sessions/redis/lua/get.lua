-- Read a session in one consistent snapshot (read_session in prelude.lua). num_recent_events=k
-- costs O(k) (LRANGE -k -1); after_timestamp costs O(log n + m) to find the m matching events
-- in the timestamp index plus one LRANGE over the span from the oldest match to the newest
-- (about m when timestamps grow with history, up to n when an old event carries a late
-- timestamp).
-- count: number of recent events (-1 = all); after: after_timestamp ('' = none); since: only
-- the events after this revision (-1 = no such bound; count and after are then ignored).
-- Returns false when the session does not exist, else
-- {{rev, ctime, mtime, nonce}, state pairs, app pairs, user pairs, events}.

return read_session({meta_key, state_key, events_key, event_times_key, app_state_key,
                     user_state_key}, count, after, since)
