import type { Status } from '../domain/index.js';
import type { Queryable } from './database.js';

/** Which deadline a batch looks at: the end of a hold, or the end of a payment link's life. */
export type Deadline = 'hold_expires_at' | 'link_expires_at';

export interface ExpiryBatch {
  deadline: Deadline;
  /** The statuses the transition table lets this trigger move from. */
  from: readonly Status[];
  to: Status;
  now: Date;
  limit: number;
  /** Recorded in the history row's detail, e.g. `hold_expired`. */
  trigger: string;
}

/**
 * The expiry job's SQL. One statement per batch: pick up to `limit` due rows (locked, skipping
 * rows another run holds, so two runs never wait on each other), move each with a conditional
 * UPDATE and write its history row. A row with a pending action is left alone: a capture or a
 * release in flight wins over the expiry, and the next run looks again if it gave the claim back.
 */
export function expiryRepository(db: Queryable) {
  return {
    /** Moves one batch; returns how many rows moved (0: nothing left). */
    async expireBatch(b: ExpiryBatch): Promise<number> {
      // The column name is one of two literals (the Deadline type), never user input.
      const col = b.deadline === 'hold_expires_at' ? 'hold_expires_at' : 'link_expires_at';
      const r = await db.query(
        `WITH due AS (
           SELECT id, status FROM payment_requests
            WHERE status = ANY($1::text[]) AND pending_action IS NULL AND ${col} <= $2::timestamptz
            ORDER BY ${col}, id LIMIT $3
            FOR UPDATE SKIP LOCKED
         ), upd AS (
           UPDATE payment_requests p SET status = $4, updated_at = date_trunc('milliseconds', now())
             FROM due
            WHERE p.id = due.id AND p.status = due.status AND p.pending_action IS NULL
           RETURNING p.id, p.tenant_id, due.status AS from_status, p.${col} AS deadline
         )
         INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor, detail)
         SELECT id, tenant_id, from_status, $4, 'job', 'expire_payment_requests',
                jsonb_build_object('trigger', $5::text, '${col}', deadline)
           FROM upd`,
        [b.from, b.now.toISOString(), b.limit, b.to, b.trigger],
      );
      return r.rowCount;
    },
  };
}
export type ExpiryRepository = ReturnType<typeof expiryRepository>;
