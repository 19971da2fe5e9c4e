-- An e-mail can be `expired`: kept back while SMTP_URL was unset, and older than
-- MAIL_BACKLOG_MAX_AGE_HOURS (24 by default) when an instance starts with SMTP_URL set. It is
-- not sent (a guest would get a payment link or a confirmation days late, in a burst), and says
-- why in last_error. Like `sent` and `failed`, it has no job in the queue (the trigger of 0049
-- removes a row's job when it stops being pending).
ALTER TABLE email_outbox DROP CONSTRAINT email_outbox_status_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_status_check
  CHECK (status IN ('pending', 'sent', 'failed', 'expired'));
