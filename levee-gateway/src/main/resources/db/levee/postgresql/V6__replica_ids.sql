-- Who holds each queue.replica-id now: the live gateway process (a random instance id per start)
-- and when it last beat. A gateway starting with an id another live process holds refuses to
-- start, so two replicas never take back each other's running jobs as their own.
CREATE TABLE replica_ids (
  id TEXT PRIMARY KEY,
  instance TEXT NOT NULL,
  beat_at BIGINT NOT NULL
);
