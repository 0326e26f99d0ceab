-- Callbacks of queued interactive requests: where the answer goes, and whether it got there.
ALTER TABLE jobs ADD COLUMN callback_url TEXT;
ALTER TABLE jobs ADD COLUMN callback_state TEXT;
ALTER TABLE jobs ADD COLUMN callback_attempts INTEGER NOT NULL DEFAULT 0;
