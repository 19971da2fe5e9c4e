-- Migrations 0035 (failed guarantees) and 0036 (reminders, digest) each rewrote the list of
-- e-mail kinds without the other's: whichever order they ran in, the list is whole again here.
ALTER TABLE email_outbox DROP CONSTRAINT email_outbox_kind_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_kind_check
  CHECK (kind IN ('payment_link', 'deposit_confirmation', 'card_registered',
                  'capture_notice', 'release_notice', 'refund_notice',
                  'guarantee_failed_guest', 'guarantee_failed_hotel',
                  'payment_reminder', 'daily_digest'));
