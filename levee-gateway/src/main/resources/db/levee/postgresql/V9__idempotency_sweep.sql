-- The sweep of idempotency keys (IdempotencyKeys.sweep, once a minute): answers past their TTL, and
-- in-flight keys past their lease (their gateway died). Clients choose the keys, so the table holds
-- a day of them; with these the sweep reads the rows it deletes, not the whole day.
CREATE INDEX idempotency_keys_expired ON idempotency_keys (expires_at) WHERE state = 'done';
CREATE INDEX idempotency_keys_abandoned ON idempotency_keys (lease_until) WHERE state = 'in_flight';
