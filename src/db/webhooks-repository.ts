import type { Database } from './database.js';

export interface WebhookEndpointRow {
  id: string;
  tenant_id: string;
  url: string;
  events: string[];
  secret_sealed: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: Date | null;
  created_at: Date;
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

const ENDPOINT_COLUMNS = 'id, tenant_id, url, events, secret_sealed, status, disabled_reason, disabled_at, created_at';

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
     * Takes up to `limit` due deliveries for this instance. The lease is the claim: next_attempt_at
     * moves past now, so a concurrent claimer's WHERE no longer matches (SKIP LOCKED spares it
     * the wait), and a crashed holder's rows come back when the lease runs out. A delivery is
     * only due once every earlier pending delivery of the same request to the same endpoint is
     * settled, so an endpoint receives the events of one request in order.
     */
    async claim(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
      const r = await db.query<ClaimedDelivery>(
        `WITH due AS (
           SELECT d.id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.next_attempt_at <= now()
              AND NOT EXISTS (
                SELECT 1 FROM webhook_deliveries earlier
                 WHERE earlier.endpoint_id = d.endpoint_id AND earlier.payment_request_id = d.payment_request_id
                   AND earlier.status = 'pending' AND earlier.id < d.id)
            ORDER BY d.next_attempt_at, d.id LIMIT $1
            FOR UPDATE SKIP LOCKED
         ), claimed AS (
           UPDATE webhook_deliveries d
              SET attempts = d.attempts + 1,
                  next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
             FROM due
            WHERE d.id = due.id AND d.status = 'pending' AND d.next_attempt_at <= now()
           RETURNING d.id, d.endpoint_id, d.event_id, d.attempts, d.first_attempt_due
         )
         SELECT c.id::text AS id, c.endpoint_id, c.event_id::text AS event_id, c.attempts, c.first_attempt_due,
                w.url, w.secret_sealed, w.tenant_id, e.type, e.data, e.created_at AS event_created_at
           FROM claimed c
           JOIN webhook_endpoints w ON w.id = c.endpoint_id
           JOIN events e ON e.id = c.event_id
          ORDER BY c.id`,
        [limit, leaseMs],
      );
      return r.rows;
    },

    async markDelivered(id: string, statusCode: number): Promise<void> {
      await db.query(
        `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), last_status_code = $2, last_error = NULL
          WHERE id = $1::bigint AND status = 'pending'`,
        [id, statusCode],
      );
    },

    /** A failed attempt, retried at `retryAt`. */
    async markRetry(id: string, statusCode: number | null, error: string, retryAt: Date): Promise<void> {
      await db.query(
        `UPDATE webhook_deliveries SET last_status_code = $2, last_error = $3, next_attempt_at = $4::timestamptz
          WHERE id = $1::bigint AND status = 'pending'`,
        [id, statusCode, error.slice(0, 1000), retryAt],
      );
    },

    /**
     * Retries are over: this delivery and every other pending one of the endpoint fail, and the
     * endpoint is disabled with the reason, in one statement. Returns whether it was enabled.
     */
    async giveUp(id: string, endpointId: string, statusCode: number | null, error: string): Promise<boolean> {
      const r = await db.query(
        `WITH this AS (
           UPDATE webhook_deliveries SET status = 'failed', last_status_code = $3, last_error = $4
            WHERE id = $1::bigint AND status = 'pending'
         ), others AS (
           UPDATE webhook_deliveries SET status = 'failed', last_error = 'endpoint disabled'
            WHERE endpoint_id = $2 AND status = 'pending' AND id <> $1::bigint
         )
         UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now(), disabled_reason = $5
          WHERE id = $2 AND status = 'enabled'`,
        [
          id,
          endpointId,
          statusCode,
          error.slice(0, 1000),
          `deliveries failed for 3 days; last error: ${error}`.slice(0, 1000),
        ],
      );
      return r.rowCount > 0;
    },

    async deliveries(eventId: number): Promise<DeliveryRow[]> {
      const r = await db.query<DeliveryRow>(
        `SELECT id::text AS id, endpoint_id, event_id::text AS event_id, status, attempts, last_status_code,
                last_error, delivered_at, next_attempt_at
           FROM webhook_deliveries WHERE event_id = $1::bigint ORDER BY id`,
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
