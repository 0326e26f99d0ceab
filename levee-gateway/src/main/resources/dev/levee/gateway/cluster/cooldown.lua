-- Starts or extends a rate-limit cooldown with the max rule: the new end is
-- max(current end, now + stated wait); a cooldown is never shortened.
-- KEYS[1] the cooldown key (its time to live is the time left)
-- ARGV[1] stated wait in ms, ARGV[2] channel, ARGV[3] invalidation message
-- returns the ms left after the call
local left = redis.call('PTTL', KEYS[1])
local want = tonumber(ARGV[1])
if left >= want then return left end
redis.call('SET', KEYS[1], '1', 'PX', want)
redis.call('PUBLISH', ARGV[2], ARGV[3])
return want
