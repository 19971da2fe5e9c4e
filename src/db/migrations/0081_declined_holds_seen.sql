-- A hold the bank declined softly before the check-in day (the request stays AUTHORISED and
-- the daily job tries again) is seen by the hotel: on the Today page and in the digest (this
-- index holds exactly those rows, a handful per hotel), and in one e-mail to its contact
-- address per request (the kind below; its cause names the request, so it goes once).
CREATE INDEX payment_requests_declined_holds ON payment_requests (tenant_id)
  WHERE status = 'AUTHORISED' AND hold_decline_reason IS NOT NULL;

ALTER TABLE email_outbox DROP CONSTRAINT email_outbox_kind_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_kind_check
  CHECK (kind IN ('payment_link', 'deposit_confirmation', 'card_registered',
                  'capture_notice', 'release_notice', 'refund_notice',
                  'guarantee_failed_guest', 'guarantee_failed_hotel', 'hold_declined_hotel',
                  'payment_reminder', 'daily_digest'));
