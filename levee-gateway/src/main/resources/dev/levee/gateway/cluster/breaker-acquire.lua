-- Asks for the one half-open trial of a target, across every replica.
-- KEYS[1] the breaker hash
-- ARGV[1] trial lease in ms (a replica that dies mid-trial frees the slot after it)
-- ARGV[2] the hash's time to live in ms
-- returns {code, ms, epoch}: 0 CLOSED (admit as a normal call), 1 OPEN (ms left),
-- 3 trial slot taken (ms left of its lease), 4 this caller holds the trial; then, for 4, the
-- trial's token (its lease's end, Redis ms), which its outcome must present (breaker-settle.lua)
local h = redis.call('HMGET', KEYS[1], 'state', 'until', 'epoch', 'trial')
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = h[1] or 'C'
local epoch = tonumber(h[3] or '0')
if state == 'C' then return {0, 0, epoch} end
if state == 'O' then
  local untilMs = tonumber(h[2])
  if now < untilMs then return {1, untilMs - now, epoch} end
  epoch = epoch + 1
  redis.call('HSET', KEYS[1], 'state', 'H', 'epoch', epoch, 'succ', 0, 'trial', 0)
else
  local trial = tonumber(h[4] or '0')
  if trial > now then return {3, trial - now, epoch} end
end
local token = now + tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'trial', token)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {4, 0, epoch, token}
