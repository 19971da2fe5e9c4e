-- Webhook deliveries join the one queue (docs/queue.md). webhook_deliveries stays the delivery
-- log (status, attempts, last answer, first_attempt_due); the queue holds the scheduling and
-- the leases. A job's lane is its endpoint: the webhook kind claims at most a few jobs of a
-- lane at once (one while the endpoint fails), so one slow or failing endpoint never holds
-- another's deliveries.
ALTER TABLE jobs ADD COLUMN lane text;
CREATE INDEX jobs_lane_due ON jobs (kind, lane, run_at, id) WHERE lane IS NOT NULL;
-- The jobs in flight of a kind, by lane: counted at every claim of a kind with lanes.
CREATE INDEX jobs_leased ON jobs (kind, lane) WHERE lease_until IS NOT NULL;

-- A pending delivery has a job; one queued again (resent, redelivered: pending with a fresh
-- window) moves its job's times; a delivered or failed one has none.
CREATE FUNCTION jobs_follow_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'pending' THEN
    INSERT INTO jobs (kind, ref, lane, run_at, first_due_at, attempts)
    VALUES ('webhook_delivery', NEW.id::text, NEW.endpoint_id::text, NEW.next_attempt_at, NEW.first_attempt_due,
            NEW.attempts)
    -- A fresh window (redelivered while still pending) is a fresh start: attempts from 0.
    ON CONFLICT (kind, ref) DO UPDATE SET run_at = EXCLUDED.run_at, first_due_at = EXCLUDED.first_due_at,
      attempts = CASE WHEN jobs.first_due_at <> EXCLUDED.first_due_at THEN EXCLUDED.attempts ELSE jobs.attempts END
      WHERE jobs.run_at <> EXCLUDED.run_at OR jobs.first_due_at <> EXCLUDED.first_due_at;
  ELSIF TG_OP = 'UPDATE' AND OLD.status = 'pending' THEN
    DELETE FROM jobs WHERE id IN (
      SELECT id FROM jobs WHERE kind = 'webhook_delivery' AND ref = NEW.id::text FOR UPDATE SKIP LOCKED);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER jobs_follow_webhook_deliveries
  AFTER INSERT OR UPDATE OF status, next_attempt_at, first_attempt_due ON webhook_deliveries
  FOR EACH ROW EXECUTE FUNCTION jobs_follow_webhook_deliveries();

CREATE TRIGGER jobs_forget_webhook_deliveries AFTER DELETE ON webhook_deliveries REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION jobs_forget_deleted('webhook_delivery');

-- Nothing pending is lost: each pending delivery moves into the queue with its attempts, its
-- due time, its retry window, and the lease it is under (an instance of the previous version
-- may be sending it right now).
INSERT INTO jobs (kind, ref, lane, run_at, first_due_at, attempts, last_error, lease_until, lease_owner)
SELECT 'webhook_delivery', id::text, endpoint_id::text, next_attempt_at, first_attempt_due, attempts, last_error,
       CASE WHEN leased_until > now() THEN leased_until END,
       CASE WHEN leased_until > now() THEN 'before the queue' END
  FROM webhook_deliveries WHERE status = 'pending';
