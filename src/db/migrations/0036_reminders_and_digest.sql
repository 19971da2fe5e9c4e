-- Reminders for unpaid links and the hotel's daily digest (README, "Reminders" and "Daily
-- digest"). Both are e-mails queued in the outbox by a scheduled job; exactly once is the
-- outbox's unique cause, so two instances, or a scheduler run and a `payreq job run` at once,
-- can never queue the same one twice.
ALTER TABLE tenants
  ADD COLUMN reminders boolean NOT NULL DEFAULT false,
  -- 0: none of these; otherwise a reminder this long after the request, then every this long.
  ADD COLUMN reminder_after_hours integer NOT NULL DEFAULT 48 CHECK (reminder_after_hours BETWEEN 0 AND 720),
  -- 0: none; otherwise one reminder this long before the link expires.
  ADD COLUMN reminder_before_expiry_hours integer NOT NULL DEFAULT 24
    CHECK (reminder_before_expiry_hours BETWEEN 0 AND 720),
  ADD COLUMN reminder_max integer NOT NULL DEFAULT 2 CHECK (reminder_max BETWEEN 1 AND 10),
  ADD COLUMN digest_email boolean NOT NULL DEFAULT false,
  -- The hour of the hotel's day (its time zone) from which the digest is sent.
  ADD COLUMN digest_hour integer NOT NULL DEFAULT 7 CHECK (digest_hour BETWEEN 0 AND 23),
  ADD COLUMN digest_language text NOT NULL DEFAULT 'en' CHECK (digest_language IN ('en', 'fr', 'de'));
-- The digest goes to the hotel's contact address (migration 0018 added it for the guest page;
-- written so a branch adding the same column merges without a conflict).
ALTER TABLE tenants ADD COLUMN IF NOT EXISTS contact_email text;

ALTER TABLE email_outbox DROP CONSTRAINT email_outbox_kind_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_kind_check
  CHECK (kind IN ('payment_link', 'deposit_confirmation', 'card_registered',
                  'capture_notice', 'release_notice', 'refund_notice',
                  'payment_reminder', 'daily_digest'));
-- A reminder's number (1, 2, ...): unique per request, so racing runs can never send more than
-- the tenant's maximum, whatever slot each one saw. The cause names the slot (once per slot).
ALTER TABLE email_outbox ADD COLUMN reminder_number smallint;
CREATE UNIQUE INDEX email_outbox_reminder_number ON email_outbox (payment_request_id, reminder_number)
  WHERE kind = 'payment_reminder';
-- The digest's content, computed by the job at its moment in the hotel's zone (the e-mail then
-- says the same thing however late the outbox sends it).
ALTER TABLE email_outbox ADD COLUMN payload jsonb;

-- The reminder job's work list: the links still to be paid.
CREATE INDEX payment_requests_unpaid ON payment_requests (tenant_id, created_at)
  WHERE status IN ('NOT_INITIATED', 'PENDING', 'ERROR');
-- The Today page and the digest: a tenant's arrivals by day.
CREATE INDEX payment_requests_tenant_checkin ON payment_requests (tenant_id, checkin) WHERE checkin IS NOT NULL;

INSERT INTO job_schedules (job, cron, timezone) VALUES
  ('send_payment_reminders', '*/15 * * * *', 'Europe/Paris'),
  -- Every hour: each tenant's digest is queued once its own hour has come in its own zone.
  ('send_daily_digests', '5 * * * *', 'UTC')
ON CONFLICT (job) DO NOTHING;
