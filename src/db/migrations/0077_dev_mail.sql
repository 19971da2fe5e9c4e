-- The development mail viewer (/dev/mail, served only when NODE_ENV=development): each e-mail as
-- the worker rendered it when it sent it, or logged it for want of SMTP_URL (sender, recipient,
-- subject, HTML and text), so a trial sees what the guest and the hotel would read without a
-- mail catcher. Written only in development; NULL everywhere else.
ALTER TABLE email_outbox ADD COLUMN dev_message jsonb;
