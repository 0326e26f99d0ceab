-- Publishes a feature's decided tier, and why. Only a change notifies, so a transition is posted
-- once however many replicas (or lease holders in turn) publish the same tier. T0 is no key (what a
-- missing key reads as), so a scope back at T0 leaves nothing behind in Redis; a tier below T0
-- lives ARGV[4] ms unless published again (every evaluation renews it), and so does its cause.
-- The cause is written when the tier changes (the transition's reason; none when ARGV[5] is empty)
-- and kept otherwise: a new lease holder that adopted the tier keeps its predecessor's.
-- KEYS[1] the decided-tier key, KEYS[2] its cause key; ARGV[1] tier, ARGV[2] channel, ARGV[3]
-- invalidation message, ARGV[4] time to live of a tier below T0 in ms, ARGV[5] the cause or ''
-- returns the previous tier when this call changed it, else an empty string
local previous = redis.call('GET', KEYS[1]) or 'T0'
if ARGV[1] == 'T0' then
  redis.call('DEL', KEYS[1], KEYS[2]) -- also a 'T0' an earlier release wrote without a time to live
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
  if previous == ARGV[1] then
    redis.call('PEXPIRE', KEYS[2], ARGV[4])
  elseif ARGV[5] == '' then
    redis.call('DEL', KEYS[2])
  else
    redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[4])
  end
end
if previous == ARGV[1] then return '' end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return previous
