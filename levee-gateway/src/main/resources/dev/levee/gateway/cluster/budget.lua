-- One retry budget (token bucket) shared by every replica. Earned tokens are added one success
-- at a time (as RetryBudget does), capped at max; a retry needs one whole token.
-- A missing key is a full bucket (soft state: Redis restarting empty refills it).
-- KEYS[1] the bucket
-- ARGV: 1 max, 2 ratio, 3 successes to credit, 4 retry wanted (1/0), 5 ttl ms
-- returns {granted (1/0), tokens left as a string}
local max = tonumber(ARGV[1])
local ratio = tonumber(ARGV[2])
local tokens = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
if ratio > 0 then
  for _ = 1, tonumber(ARGV[3]) do
    if tokens >= max then break end
    tokens = math.min(max, tokens + ratio)
  end
end
local granted = 0
if ARGV[4] == '1' and tokens >= 1 then
  tokens = tokens - 1
  granted = 1
end
local text = string.format('%.17g', tokens)
redis.call('SET', KEYS[1], text, 'PX', ARGV[5])
return {granted, text}
