-- Takes or renews a lease: true for its holder only.
-- KEYS[1] the lease key; ARGV[1] this replica's id, ARGV[2] lease in ms
-- returns 1 when the caller held the lease and renewed it (it was the caller's without a break),
-- 2 when the caller took it now (it was free: never taken, run out, or Redis lost it), else 0
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 2
