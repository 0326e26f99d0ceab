-- Drain order: priority, then age, then a batch's own request order (its jobs share one created_at).
DROP INDEX jobs_ready;
CREATE INDEX jobs_ready ON jobs (state, priority DESC, created_at, position, id);
