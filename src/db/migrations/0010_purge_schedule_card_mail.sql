-- Retention of the event feed and the webhook log, daily at 03:30 Paris time.
INSERT INTO job_schedules (job, cron, timezone) VALUES ('purge_events', '30 3 * * *', 'Europe/Paris')
ON CONFLICT (job) DO NOTHING;

-- The guest of an IMPRINT is told when the card is registered: what was registered, the most
-- that may be taken, and when a hold may be placed. The e-mail is queued by a trigger on the
-- status history, like the event: in the transaction of the change, whichever code path made
-- it, once per request (the cause is unique).
ALTER TABLE email_outbox DROP CONSTRAINT email_outbox_kind_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_kind_check
  CHECK (kind IN ('payment_link', 'deposit_confirmation', 'card_registered'));

CREATE FUNCTION status_history_card_registered_mail() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause)
  SELECT p.tenant_id, p.id, 'card_registered', 'card_registered:' || p.id
    FROM payment_requests p
   WHERE p.id = NEW.payment_request_id AND p.request_type = 'IMPRINT'
  ON CONFLICT (cause) DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER status_history_card_registered_mail AFTER INSERT ON status_history
  FOR EACH ROW WHEN (NEW.to_status = 'AUTHORISED') EXECUTE FUNCTION status_history_card_registered_mail();
