-- Reads one target's shared breaker. Time is Redis's own clock (TIME), so replicas with skewed
-- clocks agree; the answer is relative (ms left), never an absolute instant.
-- KEYS[1] the breaker hash
-- returns {code, ms, epoch}: 0 CLOSED, 1 OPEN (ms left), 2 HALF_OPEN with the trial slot free,
-- 3 HALF_OPEN with the trial slot taken (ms left of its lease)
local h = redis.call('HMGET', KEYS[1], 'state', 'until', 'epoch', 'trial')
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = h[1] or 'C'
local epoch = tonumber(h[3] or '0')
if state == 'O' then
  local untilMs = tonumber(h[2])
  if now < untilMs then return {1, untilMs - now, epoch} end
  return {2, 0, epoch}
elseif state == 'H' then
  local trial = tonumber(h[4] or '0')
  if trial > now then return {3, trial - now, epoch} end
  return {2, 0, epoch}
end
return {0, 0, epoch}
