-- Who is posting each owed callback, and until when. A sender claims a pending callback before it
-- posts it (one UPDATE; FOR UPDATE SKIP LOCKED on PostgreSQL), so replicas polling at the same moment
-- never post the same one. callback_claim_until (epoch ms): no sender claims the callback before then
-- — the end of the claim's lease, or, after a failed try, the time of the next one; null: now.
-- A store made before this version keeps its pending callbacks, unclaimed and due.
ALTER TABLE jobs ADD COLUMN callback_claimed_by TEXT;
ALTER TABLE jobs ADD COLUMN callback_claim_until INTEGER;
