-- Delete a session: its own keys and its listing entries; app and user state stay.
-- KEYS: 1 meta, 2 state, 3 events, 4 event ids, 5 event times, 6 user index, 7 app index
-- ARGV: 1 session id, 2 app index member
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call('ZREM', KEYS[6], ARGV[1])
redis.call('ZREM', KEYS[7], ARGV[2])
return 1
