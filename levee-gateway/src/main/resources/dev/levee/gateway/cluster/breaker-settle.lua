-- Settles one call of a target's shared breaker. Outcomes of calls admitted under an older epoch
-- are ignored (a slow call from before a transition cannot flip the state). Failures in CLOSED are
-- summed over all replicas inside the sliding window; reaching the threshold opens the circuit
-- when the settling replica's calls also fail at the configured rate.
-- KEYS[1] the breaker hash, KEYS[2] the failure times (sorted set, Redis ms)
-- ARGV: 1 epoch, 2 trial (1/0), 3 outcome (S/F/C), 4 failures, 5 window ms, 6 open-for ms,
--       7 close-after, 8 hash ttl ms, 9 channel, 10 invalidation message, 11 failure rate reached
--       by the settling replica's own calls (1/0): without it the count alone does not open,
--       12 the trial's token from breaker-acquire.lua (a trial only): an outcome whose trial no
--       longer holds the slot (settled already, or its lease ran out and another trial took it)
--       is ignored, so an outcome written again after a lost answer counts once,
--       13 the message published besides the invalidation when this outcome closes the circuit
--       (names the target and the epoch it closes into: every replica's tier board starts the
--       target's SLI window afresh, whichever replica's trial closed it)
-- returns 0 no transition, 1 closed, 2 opened, 3 trial slot freed
local epoch = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0')
if tonumber(ARGV[1]) ~= epoch then return 0 end
local state = redis.call('HGET', KEYS[1], 'state') or 'C'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function publish(code)
  redis.call('PEXPIRE', KEYS[1], ARGV[8])
  redis.call('PUBLISH', ARGV[9], ARGV[10])
  return code
end
local function open()
  redis.call('HSET', KEYS[1], 'state', 'O', 'until', now + tonumber(ARGV[6]), 'epoch', epoch + 1,
      'trial', 0, 'succ', 0)
  redis.call('DEL', KEYS[2])
  return publish(2)
end
if ARGV[2] == '1' then
  if state ~= 'H' then return 0 end
  if tonumber(redis.call('HGET', KEYS[1], 'trial') or '0') ~= tonumber(ARGV[12]) then return 0 end
  redis.call('HSET', KEYS[1], 'trial', 0)
  if ARGV[3] == 'F' then return open() end
  if ARGV[3] == 'S' and redis.call('HINCRBY', KEYS[1], 'succ', 1) >= tonumber(ARGV[7]) then
    redis.call('HSET', KEYS[1], 'state', 'C', 'epoch', epoch + 1, 'succ', 0)
    redis.call('DEL', KEYS[2])
    if ARGV[13] then redis.call('PUBLISH', ARGV[9], ARGV[13]) end
    return publish(1)
  end
  return publish(3)
end
if ARGV[3] ~= 'F' or state ~= 'C' then return 0 end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('ZADD', KEYS[2], now, seq)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. (now - tonumber(ARGV[5])))
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[8])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) and ARGV[11] == '1' then return open() end
return 0
