-- The purge of ended work (JobStore.purge, every ten queue.poll): the batches created before the
-- retention by age, and whether any request of one is still open (queued, running, or owing its
-- callback) from the open requests only. Without these every purge read the whole batches table to
-- find none old enough, and each batch it found through all its requests (up to 100,000). The jobs
-- in no batch are read through jobs_listed (created_at, id) here; SQLite's planner prefers
-- jobs_by_batch for batch_id IS NULL, so it has an index of its own for them.
CREATE INDEX batches_by_age ON batches (created_at);
CREATE INDEX jobs_open_by_batch ON jobs (batch_id)
  WHERE state IN ('queued', 'running') OR COALESCE(callback_state, '') = 'pending';
