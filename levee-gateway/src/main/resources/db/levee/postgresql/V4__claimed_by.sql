-- The replica that holds a running job's claim (queue.replica-id; null when none is configured): a
-- restarted replica queues its own earlier claims again at start-up instead of waiting out their lease.
ALTER TABLE jobs ADD COLUMN claimed_by TEXT;
