-- The operator's listing (GET /admin/jobs): newest first, paged by (created_at, id).
CREATE INDEX jobs_listed ON jobs (created_at, id);
