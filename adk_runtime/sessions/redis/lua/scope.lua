-- Merge keys into the app state or one user's state, atomically (an import's state lines).
-- From ARGV[rest]: the pairs (field, JSON value). App and user state never expire.
-- Returns 'ok'.

hset_pairs(state_key, rest, (#ARGV - rest + 1) / 2)
return 'ok'
