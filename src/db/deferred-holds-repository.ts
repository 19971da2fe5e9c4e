import type { Currency, Status } from '../domain/index.js';
import type { Queryable } from './database.js';

/** A move the transition table allows; the job asks the table, the SQL only applies it. */
export interface Move {
  from: Status;
  to: Status;
}

/** What the provider answered for one claimed row. */
export type HoldOutcome =
  | { id: string; kind: 'placed'; transactionId: string; holdDays: number }
  | { id: string; kind: 'refused'; error: string }
  | { id: string; kind: 'failed'; error: string };

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
 * The daily job's SQL: find the imprints due for their hold, claim them, record their outcomes.
 * Claims and outcomes go by groups: at 100,000 holds a day, one commit per row per step was
 * what bounded the job (each autocommit waits for its WAL flush).
 */
export function deferredHoldsRepository(db: Queryable) {
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

    /**
     * Claims a group of due rows in one statement, before any of them reaches the provider.
     * One winner per row still: the conditional UPDATE takes each row's lock, so a concurrent
     * run, or a capture racing the job, finds the rows it lost already taken and skips them.
     * Returns the ids this call won.
     */
    async claim(ids: readonly string[], from: Status): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const r = await db.query<{ id: string }>(
        `UPDATE payment_requests SET pending_action = 'hold', pending_since = now()
          WHERE id = ANY($1::uuid[]) AND status = $2 AND pending_action IS NULL RETURNING id`,
        [ids, from],
      );
      return new Set(r.rows.map((row) => row.id));
    },

    /**
     * Records the outcomes of a claimed group in one statement (one commit, not one per row):
     * a placed hold moves to `placed.to` with its transaction and end, a refusal to
     * `refused.to` with its reason, each with its history row; a technical failure only gives
     * the claim back and counts the attempt, so the next run tries again. Only rows this job
     * still holds claimed, in the status it claimed them in, are touched.
     */
    async record(outcomes: readonly HoldOutcome[], placed: Move, refused: Move): Promise<void> {
      if (outcomes.length === 0) return;
      if (placed.from !== refused.from) throw new Error('a hold is placed or refused from the same status');
      const ids: string[] = [];
      const kinds: string[] = [];
      const txns: (string | null)[] = [];
      const errors: (string | null)[] = [];
      const days: (number | null)[] = [];
      for (const o of outcomes) {
        ids.push(o.id);
        kinds.push(o.kind);
        txns.push(o.kind === 'placed' ? o.transactionId : null);
        errors.push(o.kind === 'placed' ? null : o.error);
        days.push(o.kind === 'placed' ? o.holdDays : null);
      }
      await db.query(
        `WITH o AS (
           SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::int[]) AS o(id, kind, txn, err, days)
         ), upd AS (
           UPDATE payment_requests p
              SET status = CASE o.kind WHEN 'placed' THEN $7 WHEN 'refused' THEN $8 ELSE p.status END,
                  pending_action = NULL, pending_since = NULL,
                  provider_transaction_id = CASE WHEN o.kind = 'placed' THEN o.txn ELSE p.provider_transaction_id END,
                  hold_expires_at = CASE WHEN o.kind = 'placed' THEN now() + make_interval(days => o.days)
                                         ELSE p.hold_expires_at END,
                  hold_attempts = p.hold_attempts + 1, last_hold_error = o.err,
                  updated_at = CASE WHEN o.kind = 'failed' THEN p.updated_at ELSE date_trunc('milliseconds', now()) END
             FROM o
            WHERE p.id = o.id AND p.pending_action = 'hold' AND p.status = $6
           RETURNING p.id, p.tenant_id, p.status, o.kind, o.txn, o.err
         )
         INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor, detail)
         SELECT id, tenant_id, $6, status, 'job', 'create_deferred_payments',
                CASE kind WHEN 'placed' THEN jsonb_build_object('transaction_id', txn) ELSE jsonb_build_object('reason', err) END
           FROM upd WHERE kind <> 'failed'`,
        [ids, kinds, txns, errors, days, placed.from, placed.to, refused.to],
      );
    },
  };
}
export type DeferredHoldsRepository = ReturnType<typeof deferredHoldsRepository>;
