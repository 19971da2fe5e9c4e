-- The guest is told when money moves after the payment: a no-show capture of their card, a
-- released hold, each refund. Like the card-registered e-mail, each is queued by a trigger on
-- the status history, in the transaction of the change, whichever path made it (the API, the
-- back office, a bulk action, reconcile settling an operation in doubt): a move is recorded
-- once, so it is mailed once. The cause is unique: one capture e-mail and one release e-mail a
-- request, one refund e-mail a refund (its ledger row). The row names its ledger row, for the
-- amount the e-mail states.
ALTER TABLE email_outbox ADD COLUMN ledger_id bigint;
ALTER TABLE email_outbox DROP CONSTRAINT email_outbox_kind_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_kind_check
  CHECK (kind IN ('payment_link', 'deposit_confirmation', 'card_registered',
                  'capture_notice', 'release_notice', 'refund_notice'));

CREATE FUNCTION status_history_money_mail() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause, ledger_id)
  SELECT NEW.tenant_id, NEW.payment_request_id, m.kind,
         m.kind || ':' || CASE WHEN l.kind = 'refund' THEN l.id::text ELSE NEW.payment_request_id::text END,
         l.id
    FROM money_ledger l
   CROSS JOIN LATERAL (SELECT CASE l.kind WHEN 'capture' THEN 'capture_notice'
                                          WHEN 'release' THEN 'release_notice'
                                          WHEN 'refund' THEN 'refund_notice' END AS kind) m
   WHERE l.id = NEW.ledger_id AND m.kind IS NOT NULL AND l.incident IS NULL
  ON CONFLICT (cause) DO NOTHING;
  RETURN NULL;
END
$$;

-- Only the rows of a capture, a release or a refund reach the function: the daily job's holds
-- (to AUTHORISED_TO_VALIDATE) and every status change without a ledger row are filtered by the
-- WHEN clause, before any call.
CREATE TRIGGER status_history_money_mail AFTER INSERT ON status_history
  FOR EACH ROW WHEN (NEW.ledger_id IS NOT NULL AND NEW.to_status IN ('CAPTURED', 'CANCELLED', 'REFUNDED'))
  EXECUTE FUNCTION status_history_money_mail();
