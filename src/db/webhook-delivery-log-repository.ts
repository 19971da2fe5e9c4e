import type { Database } from './database.ts';
import type { DeliveryLogRow, DeliveryRow } from './webhook-rows.ts';

/** The deliveries as a log: read, queued again (an event to all, one delivery to its endpoint), purged. */
export function webhookDeliveryLogRepository(db: Database) {
  return {
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
