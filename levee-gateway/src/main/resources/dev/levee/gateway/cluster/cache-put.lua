-- Stores one answer of the shared response cache, kept for its TTL plus the max staleness.
-- KEYS[1] the entry; ARGV: 1 message JSON, 2 model, 3 ttl ms, 4 max staleness ms
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'json', ARGV[1], 'model', ARGV[2], 'ttl', ARGV[3], 'at', now)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + tonumber(ARGV[4]))
return 1
