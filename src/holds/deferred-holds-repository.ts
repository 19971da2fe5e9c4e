import type { Queryable } from '../db/index.ts';
import type { Currency, Status } from '../domain/index.ts';

export interface DueImprint {
  id: string;
  tenant_id: string;
  reference: string;
  amount: number;
  currency: Currency;
  card_token: string;
  card_network_transaction_id: string | null;
  provider: string | null;
  /** The check-in day (YYYY-MM-DD): a soft decline before it is tried again. */
  checkin: string;
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
        `SELECT p.id, p.tenant_id, p.reference, p.amount, p.currency, p.card_token, p.card_network_transaction_id,
                p.provider, p.checkin::text AS checkin
           FROM payment_requests p
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
     * A request whose ledger already has a hold (placed, asked, or in doubt) is never claimed
     * again: one hold per order, whatever state the request's columns are in.
     * Returns the ids this call won. `q`: the transaction that also writes their ledger rows,
     * with `token`, the claim's token, on each.
     */
    async claim(ids: readonly string[], from: Status, token: string, q: Queryable = db): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const r = await q.query<{ id: string }>(
        `UPDATE payment_requests p SET pending_action = 'hold', pending_since = now(), claim_token = $3
          WHERE p.id = ANY($1::uuid[]) AND p.status = $2 AND p.pending_action IS NULL
            AND NOT EXISTS (SELECT 1 FROM money_ledger l
                             WHERE l.payment_request_id = p.id AND l.kind = 'hold'
                               AND l.state NOT IN ('failed', 'refused'))
          RETURNING p.id`,
        [ids, from, token],
      );
      return new Set(r.rows.map((row) => row.id));
    },
  };
}
export type DeferredHoldsRepository = ReturnType<typeof deferredHoldsRepository>;
