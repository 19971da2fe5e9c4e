import type { Database } from './database.ts';
import { DETAIL_COLUMNS, type PaymentRequestRow } from './payment-requests-repository.ts';
import { whereBuilder } from './where-builder.ts';

/** One event of the feed: the status change of a request, with the request as it was then. */
export interface EventRow {
  id: number;
  tenant_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

const EVENT_COLUMNS = 'id::text AS id, tenant_id, type, data, created_at';

export interface ChangedFilter {
  updatedAfter: Date;
  status?: string;
  requestType?: string;
  reservationRef?: string;
  /** Keyset position: rows after (updated_at, id). */
  after?: { createdAt: Date; id: string };
  limit: number;
}

function toEvent(row: EventRow): EventRow {
  return { ...row, id: Number(row.id) };
}

/** The event feed (written by the status_history trigger, never by code) and change queries. */
export function eventsRepository(db: Database) {
  return {
    /**
     * A tenant's events after the one with id `after`, in feed order: by writing transaction,
     * then by id. Only events whose transaction and every older one have ended are shown
     * (txid below the snapshot's xmin), so an event committed late by a slower transaction is
     * never skipped by a reader who already went past its id: it shows up after the ones
     * already read. An `after` unknown to this tenant (purged, or made up) counts by id alone.
     */
    async feed(tenantId: string, after: number | undefined, limit: number): Promise<EventRow[]> {
      const r = await db.query<EventRow>(
        `WITH pos AS (SELECT txid, id FROM events WHERE id = $2::bigint AND tenant_id = $1)
         SELECT ${EVENT_COLUMNS} FROM events e
          WHERE e.tenant_id = $1
            AND e.txid < pg_snapshot_xmin(pg_current_snapshot())
            AND ($2::bigint IS NULL
                 OR (e.txid, e.id) > (SELECT txid, id FROM pos)
                 OR (NOT EXISTS (SELECT 1 FROM pos) AND e.id > $2::bigint))
          ORDER BY e.txid, e.id LIMIT $3`,
        [tenantId, after ?? null, limit],
      );
      return r.rows.map(toEvent);
    },

    async find(id: number): Promise<EventRow | undefined> {
      const r = await db.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1::bigint`, [id]);
      const row = r.rows[0];
      return row ? toEvent(row) : undefined;
    },

    /** Requests changed after a time, oldest change first (index payment_requests_tenant_updated). */
    async changedSince(tenantId: string, f: ChangedFilter): Promise<PaymentRequestRow[]> {
      const w = whereBuilder().and('tenant_id = ?', tenantId).and('updated_at > ?', f.updatedAfter);
      if (f.status) w.and('status = ?', f.status);
      if (f.requestType) w.and('request_type = ?', f.requestType);
      if (f.reservationRef) w.and('reservation_ref = ?', f.reservationRef);
      if (f.after) w.and('(updated_at, id) > (?, ?::uuid)', f.after.createdAt, f.after.id);
      const r = await db.query<PaymentRequestRow>(
        `SELECT ${DETAIL_COLUMNS} FROM payment_requests ${w.clause}
          ORDER BY updated_at, id LIMIT ${w.param(f.limit)}`,
        w.params,
      );
      return r.rows;
    },

    /**
     * Retention: events older than `olderThanDays` whose deliveries are all settled. Returns
     * how many went. The history (status_history) keeps every change regardless.
     *
     * An event is written with its change, so ids follow time: the old events are the first
     * ids. The purge walks the primary key from the first event to the first one still kept,
     * and no index on created_at is kept for this one daily job (every status change would
     * write an entry in it). The walk stops there, so a run reads what it deletes, the events
     * a delivery still waits for, and one more.
     */
    async purge(olderThanDays: number, limit = 10_000): Promise<number> {
      const r = await db.query(
        `DELETE FROM events WHERE id IN (
           SELECT e.id FROM events e
            WHERE e.id < coalesce(
                    (SELECT kept.id FROM events kept
                      WHERE kept.created_at >= now() - make_interval(days => $1::int)
                      ORDER BY kept.id LIMIT 1),
                    9223372036854775807)
              AND e.created_at < now() - make_interval(days => $1::int)
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
            ORDER BY e.id LIMIT $2)`,
        [olderThanDays, limit],
      );
      return r.rowCount;
    },
  };
}
export type EventsRepository = ReturnType<typeof eventsRepository>;
