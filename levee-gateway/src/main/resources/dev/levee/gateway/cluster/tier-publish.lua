-- Publishes a feature's decided tier. Only a change writes and notifies, so a transition is
-- posted once however many replicas (or lease holders in turn) publish the same tier.
-- KEYS[1] the decided-tier key; ARGV[1] tier, ARGV[2] channel, ARGV[3] invalidation message
-- returns the previous tier when this call changed it, else an empty string
local previous = redis.call('GET', KEYS[1]) or 'T0'
if previous == ARGV[1] then return '' end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return previous
