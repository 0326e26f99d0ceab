-- Writes or lifts a forced tier and tells the other replicas, in one round trip.
-- KEYS[1] the forced-tier key; ARGV[1] the tier ('' lifts the force), ARGV[2] its time to live
-- in ms, ARGV[3] channel, ARGV[4] invalidation message
-- returns 1
if ARGV[1] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
