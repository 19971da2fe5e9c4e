-- The card-registered e-mail goes out once per registration, not once per request: a guest who
-- registers another card after a failed guarantee is told about that card too. A registration is
-- a move to AUTHORISED from a status that had no card (NOT_INITIATED, PENDING, ERROR: a refused
-- hold), or, after a refused renewal, a new card recorded while the old hold still guarantees
-- (AUTHORISED_TO_VALIDATE to AUTHORISED_TO_VALIDATE with the card's verification as its ledger
-- row). AUTHORISED to AUTHORISED (a hold declined softly) and a renewal are not registrations.
-- The cause names the request and the history row of that move, so one registration is still
-- mailed once, whichever path recorded it. Causes already written (`card_registered:<uuid>`) stay.
CREATE OR REPLACE FUNCTION status_history_card_registered_mail() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause)
  SELECT p.tenant_id, p.id, 'card_registered', 'card_registered:' || p.id || ':' || NEW.id
    FROM payment_requests p
   WHERE p.id = NEW.payment_request_id AND p.request_type = 'IMPRINT'
     AND (NEW.to_status = 'AUTHORISED'
          OR EXISTS (SELECT 1 FROM money_ledger l
                      WHERE l.id = NEW.ledger_id AND l.kind = 'verification' AND l.incident IS NULL))
  ON CONFLICT (cause) DO NOTHING;
  RETURN NULL;
END
$$;

DROP TRIGGER status_history_card_registered_mail ON status_history;
CREATE TRIGGER status_history_card_registered_mail AFTER INSERT ON status_history
  FOR EACH ROW WHEN ((NEW.to_status = 'AUTHORISED' AND NEW.from_status IS DISTINCT FROM 'AUTHORISED')
                     OR (NEW.from_status = 'AUTHORISED_TO_VALIDATE' AND NEW.to_status = 'AUTHORISED_TO_VALIDATE'
                         AND NEW.ledger_id IS NOT NULL))
  EXECUTE FUNCTION status_history_card_registered_mail();
