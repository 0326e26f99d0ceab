-- Reads a feature's tiers in one round trip: the decided tier, the forced tier and the force's
-- time left (its key's time to live), so every replica shows the end of a force set on another,
-- and the decided tier's cause (tier-publish.lua), so every replica gives the holder's.
-- KEYS[1] the decided-tier key, KEYS[2] the forced-tier key, KEYS[3] the decided tier's cause key
-- returns {decided or '', forced or '', ms left on the force ('0' when there is none), cause or ''}
local decided = redis.call('GET', KEYS[1]) or ''
local cause = redis.call('GET', KEYS[3]) or ''
local forced = redis.call('GET', KEYS[2])
if not forced then return {decided, '', '0', cause} end
return {decided, forced, tostring(math.max(0, redis.call('PTTL', KEYS[2]))), cause}
