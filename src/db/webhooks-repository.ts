import type { Database } from './database.ts';

export interface WebhookEndpointRow {
  id: string;
  tenant_id: string;
  url: string;
  events: string[];
  secret_sealed: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: Date | null;
  /** When its current run of failed attempts began; null while it answers. */
  failing_since: Date | null;
  created_at: Date;
  /** Until when the secret replaced by the last rotation still signs; null: none does. */
  previous_secret_expires_at: Date | null;
}

/** An endpoint with what its list shows: its last attempt, and how many deliveries failed. */
export interface EndpointSummaryRow extends WebhookEndpointRow {
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  failed_deliveries: number;
  pending_deliveries: number;
}

/** One attempt of a delivery, as the log shows it. */
export interface AttemptRow {
  attempt: number;
  /** An ISO time: attempts come aggregated as JSON. */
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** One delivery of the log, with its event and every attempt, oldest first. */
export interface DeliveryLogRow {
  id: string;
  event_id: string;
  type: string | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
  tries: AttemptRow[];
}

/** What an attempt took: recorded with its outcome, in the same statement. */
export interface AttemptTiming {
  attempt: number;
  startedAt: Date;
  durationMs: number;
}

/** What one claim may take; see claim(). */
export interface ClaimLimits {
  limit: number;
  leaseMs: number;
  perEndpoint: number;
  perTenant: number;
  /** The clock; the database's own when unset (tests drive it). */
  at?: Date;
}

/** A delivery this instance holds the lease on, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  first_attempt_due: Date;
  url: string;
  secret_sealed: string;
  /** The secret a rotation replaced, while it still signs. */
  previous_secret_sealed: string | null;
  tenant_id: string;
  type: string;
  data: Record<string, unknown>;
  event_created_at: Date;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  next_attempt_at: Date;
}

const ENDPOINT_COLUMNS =
  'id, tenant_id, url, events, secret_sealed, status, disabled_reason, disabled_at, failing_since, created_at, previous_secret_expires_at';

/** The attempt row written with an outcome: a CTE over `clock`, reading the delivery's own row. */
const ATTEMPT_CTE = (id: string, timing: string) => `attempt AS (
           INSERT INTO webhook_attempts (delivery_id, endpoint_id, attempt, started_at, duration_ms, status_code, error)
           SELECT d.id, d.endpoint_id, ${timing} FROM webhook_deliveries d WHERE d.id = ${id}::bigint
         )`;

