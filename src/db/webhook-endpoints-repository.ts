import type { Database } from './database.ts';
import { ENDPOINT_COLUMNS, type EndpointSummaryRow, type WebhookEndpointRow } from './webhook-rows.ts';

/** A tenant's webhook endpoints as the API, the back office and the CLI keep them. */
export function webhookEndpointsRepository(db: Database) {
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
  };
}
