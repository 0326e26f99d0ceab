-- One retry budget (token bucket) shared by every replica. Earned tokens are added one success
-- at a time (as RetryBudget does), capped at max; a retry needs one whole token. A replica may
-- take several whole tokens at once (a lease) and give back the ones it did not spend.
-- A missing key is a full bucket (soft state: Redis restarting empty refills it).
-- KEYS[1] the bucket
-- ARGV: 1 max, 2 ratio, 3 successes to credit, 4 whole tokens wanted (0 = none), 5 ttl ms,
--       6 leased tokens given back
-- returns {tokens granted, tokens left as a string}
local max = tonumber(ARGV[1])
local ratio = tonumber(ARGV[2])
local tokens = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
tokens = math.min(max, tokens + tonumber(ARGV[6]))
if ratio > 0 then
  for _ = 1, tonumber(ARGV[3]) do
    if tokens >= max then break end
    tokens = math.min(max, tokens + ratio)
  end
end
local granted = 0
local wanted = tonumber(ARGV[4])
if wanted > 0 and tokens >= 1 then
  granted = math.min(wanted, math.floor(tokens))
  tokens = tokens - granted
end
local text = string.format('%.17g', tokens)
redis.call('SET', KEYS[1], text, 'PX', ARGV[5])
return {granted, text}
