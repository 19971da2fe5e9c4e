-- One queue (docs/queue.md): the background work of every kind is scheduled, claimed, leased
-- and retried in `jobs`; the domain tables keep their records (what was sent, what ran, the
-- attempts shown in the back office). A job lives while its work is pending and is deleted
-- when the work is done or given up: the domain row then says which.
CREATE SEQUENCE job_fences;

CREATE TABLE jobs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- What runs it (src/queue/kinds.ts): mail, bulk_job, sandbox_notification, ...
  kind text NOT NULL,
  -- The domain row it is for (email_outbox.id, ...): one live job per row.
  ref text NOT NULL,
  -- For a kind without a domain row of its own; NULL for those with one.
  payload jsonb,
  -- Claimable from then (and once any lease ended).
  run_at timestamptz NOT NULL DEFAULT now(),
  -- When it was first due: a kind giving up after a time measures from here.
  first_due_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  -- Drawn afresh from one sequence at every claim: only the holder of the current token may
  -- settle the job, so a worker whose lease ran out and was taken over changes nothing.
  fence bigint NOT NULL DEFAULT nextval('job_fences'),
  lease_owner text,
  lease_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (kind, ref)
);
CREATE INDEX jobs_due ON jobs (kind, run_at, id);

-- A job queued wakes the workers listening (PostgreSQL): at once if it is due, else to set
-- their timer by it; a job made due again (queued again by hand) wakes them too. A
-- transaction's identical notices are folded into one.
CREATE FUNCTION jobs_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('jobs_due', NEW.kind);
  RETURN NULL;
END
$$;
CREATE TRIGGER jobs_notify_queued AFTER INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION jobs_notify();
CREATE TRIGGER jobs_notify_due AFTER UPDATE OF run_at ON jobs
  FOR EACH ROW WHEN (NEW.run_at <= now()) EXECUTE FUNCTION jobs_notify();

-- Lock order. A settlement locks its job, then writes its domain row; these triggers write
-- the domain row, then the job. So that the two never wait on each other (a deadlock), the
-- triggers skip a job a worker holds instead of deleting it: that worker's record then finds
-- its row settled or gone, and the job it leaves behind is run once more, finds nothing to
-- do, and goes.

-- The e-mail outbox: a pending row has a job; a row queued again by hand (next_attempt_at set)
-- moves its job's time; a row sent or failed has none. Every writer of the outbox (SQL
-- functions included) thus enqueues without knowing the queue.
CREATE FUNCTION jobs_follow_email_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'pending' THEN
    INSERT INTO jobs (kind, ref, run_at, first_due_at, attempts)
    VALUES ('mail', NEW.id::text, NEW.next_attempt_at, NEW.next_attempt_at, NEW.attempts)
    ON CONFLICT (kind, ref) DO UPDATE SET run_at = EXCLUDED.run_at WHERE jobs.run_at <> EXCLUDED.run_at;
  ELSIF TG_OP = 'UPDATE' AND OLD.status = 'pending' THEN
    DELETE FROM jobs WHERE id IN (
      SELECT id FROM jobs WHERE kind = 'mail' AND ref = NEW.id::text FOR UPDATE SKIP LOCKED);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER jobs_follow_email_outbox AFTER INSERT OR UPDATE OF status, next_attempt_at ON email_outbox
  FOR EACH ROW EXECUTE FUNCTION jobs_follow_email_outbox();

-- Bulk jobs: queued (or running: a worker holds its lease) has a job; finished has none.
CREATE FUNCTION jobs_follow_bulk_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state IN ('queued', 'running') THEN
    INSERT INTO jobs (kind, ref, attempts) VALUES ('bulk_job', NEW.id::text, NEW.attempts)
    ON CONFLICT (kind, ref) DO NOTHING;
  ELSIF TG_OP = 'UPDATE' AND OLD.state IN ('queued', 'running') THEN
    DELETE FROM jobs WHERE id IN (
      SELECT id FROM jobs WHERE kind = 'bulk_job' AND ref = NEW.id::text FOR UPDATE SKIP LOCKED);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER jobs_follow_bulk_jobs AFTER INSERT OR UPDATE OF state ON bulk_jobs
  FOR EACH ROW EXECUTE FUNCTION jobs_follow_bulk_jobs();

-- The sandbox's notifications: one job from its creation until delivered or given up. The
-- first attempt is made while the guest waits: the row is written with that attempt counted
-- and next_attempt_at past its time limit, which the job takes as its first lease.
CREATE FUNCTION jobs_follow_sandbox_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' AND NEW.delivered_at IS NULL THEN
    INSERT INTO jobs (kind, ref, run_at, first_due_at, attempts)
    VALUES ('sandbox_notification', NEW.id::text, NEW.next_attempt_at, NEW.created_at, NEW.attempts)
    ON CONFLICT (kind, ref) DO NOTHING;
  ELSIF TG_OP = 'UPDATE' AND NEW.delivered_at IS NOT NULL THEN
    DELETE FROM jobs WHERE id IN (
      SELECT id FROM jobs WHERE kind = 'sandbox_notification' AND ref = NEW.id::text FOR UPDATE SKIP LOCKED);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER jobs_follow_sandbox_notifications AFTER INSERT OR UPDATE OF delivered_at ON sandbox_notifications
  FOR EACH ROW EXECUTE FUNCTION jobs_follow_sandbox_notifications();

-- A domain row deleted (its tenant was, or a purge) takes its job with it: one statement
-- per deleting statement, over the rows it deleted.
CREATE FUNCTION jobs_forget_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM jobs WHERE id IN (
    SELECT id FROM jobs WHERE kind = TG_ARGV[0] AND ref IN (SELECT id::text FROM gone) FOR UPDATE SKIP LOCKED);
  RETURN NULL;
END
$$;
CREATE TRIGGER jobs_forget_email_outbox AFTER DELETE ON email_outbox REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION jobs_forget_deleted('mail');
CREATE TRIGGER jobs_forget_bulk_jobs AFTER DELETE ON bulk_jobs REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION jobs_forget_deleted('bulk_job');
CREATE TRIGGER jobs_forget_sandbox_notifications AFTER DELETE ON sandbox_notifications REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION jobs_forget_deleted('sandbox_notification');

-- Nothing pending is lost: what three of the hand-made queues held (webhooks: 0050) moves into the one queue, its
-- attempts and due time kept.
INSERT INTO jobs (kind, ref, run_at, first_due_at, attempts, last_error)
SELECT 'mail', id::text, next_attempt_at, created_at, attempts, last_error FROM email_outbox WHERE status = 'pending';
INSERT INTO jobs (kind, ref, run_at, first_due_at, attempts, last_error)
SELECT 'bulk_job', id::text, now(), created_at, attempts, reason FROM bulk_jobs WHERE state IN ('queued', 'running');
-- A notification given up (12 attempts, the sandbox's bound) stays given up.
INSERT INTO jobs (kind, ref, run_at, first_due_at, attempts, last_error)
SELECT 'sandbox_notification', id::text, next_attempt_at, created_at, attempts, last_error
  FROM sandbox_notifications WHERE delivered_at IS NULL AND attempts < 12;
