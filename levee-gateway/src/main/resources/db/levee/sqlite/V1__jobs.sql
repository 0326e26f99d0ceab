-- Levee's durable state: queued work (jobs), Message Batches, idempotency keys. Times are epoch ms.
CREATE TABLE batches (
  id                  TEXT PRIMARY KEY,
  tenant              TEXT NOT NULL,
  created_at          INTEGER NOT NULL,
  expires_at          INTEGER NOT NULL,
  cancel_initiated_at INTEGER,
  total               INTEGER NOT NULL
);
CREATE INDEX batches_by_tenant ON batches (tenant, created_at, id);

CREATE TABLE jobs (
  id              TEXT PRIMARY KEY,
  tenant          TEXT NOT NULL,
  feature         TEXT NOT NULL,
  alias           TEXT NOT NULL,
  priority        INTEGER NOT NULL,
  batch_id        TEXT REFERENCES batches (id) ON DELETE CASCADE,
  custom_id       TEXT,
  position        INTEGER NOT NULL DEFAULT 0,
  request_path    TEXT NOT NULL,
  request_query   TEXT,
  request_headers TEXT NOT NULL,
  request_body    BLOB NOT NULL,
  sealed_key      BLOB,
  state           TEXT NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  run_after       INTEGER NOT NULL,
  lease_until     INTEGER,
  finished_at     INTEGER,
  expires_at      INTEGER NOT NULL,
  result_status   INTEGER,
  result_headers  TEXT,
  result_body     BLOB,
  last_error      TEXT
);
CREATE INDEX jobs_ready ON jobs (state, priority DESC, created_at, id);
CREATE INDEX jobs_by_batch ON jobs (batch_id, position);

CREATE TABLE idempotency_keys (
  tenant         TEXT NOT NULL,
  idem_key       TEXT NOT NULL,
  fingerprint    TEXT NOT NULL,
  state          TEXT NOT NULL,
  lease_until    INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL,
  result_status  INTEGER,
  result_headers TEXT,
  result_body    BLOB,
  PRIMARY KEY (tenant, idem_key)
);
