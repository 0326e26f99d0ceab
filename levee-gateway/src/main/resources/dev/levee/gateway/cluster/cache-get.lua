-- Reads one answer of the shared response cache with its age (Redis's clock).
-- KEYS[1] the entry; returns {json, model, ttl ms, age ms} or an empty list
local h = redis.call('HMGET', KEYS[1], 'json', 'model', 'ttl', 'at')
if not h[1] then return {} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {h[1], h[2], h[3], tostring(now - tonumber(h[4]))}
