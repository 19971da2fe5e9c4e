import type { Database } from './database.ts';
import {
  type AttemptTiming,
  type ClaimedDelivery,
  type ClaimLimits,
  ENDPOINT_COLUMNS,
  type WebhookEndpointRow,
} from './webhook-rows.ts';

/** The attempt row written with an outcome: a CTE over `clock`, reading the delivery's own row. */
const ATTEMPT_CTE = (id: string, timing: string) => `attempt AS (
           INSERT INTO webhook_attempts (delivery_id, endpoint_id, attempt, started_at, duration_ms, status_code, error)
           SELECT d.id, d.endpoint_id, ${timing} FROM webhook_deliveries d WHERE d.id = ${id}::bigint
         )`;

/**
 * The sender's statements: which deliveries are due, what one needs to be sent, and its outcome
 * recorded with the endpoint's backoff (or the endpoint disabled once it has failed too long).
 */
export function webhookSendingRepository(db: Database) {
  return {
    /**
     * Which due webhook jobs of the queue this instance may take now (the kind's narrowing;
     * src/queue/ then claims them): per endpoint (the job's lane), at most `perEndpoint` in
     * flight at once (one while it is failing), at most `perTenant` of a tenant's, none of an
     * endpoint backing off or disabled, and `limit` in all, oldest due first. In flight means
     * leased by any instance: the queue runs this under the kind's claim lock, so each claim
     * sees the leases the others took. A delivery is only due once every earlier pending
     * delivery of the same request to the same endpoint is settled, so an endpoint receives
     * the events of one request in order.
     */
    async dueJobs(o: Omit<ClaimLimits, 'leaseMs'>): Promise<string[]> {
      const r = await db.query<{ id: string }>(
        `WITH clock AS (SELECT coalesce($1::timestamptz, now()) AS t),
         in_flight AS (
           SELECT j.lane, count(*)::int AS n FROM jobs j, clock
            WHERE j.kind = 'webhook_delivery' AND j.lease_until IS NOT NULL AND j.lease_until > clock.t
            GROUP BY j.lane
         ), endpoints AS (
           SELECT w.id, w.tenant_id,
                  (CASE WHEN w.failures > 0 THEN 1 ELSE $3::int END) - coalesce(f.n, 0) AS free
             FROM webhook_endpoints w CROSS JOIN clock
             LEFT JOIN in_flight f ON f.lane = w.id::text
            WHERE w.status = 'enabled' AND w.next_attempt_at <= clock.t
         ), tenants AS (
           SELECT w.tenant_id, $4::int - sum(f.n)::int AS free
             FROM in_flight f JOIN webhook_endpoints w ON w.id::text = f.lane
            GROUP BY w.tenant_id
         ), due AS (
           SELECT c.id, c.run_at, e.tenant_id
             FROM endpoints e CROSS JOIN clock
             CROSS JOIN LATERAL (
               SELECT j.id, j.run_at FROM jobs j JOIN webhook_deliveries d ON d.id = j.ref::bigint
                WHERE j.kind = 'webhook_delivery' AND j.lane = e.id::text AND j.run_at <= clock.t
                  AND (j.lease_until IS NULL OR j.lease_until <= clock.t)
                  AND NOT EXISTS (
                    SELECT 1 FROM webhook_deliveries earlier
                     WHERE earlier.endpoint_id = d.endpoint_id AND earlier.payment_request_id = d.payment_request_id
                       AND earlier.status = 'pending' AND earlier.id < d.id)
                ORDER BY j.run_at, j.id
                LIMIT e.free) c
            WHERE e.free > 0
         ), fair AS (
           SELECT due.id, due.run_at, coalesce(t.free, $4::int) AS free,
                  row_number() OVER (PARTITION BY due.tenant_id ORDER BY due.run_at, due.id) AS nth
             FROM due LEFT JOIN tenants t ON t.tenant_id = due.tenant_id
         )
         SELECT id::text AS id FROM fair WHERE nth <= free ORDER BY run_at, fair.id LIMIT $2`,
        [o.at ?? null, o.limit, o.perEndpoint, o.perTenant],
      );
      return r.rows.map((row) => row.id);
    },

    /** A pending delivery the queue gave this instance, with what it needs to send it. */
    async pendingDelivery(id: string, at?: Date): Promise<Omit<ClaimedDelivery, 'attempts'> | undefined> {
      const r = await db.query<Omit<ClaimedDelivery, 'attempts'>>(
        `SELECT d.id::text AS id, d.endpoint_id, d.event_id::text AS event_id, d.first_attempt_due,
                w.url, w.secret_sealed, w.tenant_id, e.type, e.data, e.created_at AS event_created_at,
                CASE WHEN w.previous_secret_expires_at > coalesce($2::timestamptz, now()) THEN w.previous_secret_sealed END
                  AS previous_secret_sealed
           FROM webhook_deliveries d
           JOIN webhook_endpoints w ON w.id = d.endpoint_id
           JOIN events e ON e.id = d.event_id
          WHERE d.id = $1::bigint AND d.status = 'pending'`,
        [id, at ?? null],
      );
      return r.rows[0];
    },

    /** Delivered; an endpoint that was failing is well again and may be sent its backlog. */
    async markDelivered(d: {
      id: string;
      endpointId: string;
      statusCode: number;
      timing: AttemptTiming;
      at?: Date;
    }): Promise<void> {
      await db.query(
        `WITH clock AS (SELECT coalesce($4::timestamptz, now()) AS t),
         ${ATTEMPT_CTE('$1', '$5::int, $6::timestamptz, $7::int, $3, NULL')},
         delivered AS (
           UPDATE webhook_deliveries SET status = 'delivered', delivered_at = clock.t, last_status_code = $3,
                  last_error = NULL, leased_until = NULL, attempts = $5::int
             FROM clock WHERE id = $1::bigint AND status = 'pending'
         )
         UPDATE webhook_endpoints SET failures = 0, failing_since = NULL, next_attempt_at = clock.t
           FROM clock WHERE id = $2 AND failures > 0`,
        [d.id, d.endpointId, d.statusCode, d.at ?? null, d.timing.attempt, d.timing.startedAt, d.timing.durationMs],
      );
    },

    /**
     * A failed attempt. The delivery is tried again after `retryDelayMs`, or fails once it has
     * been retried for `giveUpAfterMs`. The endpoint backs off: not tried again for
     * `backoffBaseMs` doubled with each failure in a row, at most `maxBackoffMs`. Its run of
     * failures starts now unless it was already failing and was due to be tried again less
     * than two maximal backoffs ago: an endpoint nothing was sent to for hours is not taken to
     * have been failing all along. Answers what became of the delivery, and whether the
     * endpoint has now been failing for `giveUpAfterMs` (the caller disables it).
     */
    async recordFailure(f: {
      id: string;
      endpointId: string;
      statusCode: number | null;
      error: string;
      retryDelayMs: number;
      backoffBaseMs: number;
      maxBackoffMs: number;
      giveUpAfterMs: number;
      timing: AttemptTiming;
      at?: Date;
    }): Promise<{ deliveryFailed: boolean; endpointExhausted: boolean }> {
      const r = await db.query<{ delivery_failed: boolean | null; endpoint_exhausted: boolean | null }>(
        `WITH clock AS (SELECT coalesce($9::timestamptz, now()) AS t),
         ${ATTEMPT_CTE('$1', '$10::int, $11::timestamptz, $12::int, $3, $4')},
         delivery AS (
           UPDATE webhook_deliveries d
              SET last_status_code = $3, last_error = $4, leased_until = NULL, attempts = $10::int,
                  next_attempt_at = clock.t + make_interval(secs => $5::double precision / 1000),
                  status = CASE WHEN d.first_attempt_due <= clock.t - make_interval(secs => $8::double precision / 1000)
                                THEN 'failed' ELSE 'pending' END
             FROM clock WHERE d.id = $1::bigint AND d.status = 'pending'
           RETURNING d.status = 'failed' AS failed
         ), endpoint AS (
           UPDATE webhook_endpoints w
              SET failures = w.failures + 1,
                  failing_since = CASE
                    WHEN w.failing_since IS NULL
                      OR w.next_attempt_at < clock.t - make_interval(secs => 2 * $7::double precision / 1000)
                    THEN clock.t ELSE w.failing_since END,
                  next_attempt_at = clock.t + make_interval(
                    secs => least($6::double precision * power(2, least(w.failures, 40)), $7::double precision) / 1000)
             FROM clock WHERE w.id = $2 AND w.status = 'enabled'
           RETURNING w.failing_since <= clock.t - make_interval(secs => $8::double precision / 1000) AS exhausted
         )
         SELECT (SELECT failed FROM delivery) AS delivery_failed, (SELECT exhausted FROM endpoint) AS endpoint_exhausted`,
        [
          f.id,
          f.endpointId,
          f.statusCode,
          f.error.slice(0, 1000),
          f.retryDelayMs,
          f.backoffBaseMs,
          f.maxBackoffMs,
          f.giveUpAfterMs,
          f.at ?? null,
          f.timing.attempt,
          f.timing.startedAt,
          f.timing.durationMs,
        ],
      );
      const row = r.rows[0];
      return { deliveryFailed: row?.delivery_failed === true, endpointExhausted: row?.endpoint_exhausted === true };
    },

    /**
     * Disables an endpoint that has failed for too long, in one statement: every pending
     * delivery of it fails (`keepErrorOf` keeps its own last error), and the back office's
     * audit log records it for the tenant. Returns the endpoint if this call disabled it.
     */
    async disableEndpoint(d: {
      endpointId: string;
      reason: string;
      keepErrorOf: string;
      at?: Date;
    }): Promise<WebhookEndpointRow | undefined> {
      const r = await db.query<WebhookEndpointRow>(
        `WITH clock AS (SELECT coalesce($4::timestamptz, now()) AS t),
         disabled AS (
           UPDATE webhook_endpoints SET status = 'disabled', disabled_at = clock.t, disabled_reason = $2
             FROM clock WHERE id = $1 AND status = 'enabled'
           RETURNING ${ENDPOINT_COLUMNS}
         ), failed AS (
           UPDATE webhook_deliveries d
              SET status = 'failed', leased_until = NULL,
                  last_error = CASE WHEN d.id = $3::bigint THEN d.last_error ELSE 'endpoint disabled' END
            WHERE d.endpoint_id IN (SELECT id FROM disabled) AND d.status = 'pending'
           RETURNING d.id
         ), audited AS (
           INSERT INTO admin_audit (at, username, tenant_id, ip, action, target, outcome, detail)
           SELECT clock.t, NULL, x.tenant_id, NULL, 'webhook_endpoint_disabled', x.id::text, 'ok',
                  jsonb_build_object('url', x.url, 'failing_since', x.failing_since, 'reason', x.disabled_reason,
                                     'deliveries_failed', (SELECT count(*) FROM failed))
             FROM disabled x, clock
         )
         SELECT ${ENDPOINT_COLUMNS} FROM disabled`,
        [d.endpointId, d.reason.slice(0, 1000), d.keepErrorOf, d.at ?? null],
      );
      return r.rows[0];
    },
  };
}
