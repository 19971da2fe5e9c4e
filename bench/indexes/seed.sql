-- The index evidence's database (docs/indexes.md): run on a database just migrated.
-- A realistic volume: 20 hotels, 200,000 requests over a year, ~2 ledger rows and ~3 history rows each,
-- an event per history row, a link e-mail each and some reminders, a day of Idempotency-Keys.
SET session_replication_role = replica;
INSERT INTO tenants (id, name) SELECT gen_random_uuid(), 'Index hotel ' || g FROM generate_series(1, 20) g;
CREATE TEMP TABLE t AS SELECT row_number() OVER (ORDER BY id) AS n, id FROM tenants;
INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, amount_captured, currency, guest_email,
   guest_first_name, guest_last_name, language, reservation_ref, reservation_data, checkin, link_expires_at,
   hold_expires_at, guarantee_failed_at, hold_decline_reason, renew_hold, created_at, updated_at, provider, provider_transaction_id)
SELECT gen_random_uuid(), (SELECT id FROM t WHERE n = 1 + g % 20),
  'IMP-2026-' || lpad(g::text, 7, '0'), CASE WHEN g % 3 = 0 THEN 'DEPOSIT' ELSE 'IMPRINT' END, s.status,
  15000, CASE WHEN s.status = 'CAPTURED' THEN 15000 ELSE 0 END, 'EUR',
  'guest' || g || '@example.com', (ARRAY['Jeanne','Paul','Anna','Luc'])[1 + g % 4], 'Martin' || (g % 5000), 'fr', 'RES-' || g,
  '{"room_type": "Double"}'::jsonb,
  (now() - interval '330 days' + make_interval(secs => g * 160))::date,
  now() - interval '300 days' + make_interval(secs => g * 160),
  CASE WHEN s.status IN ('AUTHORISED_TO_VALIDATE') OR (s.status = 'CANCELLED' AND g % 2 = 0) THEN now() - interval '330 days' + make_interval(secs => g * 160) + interval '5 days' END,
  CASE WHEN s.status = 'ERROR' AND g % 2 = 0 THEN now() - make_interval(secs => g) END,
  CASE WHEN s.status = 'AUTHORISED' AND g % 50 = 0 THEN 'insufficient_funds' END,
  false,
  date_trunc('milliseconds', now() - interval '365 days' + make_interval(secs => g * 157)),
  date_trunc('milliseconds', now() - interval '360 days' + make_interval(secs => g * 157)),
  'sandbox', 'tx' || g
FROM generate_series(1, 200000) g,
LATERAL (SELECT CASE
   WHEN g > 190000 THEN (ARRAY['NOT_INITIATED','PENDING','AUTHORISED','AUTHORISED','AUTHORISED_TO_VALIDATE','AUTHORISED_TO_VALIDATE','AUTHORISED_TO_VALIDATE','ERROR','CAPTURED','NOT_INITIATED'])[1 + g % 10]
   ELSE (ARRAY['CAPTURED','CAPTURED','CAPTURED','CANCELLED','CANCELLED','EXPIRED','REFUNDED','CAPTURED','CANCELLED','CAPTURED'])[1 + g % 10] END AS status) s;
-- The back office's search rows, as the requests' trigger writes them (triggers are off here).
INSERT INTO payment_request_search
  (tenant_id, created_at, payment_request_id, reference, reservation_ref, guest_email, words)
SELECT tenant_id, created_at, id, lower(reference), lower(reservation_ref), lower(guest_email),
       lower(reference || ' ' || reservation_ref || ' ' || guest_first_name || ' ' || guest_last_name || ' ' || guest_email)
  FROM payment_requests;
UPDATE payment_requests SET request_type = 'IMPRINT' WHERE status IN ('AUTHORISED', 'AUTHORISED_TO_VALIDATE');
UPDATE payment_requests SET card_token = 'tok' || id WHERE status IN ('AUTHORISED', 'AUTHORISED_TO_VALIDATE', 'CAPTURED', 'CANCELLED', 'REFUNDED');
-- A few guests who gave a new card after a refused renewal.
UPDATE payment_requests SET renew_hold = true WHERE status = 'AUTHORISED_TO_VALIDATE' AND reference LIKE '%77';
UPDATE tenants SET reminders = true;
-- Ledger: each request past NOT_INITIATED has a hold or payment; captured ones a capture; released holds a release.
INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, provider_transaction_id,
   idempotency_key, state, source, created_at, updated_at, hold_expires_at)
SELECT id, tenant_id, CASE WHEN request_type = 'IMPRINT' THEN 'hold' ELSE 'payment' END, amount, currency, 'sandbox', provider_transaction_id,
  'seed:' || id || ':1', CASE WHEN status = 'ERROR' THEN 'failed' ELSE 'succeeded' END, 'guest', created_at, updated_at,
  CASE WHEN request_type = 'IMPRINT' THEN hold_expires_at END
  FROM payment_requests WHERE status NOT IN ('NOT_INITIATED', 'PENDING', 'EXPIRED');
INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, provider_transaction_id,
   idempotency_key, state, source, created_at, updated_at, parent_id)
SELECT l.payment_request_id, l.tenant_id, CASE p.status WHEN 'CANCELLED' THEN 'release' WHEN 'REFUNDED' THEN 'refund' ELSE 'capture' END,
  l.amount, l.currency, 'sandbox', l.provider_transaction_id, 'seed:' || l.payment_request_id || ':2', 'succeeded', 'admin',
  l.created_at + interval '3 days', l.updated_at + interval '3 days', l.id
  FROM money_ledger l JOIN payment_requests p ON p.id = l.payment_request_id
 WHERE l.kind IN ('hold','payment') AND p.status IN ('CAPTURED','CANCELLED','REFUNDED') AND p.request_type = 'IMPRINT' OR (p.status='REFUNDED' AND l.kind='payment');
-- The holds that ended (captured, released) are no longer live.
UPDATE money_ledger l SET hold_expires_at = NULL FROM payment_requests p WHERE p.id = l.payment_request_id AND l.kind='hold' AND p.status IN ('CAPTURED','REFUNDED');
-- A few unsettled rows for reconcile.
UPDATE money_ledger SET state = 'in_doubt' WHERE id % 5000 = 0;
INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor, created_at)
SELECT id, tenant_id, NULL, 'NOT_INITIATED', 'api', 'key', created_at FROM payment_requests;
INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor, created_at)
SELECT id, tenant_id, 'NOT_INITIATED', 'PENDING', 'guest', NULL, created_at + interval '1 hour' FROM payment_requests WHERE status <> 'NOT_INITIATED';
INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor, created_at)
SELECT id, tenant_id, 'PENDING', status, 'ipn', NULL, created_at + interval '2 hours' FROM payment_requests WHERE status NOT IN ('NOT_INITIATED','PENDING');
-- Events: one per history row, as the history's trigger writes them, over the year, in id order.
INSERT INTO events (tenant_id, payment_request_id, type, data, created_at)
SELECT tenant_id, payment_request_id, 'payment_request.' || lower(to_status), jsonb_build_object('uuid', payment_request_id),
  created_at FROM status_history ORDER BY created_at, id;
-- The outbox: each request's link e-mail (sent), reminders for one in ten, and the e-mails waiting.
INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause, status, sent_at, created_at, next_attempt_at)
SELECT tenant_id, id, 'payment_link', 'payment_link:' || id, CASE WHEN created_at > now() - interval '10 minutes' THEN 'pending' ELSE 'sent' END,
  created_at, created_at, created_at FROM payment_requests ORDER BY created_at;
INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause, status, sent_at, created_at, next_attempt_at, reminder_number)
SELECT tenant_id, id, 'payment_reminder', 'payment_reminder:' || id || ':before', 'sent', created_at + interval '1 day',
  created_at + interval '1 day', created_at + interval '1 day', 1 FROM payment_requests WHERE reference LIKE '%3' ORDER BY created_at;
INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause, status, created_at, next_attempt_at, last_error)
SELECT tenant_id, id, 'payment_reminder', 'payment_reminder:' || id || ':after:1', 'pending', now() - make_interval(secs => g),
  now() + make_interval(secs => g), CASE WHEN g % 2 = 0 THEN 'logged only' END
  FROM (SELECT tenant_id, id, row_number() OVER (ORDER BY id) AS g FROM payment_requests WHERE status = 'NOT_INITIATED' LIMIT 2000) x;
-- Idempotency-Keys: the last 25 hours of creates (the hourly purge keeps 24).
INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status_code, response_body, created_at)
SELECT (SELECT id FROM t WHERE n = 1 + g % 20), 'key-' || g, md5(g::text), 201, '{}', now() - make_interval(secs => g * 1.5)
  FROM generate_series(1, 60000) g;
-- Queue: finished jobs leave; what waits is the future's e-mails, webhooks and jobs.
INSERT INTO jobs (kind, ref, run_at, lane)
SELECT (ARRAY['email','webhook','renew_hold','daily'])[1 + g % 4], 'seed-' || g, now() + make_interval(mins => g % 600),
  CASE WHEN g % 4 = 1 THEN 'endpoint-' || (g % 30) END FROM generate_series(1, 3000) g;
SET session_replication_role = origin;
VACUUM ANALYZE payment_requests; VACUUM ANALYZE money_ledger; VACUUM ANALYZE status_history; VACUUM ANALYZE jobs; ANALYZE tenants;
VACUUM ANALYZE events; VACUUM ANALYZE email_outbox; VACUUM ANALYZE idempotency_keys;
VACUUM ANALYZE payment_request_search;
SELECT pg_stat_reset();
