import type { Currency, Status } from '../domain/index.js';
import type { Queryable } from './database.js';

/** A move the transition table allows; the job asks the table, the SQL only applies it. */
export interface Move {
  from: Status;
  to: Status;
}

export interface DueImprint {
  id: string;
  tenant_id: string;
  reference: string;
  amount: number;
  currency: Currency;
  card_token: string;
  hold_days: number;
}

/**
 * The daily job's SQL: find the imprints due for their hold, claim one, record its outcome.
 * Every outcome is one statement that moves the row, releases the claim and writes the history.
 */
export function deferredHoldsRepository(db: Queryable) {
  // $1 id, $2 from, $3 to, $4 history detail; the caller's own values follow from $5.
  const finish = (set: string) => `
    WITH upd AS (
      UPDATE payment_requests p SET status = $3, pending_action = NULL, pending_since = NULL, ${set},
        updated_at = date_trunc('milliseconds', now())
       WHERE p.id = $1 AND p.pending_action = 'hold' AND p.status = $2
      RETURNING p.id, p.tenant_id
    )
    INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor, detail)
    SELECT id, tenant_id, $2, $3, 'job', 'create_deferred_payments', $4::jsonb FROM upd`;

  return {
    /**
     * One batch of IMPRINTs in AUTHORISED, with a card token, not claimed, whose check-in is
     * from `from` to `to` (inclusive), after `afterId` in id order: keyset batches, so the
     * job never loads the table and always moves forward. The status and type are literals
     * so the planner can use the partial index made for this query.
     */
    async dueBatch(from: string, to: string, afterId: string | null, limit: number): Promise<DueImprint[]> {
      const r = await db.query<DueImprint>(
        `SELECT p.id, p.tenant_id, p.reference, p.amount, p.currency, p.card_token, t.hold_days
           FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id
          WHERE p.status = 'AUTHORISED' AND p.request_type = 'IMPRINT'
            AND p.checkin BETWEEN $1::date AND $2::date
            AND p.card_token IS NOT NULL AND p.pending_action IS NULL
            AND ($3::uuid IS NULL OR p.id > $3::uuid)
          ORDER BY p.id LIMIT $4`,
        [from, to, afterId, limit],
      );
      return r.rows;
    },

    /** One winner: a concurrent run, or a capture racing the job, finds the row taken. */
    async claim(id: string, from: Status): Promise<boolean> {
      const r = await db.query(
        `UPDATE payment_requests SET pending_action = 'hold', pending_since = now()
          WHERE id = $1 AND status = $2 AND pending_action IS NULL RETURNING 1`,
        [id, from],
      );
      return r.rowCount > 0;
    },

    async placed(id: string, move: Move, transactionId: string, holdDays: number): Promise<void> {
      await db.query(
        finish(`provider_transaction_id = $5, hold_expires_at = now() + make_interval(days => $6::int),
           hold_attempts = p.hold_attempts + 1, last_hold_error = NULL`),
        [id, move.from, move.to, JSON.stringify({ transaction_id: transactionId }), transactionId, holdDays],
      );
    },

    async refused(id: string, move: Move, reason: string): Promise<void> {
      await db.query(finish('hold_attempts = p.hold_attempts + 1, last_hold_error = $5'), [
        id,
        move.from,
        move.to,
        JSON.stringify({ reason }),
        reason,
      ]);
    },

    /** A technical failure: the claim is given back and the request waits for the next run. */
    async failed(id: string, error: string): Promise<void> {
      await db.query(
        `UPDATE payment_requests SET pending_action = NULL, pending_since = NULL,
           hold_attempts = hold_attempts + 1, last_hold_error = $2
         WHERE id = $1 AND pending_action = 'hold'`,
        [id, error],
      );
    },
  };
}
export type DeferredHoldsRepository = ReturnType<typeof deferredHoldsRepository>;
