-- One plan per query the index table names (docs/indexes.md), on bench/indexes/seed.sql's database.
SELECT id AS tenant FROM tenants ORDER BY name LIMIT 1 \gset
\pset pager off
\echo '### API list (payment-requests-repository list), no filter'
EXPLAIN (COSTS OFF) SELECT * FROM payment_requests WHERE tenant_id = :'tenant' ORDER BY created_at DESC, id DESC LIMIT 50;
\echo '### API list, status filter'
EXPLAIN (COSTS OFF) SELECT * FROM payment_requests WHERE tenant_id = :'tenant' AND status = 'AUTHORISED' ORDER BY created_at DESC, id DESC LIMIT 50;
\echo '### API list, reservation filter / statuses / PMS reservation events'
EXPLAIN (COSTS OFF) SELECT id, reference, status FROM payment_requests WHERE tenant_id = :'tenant' AND reservation_ref = 'RES-100' ORDER BY created_at;
\echo '### API updated_after (events-repository)'
EXPLAIN (COSTS OFF) SELECT * FROM payment_requests WHERE tenant_id = :'tenant' AND updated_at > now() - interval '2 days' ORDER BY updated_at, id LIMIT 50;
\echo '### API get by reference'
EXPLAIN (COSTS OFF) SELECT * FROM payment_requests WHERE tenant_id = :'tenant' AND reference = 'IMP-2026-0000100';
\echo '### control list all tenants'
EXPLAIN (COSTS OFF) SELECT p.* FROM payment_request_search s JOIN payment_requests p ON p.id = s.payment_request_id JOIN tenants t ON t.id = p.tenant_id ORDER BY s.created_at DESC, s.payment_request_id DESC LIMIT 50;
\echo '### control search prefix'
EXPLAIN (COSTS OFF) SELECT p.* FROM payment_request_search s JOIN payment_requests p ON p.id = s.payment_request_id JOIN tenants t ON t.id = p.tenant_id WHERE (s.reference LIKE 'imp-2026-00001%' OR s.reservation_ref LIKE 'imp-2026-00001%' OR s.guest_email LIKE 'imp-2026-00001%') ORDER BY s.created_at DESC, s.payment_request_id DESC LIMIT 50;
\echo '### control search words'
EXPLAIN (COSTS OFF) SELECT p.* FROM payment_request_search s JOIN payment_requests p ON p.id = s.payment_request_id JOIN tenants t ON t.id = p.tenant_id WHERE s.words LIKE '%martin4321%' ORDER BY s.created_at DESC, s.payment_request_id DESC LIMIT 50;
\echo '### control failed guarantees filter / Today / digest'
EXPLAIN (COSTS OFF) SELECT p.* FROM payment_requests p WHERE p.tenant_id = :'tenant' AND (p.guarantee_failed_at IS NOT NULL AND (p.status = 'ERROR' OR (p.status = 'AUTHORISED_TO_VALIDATE' AND p.hold_decline_reason IS NOT NULL))) ORDER BY p.guarantee_failed_at DESC, p.id;
\echo '### Today declined holds'
EXPLAIN (COSTS OFF) SELECT p.* FROM payment_requests p WHERE p.tenant_id = :'tenant' AND p.status = 'AUTHORISED' AND p.hold_decline_reason IS NOT NULL;
\echo '### Today lapsing holds'
EXPLAIN (COSTS OFF) SELECT p.* FROM payment_requests p WHERE p.tenant_id = :'tenant' AND p.status = 'AUTHORISED_TO_VALIDATE' AND p.hold_expires_at > now() AND p.hold_expires_at <= now() + interval '2 days';
\echo '### Today arrivals'
EXPLAIN (COSTS OFF) SELECT p.* FROM payment_requests p WHERE p.tenant_id = :'tenant' AND p.checkin = ANY(ARRAY[current_date, current_date + 1]) AND p.status <> 'CANCELLED';
\echo '### Today created count'
EXPLAIN (COSTS OFF) SELECT count(*) FROM payment_requests p WHERE p.tenant_id = :'tenant' AND p.created_at >= current_date AND p.created_at < current_date + 1;
\echo '### reminders'
EXPLAIN (COSTS OFF) SELECT p.id FROM tenants t JOIN payment_requests p ON p.tenant_id = t.id WHERE t.reminders AND p.status = ANY(ARRAY['NOT_INITIATED','PENDING','ERROR']) AND p.guarantee_failed_at IS NULL AND p.link_expires_at > now() AND p.created_at <= now() - interval '1 hour';
\echo '### daily hold job dueBatch'
EXPLAIN (COSTS OFF) SELECT p.id FROM payment_requests p WHERE p.status = 'AUTHORISED' AND p.request_type = 'IMPRINT' AND p.checkin BETWEEN current_date AND current_date + 7 AND p.card_token IS NOT NULL AND p.pending_action IS NULL ORDER BY p.id LIMIT 500;
\echo '### renewal due'
EXPLAIN (COSTS OFF) SELECT p.id FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id WHERE p.status = 'AUTHORISED_TO_VALIDATE' AND p.request_type = 'IMPRINT' AND p.hold_expires_at < (current_date + 3)::timestamp AT TIME ZONE 'UTC' AND p.hold_expires_at > now() AND p.card_token IS NOT NULL AND p.pending_action IS NULL ORDER BY p.hold_expires_at, p.id LIMIT 200;
\echo '### renewal new card (renew_hold)'
EXPLAIN (COSTS OFF) SELECT p.id FROM payment_requests p WHERE p.renew_hold AND p.status = 'AUTHORISED_TO_VALIDATE' AND p.request_type = 'IMPRINT' ORDER BY p.id LIMIT 200;
\echo '### renewal superseded'
EXPLAIN (COSTS OFF) SELECT old.id FROM money_ledger old LEFT JOIN payment_requests p ON p.id = old.payment_request_id WHERE old.kind = 'hold' AND old.state = 'succeeded' AND old.hold_expires_at > now() AND old.provider_transaction_id IS DISTINCT FROM p.provider_transaction_id AND EXISTS (SELECT 1 FROM money_ledger n WHERE n.parent_id = old.id AND n.kind = 'hold' AND n.state = 'succeeded') AND NOT EXISTS (SELECT 1 FROM money_ledger x WHERE x.parent_id = old.id AND x.kind = 'release' AND x.state <> 'failed') ORDER BY old.id LIMIT 200;
\echo '### expiry holds'
EXPLAIN (COSTS OFF) SELECT id FROM payment_requests WHERE status IN ('AUTHORISED_TO_VALIDATE') AND pending_action IS NULL AND hold_expires_at <= now() ORDER BY hold_expires_at, id LIMIT 500 FOR UPDATE SKIP LOCKED;
\echo '### expiry links'
EXPLAIN (COSTS OFF) SELECT id FROM payment_requests WHERE status IN ('NOT_INITIATED', 'PENDING', 'ERROR') AND pending_action IS NULL AND link_expires_at <= now() ORDER BY link_expires_at, id LIMIT 500 FOR UPDATE SKIP LOCKED;
\echo '### request detail: history, ledger'
EXPLAIN (COSTS OFF) SELECT * FROM status_history WHERE payment_request_id = (SELECT id FROM payment_requests LIMIT 1) ORDER BY id;
EXPLAIN (COSTS OFF) SELECT * FROM money_ledger WHERE payment_request_id = (SELECT id FROM payment_requests LIMIT 1) ORDER BY created_at, id;
\echo '### reconcile window'
EXPLAIN (COSTS OFF) SELECT DISTINCT l.payment_request_id FROM money_ledger l WHERE l.updated_at >= now() - interval '1 hour' AND l.updated_at < now();
\echo '### books in-doubt operations'
EXPLAIN (COSTS OFF) SELECT l.id FROM money_ledger l LEFT JOIN payment_requests p ON p.id = l.payment_request_id WHERE (l.state = 'in_doubt' OR (l.state = 'requested' AND l.updated_at < now() - interval '60 seconds')) AND (NULL::uuid IS NULL OR l.tenant_id = NULL::uuid) ORDER BY l.updated_at, l.id LIMIT 100;
\echo '### books misplaced money'
EXPLAIN (COSTS OFF) SELECT m.id FROM money_ledger m WHERE m.incident IS NOT NULL AND m.kind IN ('payment', 'verification', 'hold') AND m.state = 'succeeded' AND NOT EXISTS (SELECT 1 FROM money_ledger g WHERE g.parent_id = m.id AND g.state = 'succeeded') ORDER BY m.id LIMIT 100;
\echo '### stripe event by transaction'
EXPLAIN (COSTS OFF) SELECT payment_request_id FROM money_ledger WHERE provider = 'stripe' AND provider_transaction_id = 'pi_123';
\echo '### ledger export'
EXPLAIN (COSTS OFF) SELECT l.id FROM money_ledger l JOIN payment_requests p ON p.id = l.payment_request_id JOIN tenants t ON t.id = p.tenant_id WHERE p.tenant_id = :'tenant' AND l.tenant_id = :'tenant' AND l.created_at >= now() - interval '30 days' AND l.created_at < now() ORDER BY l.created_at, l.id LIMIT 1000;
\echo '### requests export'
EXPLAIN (COSTS OFF) SELECT p.id FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id WHERE p.tenant_id = :'tenant' AND p.created_at >= now() - interval '30 days' ORDER BY p.created_at, p.id LIMIT 1000;
\echo '### digest day money'
EXPLAIN (COSTS OFF) SELECT sum(amount) FROM money_ledger l WHERE l.tenant_id = :'tenant' AND l.state = 'succeeded' AND l.incident IS NULL AND l.kind IN ('payment', 'capture', 'refund') AND l.updated_at >= current_date AND l.updated_at < current_date + 1;
\echo '### queue claim'
EXPLAIN (COSTS OFF) SELECT j.id FROM jobs j WHERE j.kind = 'email' AND j.run_at <= now() AND (j.lease_until IS NULL OR j.lease_until <= now()) ORDER BY j.run_at, j.id LIMIT 10 FOR UPDATE OF j SKIP LOCKED;
\echo '### webhook in flight by lane'
EXPLAIN (COSTS OFF) SELECT j.lane, count(*) FROM jobs j WHERE j.kind = 'webhook_delivery' AND j.lease_until IS NOT NULL AND j.lease_until > now() GROUP BY j.lane;
\echo '### webhook lane due'
EXPLAIN (COSTS OFF) SELECT j.id FROM jobs j WHERE j.kind = 'webhook_delivery' AND j.lane = 'endpoint-3' AND j.run_at <= now() ORDER BY j.run_at, j.id LIMIT 2;
\echo '### queue enqueue/find'
EXPLAIN (COSTS OFF) SELECT id FROM jobs j WHERE j.kind = 'email' AND j.ref = 'seed-5';
\echo '### ledger child by parent (renewal attempts)'
EXPLAIN (COSTS OFF) SELECT count(*) FROM money_ledger x WHERE x.parent_id = 12345 AND x.kind = 'release';
\echo '### digest day counts: completed (status_history by tenant and day)'
EXPLAIN (COSTS OFF) SELECT count(*)::int FROM status_history s WHERE s.tenant_id = :'tenant' AND s.created_at >= (current_date::timestamp AT TIME ZONE 'Europe/Paris') AND s.created_at < ((current_date + 1)::timestamp AT TIME ZONE 'Europe/Paris') AND ((s.to_status = 'CAPTURED' AND s.from_status IN ('NOT_INITIATED', 'PENDING', 'ERROR')) OR s.to_status = 'AUTHORISED');
\echo '### events feed (events-repository feed)'
SELECT id AS event FROM events WHERE tenant_id = :'tenant' ORDER BY id DESC LIMIT 1 OFFSET 500 \gset
EXPLAIN (COSTS OFF) WITH pos AS (SELECT txid, id FROM events WHERE id = :event AND tenant_id = :'tenant') SELECT e.id, e.tenant_id, e.type, e.data, e.created_at FROM events e WHERE e.tenant_id = :'tenant' AND e.txid < pg_snapshot_xmin(pg_current_snapshot()) AND ((e.txid, e.id) > (SELECT txid, id FROM pos) OR (NOT EXISTS (SELECT 1 FROM pos) AND e.id > :event)) ORDER BY e.txid, e.id LIMIT 100;
\echo '### event by id (events-repository find; webhook redeliver, sending)'
EXPLAIN (COSTS OFF) SELECT id, data FROM events WHERE id = :event;
\echo '### events purge (events-repository purge)'
EXPLAIN (COSTS OFF) SELECT e.id FROM events e WHERE e.id < coalesce((SELECT kept.id FROM events kept WHERE kept.created_at >= now() - make_interval(days => 90) ORDER BY kept.id LIMIT 1), 9223372036854775807) AND e.created_at < now() - make_interval(days => 90) AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending') ORDER BY e.id LIMIT 10000;
\echo '### events trigger: the last event of a request the statement deleted'
EXPLAIN (COSTS OFF) SELECT e.data FROM events e WHERE e.payment_request_id = (SELECT id FROM payment_requests LIMIT 1) ORDER BY e.id DESC LIMIT 1;
\echo '### outbox: the mail job loads its row (email-outbox-repository load)'
EXPLAIN (COSTS OFF) SELECT o.id, o.kind FROM email_outbox o WHERE o.id = 1000 AND o.status = 'pending';
\echo '### outbox: a reminder slot already queued (day-plan-repository queueReminders)'
EXPLAIN (COSTS OFF) SELECT 1 FROM email_outbox o WHERE o.cause = 'payment_reminder:' || (SELECT id FROM payment_requests LIMIT 1) || ':before';
\echo '### outbox: reminders counted, and their history (queueReminders, reminderHistory)'
EXPLAIN (COSTS OFF) SELECT count(*) FROM email_outbox o WHERE o.payment_request_id = (SELECT id FROM payment_requests LIMIT 1) AND o.kind = 'payment_reminder';
\echo '### outbox: the pending backlog (service-backlogs readServiceBacklogs)'
EXPLAIN (COSTS OFF) SELECT count(*)::int AS n, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS age FROM email_outbox WHERE status = 'pending';
\echo '### outbox: logged-only rows released (email-outbox-repository releaseLoggedOnly)'
EXPLAIN (COSTS OFF) SELECT id FROM email_outbox WHERE status = 'pending' AND last_error = 'logged only' FOR UPDATE SKIP LOCKED;
\echo '### Idempotency-Key read (idempotency-repository find)'
EXPLAIN (COSTS OFF) SELECT status_code FROM idempotency_keys WHERE tenant_id = :'tenant' AND key = 'key-20';
\echo '### Idempotency-Keys purged (idempotency-repository purgeExpired)'
EXPLAIN (COSTS OFF) DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours';
