-- The callbacks still owed (OwedCallbacks: claim and pending), oldest ended job first. Only pending
-- rows are indexed, so a sweep reads the few callbacks owed, not the weeks of finished jobs that owe
-- none (or were delivered, or given up).
CREATE INDEX jobs_callbacks_owed ON jobs (finished_at, id) WHERE callback_state = 'pending';
