-- Reads a feature's tiers in one round trip: the decided tier, the forced tier and the force's
-- time left (its key's time to live), so every replica shows the end of a force set on another.
-- KEYS[1] the decided-tier key, KEYS[2] the forced-tier key
-- returns {decided or '', forced or '', ms left on the force ('0' when there is none)}
local decided = redis.call('GET', KEYS[1]) or ''
local forced = redis.call('GET', KEYS[2])
if not forced then return {decided, '', '0'} end
return {decided, forced, tostring(math.max(0, redis.call('PTTL', KEYS[2])))}
