-- The purge of ended work (JobStore.purge, every ten queue.poll): the batches created before the
-- retention by age, and whether any request of one is still open (queued, running, or owing its
-- callback) from the open requests only. Without these every purge read the whole batches table to
-- find none old enough, and each batch it found through all its requests (up to 100,000).
CREATE INDEX batches_by_age ON batches (created_at);
CREATE INDEX jobs_open_by_batch ON jobs (batch_id)
  WHERE state IN ('queued', 'running') OR COALESCE(callback_state, '') = 'pending';
-- The jobs in no batch by age: the planner takes jobs_by_batch for batch_id IS NULL over
-- jobs_listed, and read every job in no batch of the retention each purge; with batch_id first it
-- takes this one and reads only those old enough. (PostgreSQL reads jobs_listed.)
CREATE INDEX jobs_unbatched_by_age ON jobs (batch_id, created_at) WHERE batch_id IS NULL;