/** Webhook endpoints and their delivery outbox (rows written by the status_history trigger). */
export function webhooksRepository(db: Database) {
  return {
    async createEndpoint(e: {
      id: string;
      tenantId: string;
      url: string;
      events: string[];
      secretSealed: string;
    }): Promise<WebhookEndpointRow> {
      const r = await db.query<WebhookEndpointRow>(
        `INSERT INTO webhook_endpoints (id, tenant_id, url, events, secret_sealed)
         VALUES ($1, $2, $3, $4::text[], $5) RETURNING ${ENDPOINT_COLUMNS}`,
        [e.id, e.tenantId, e.url, e.events, e.secretSealed],
      );
      return r.rows[0] as WebhookEndpointRow;
    },

    async listEndpoints(tenantId: string): Promise<WebhookEndpointRow[]> {
      const r = await db.query<WebhookEndpointRow>(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 ORDER BY created_at, id`,
        [tenantId],
      );
      return r.rows;
    },

    async findEndpoint(id: string): Promise<WebhookEndpointRow | undefined> {
      const r = await db.query<WebhookEndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1`, [
        id,
      ]);
      return r.rows[0];
    },

    /** Deletes the endpoint and its delivery log with it. */
    async deleteEndpoint(id: string): Promise<boolean> {
      const r = await db.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
      return r.rowCount > 0;
    },

    /**
     * Queues `eventId` again for every enabled endpoint of its tenant that takes its type: a
     * delivered or failed row becomes pending, with a fresh 3-day retry window. Returns the
     * endpoints it was queued for.
     */
    async redeliver(eventId: number): Promise<string[]> {
      const r = await db.query<{ endpoint_id: string }>(
        `INSERT INTO webhook_deliveries (endpoint_id, event_id, payment_request_id)
         SELECT w.id, e.id, e.payment_request_id FROM events e
           JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id AND w.status = 'enabled'
                AND (cardinality(w.events) = 0 OR e.type = ANY (w.events))
          WHERE e.id = $1::bigint
         ON CONFLICT (endpoint_id, event_id) DO UPDATE
           SET status = 'pending', attempts = 0, next_attempt_at = now(), first_attempt_due = now(),
               last_error = NULL, last_status_code = NULL, delivered_at = NULL
         RETURNING endpoint_id`,
        [eventId],
      );
      return r.rows.map((row) => row.endpoint_id);
    },

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

    /** A tenant's endpoints for the back office's list: last attempt, failed and pending deliveries. */
    async summaries(tenantId: string): Promise<EndpointSummaryRow[]> {
      const r = await db.query<EndpointSummaryRow>(
        `SELECT ${ENDPOINT_COLUMNS.split(', ')
          .map((c) => `w.${c}`)
          .join(', ')},
                last.started_at AS last_attempt_at, last.status_code AS last_status_code, last.error AS last_error,
                (SELECT count(*)::int FROM webhook_deliveries d WHERE d.endpoint_id = w.id AND d.status = 'failed')
                  AS failed_deliveries,
                (SELECT count(*)::int FROM webhook_deliveries d WHERE d.endpoint_id = w.id AND d.status = 'pending')
                  AS pending_deliveries
           FROM webhook_endpoints w
           LEFT JOIN LATERAL (
             SELECT a.started_at, a.status_code, a.error FROM webhook_attempts a
              WHERE a.endpoint_id = w.id ORDER BY a.id DESC LIMIT 1) last ON true
          WHERE w.tenant_id = $1 ORDER BY w.created_at, w.id`,
        [tenantId],
      );
      return r.rows;
    },

    /**
     * Disabled by someone (not for failing): its pending deliveries fail with it, as when it is
     * disabled for failing; they can be sent again from the log once it is enabled. Returns the
     * endpoint if this call disabled it.
     */
    async disableByHand(d: { endpointId: string; reason: string }): Promise<WebhookEndpointRow | undefined> {
      const r = await db.query<WebhookEndpointRow>(
        `WITH disabled AS (
           UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now(), disabled_reason = $2
            WHERE id = $1 AND status = 'enabled'
           RETURNING ${ENDPOINT_COLUMNS}
         ), failed AS (
           UPDATE webhook_deliveries d SET status = 'failed', leased_until = NULL, last_error = 'endpoint disabled'
            WHERE d.endpoint_id IN (SELECT id FROM disabled) AND d.status = 'pending'
         )
         SELECT ${ENDPOINT_COLUMNS} FROM disabled`,
        [d.endpointId, d.reason.slice(0, 1000)],
      );
      return r.rows[0];
    },

    /** Enabled again, with a clean slate: no run of failures, tried at once. */
    async enable(endpointId: string): Promise<WebhookEndpointRow | undefined> {
      const r = await db.query<WebhookEndpointRow>(
        `UPDATE webhook_endpoints
            SET status = 'enabled', disabled_at = NULL, disabled_reason = NULL, failures = 0, failing_since = NULL,
                next_attempt_at = now()
          WHERE id = $1 AND status = 'disabled'
         RETURNING ${ENDPOINT_COLUMNS}`,
        [endpointId],
      );
      return r.rows[0];
    },

    /**
     * A new secret; the one it replaces keeps signing for `graceMs`. A second rotation within
     * the grace drops the secret before the last: only the one just replaced keeps signing.
     */
    async rotateSecret(d: {
      endpointId: string;
      secretSealed: string;
      graceMs: number;
    }): Promise<WebhookEndpointRow | undefined> {
      const r = await db.query<WebhookEndpointRow>(
        `UPDATE webhook_endpoints
            SET previous_secret_sealed = secret_sealed, secret_sealed = $2,
                previous_secret_expires_at = now() + make_interval(secs => $3::double precision / 1000)
          WHERE id = $1
         RETURNING ${ENDPOINT_COLUMNS}`,
        [d.endpointId, d.secretSealed, d.graceMs],
      );
      return r.rows[0];
    },

    /**
     * An endpoint's deliveries, newest first, `limit` of them before delivery `before` (a
     * page), each with its event's type (null once the event is purged) and its attempts.
     */
    async deliveryLog(endpointId: string, o: { before?: string; limit: number }): Promise<DeliveryLogRow[]> {
      const r = await db.query<DeliveryLogRow>(
        `SELECT d.id::text AS id, d.event_id::text AS event_id, e.type, d.status, d.attempts, d.created_at,
                d.next_attempt_at,
                coalesce((SELECT json_agg(json_build_object(
                            'attempt', a.attempt, 'started_at', a.started_at, 'duration_ms', a.duration_ms,
                            'status_code', a.status_code, 'error', a.error) ORDER BY a.id)
                            FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::json) AS tries
           FROM webhook_deliveries d LEFT JOIN events e ON e.id = d.event_id
          WHERE d.endpoint_id = $1 AND ($2::bigint IS NULL OR d.id < $2::bigint)
          ORDER BY d.id DESC LIMIT $3`,
        [endpointId, o.before ?? null, o.limit],
      );
      return r.rows;
    },

    /**
     * Queues one delivery again, to its endpoint only, if the endpoint is enabled and its event
     * is still kept: pending at once with a fresh 3-day retry window, and the endpoint tried
     * now rather than at the end of its backoff (someone is watching). Its attempts so far stay
     * in the log. Answers whether it was queued.
     */
    async resend(d: { deliveryId: string; endpointId: string }): Promise<boolean> {
      const r = await db.query(
        `WITH queued AS (
           UPDATE webhook_deliveries d
              SET status = 'pending', attempts = 0, next_attempt_at = now(), first_attempt_due = now(),
                  last_error = NULL, last_status_code = NULL, delivered_at = NULL, leased_until = NULL
            WHERE d.id = $1::bigint AND d.endpoint_id = $2 AND d.status <> 'pending'
              AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = d.endpoint_id AND w.status = 'enabled')
              AND EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id)
           RETURNING d.endpoint_id
         ), woken AS (
           UPDATE webhook_endpoints SET next_attempt_at = now() WHERE id IN (SELECT endpoint_id FROM queued)
         )
         SELECT endpoint_id FROM queued`,
        [d.deliveryId, d.endpointId],
      );
      return r.rows.length > 0;
    },

    async deliveries(eventId: number): Promise<DeliveryRow[]> {
      const r = await db.query<DeliveryRow>(
        `SELECT id::text AS id, endpoint_id, event_id::text AS event_id, status, attempts, last_status_code,
                last_error, delivered_at, next_attempt_at
           FROM webhook_deliveries WHERE event_id = $1::bigint ORDER BY webhook_deliveries.id`,
        [eventId],
      );
      return r.rows;
    },

    /** Retention: delivered rows older than `olderThanDays`; failed ones are kept as long as events. */
    async purgeDelivered(olderThanDays: number, limit = 10_000): Promise<number> {
      const r = await db.query(
        `DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries
            WHERE status = 'delivered' AND delivered_at < now() - make_interval(days => $1::int)
            LIMIT $2)`,
        [olderThanDays, limit],
      );
      return r.rowCount;
    },
  };
}
export type WebhooksRepository = ReturnType<typeof webhooksRepository>;
