import type { Queryable } from '../db/index.ts';
import { GUARANTEE_FAILED } from '../db/index.ts';
import type { Currency } from '../domain/index.ts';

/** A live hold due for renewal, with what its successor is made of. */
export interface DueRenewal {
  id: string;
  tenant_id: string;
  reference: string;
  amount: number;
  currency: Currency;
  card_token: string;
  card_network_transaction_id: string | null;
  provider: string | null;
  /** The live hold: its ledger row (the renewal's parent) and its transaction. */
  live_hold_id: string;
  live_transaction_id: string;
  /** The live hold's end, exactly as stored (microseconds: a Date keeps milliseconds): the run's keyset. */
  cursor_at: string;
  /** Hold attempts settled so far: any settled since this read (renewed, refused, failed) moves it. */
  hold_attempts: number;
}

/** A due renewal as read, which its claim must find unchanged. */
export type RenewalRead = Pick<DueRenewal, 'id' | 'live_transaction_id' | 'cursor_at' | 'hold_attempts'>;

/** A hold a renewal replaced and nobody has released yet, still alive. */
export interface SupersededHold {
  id: string;
  payment_request_id: string;
  tenant_id: string;
  reference: string;
  currency: Currency;
  provider: string;
  provider_transaction_id: string;
  /** Release rows written for it so far (failed ones): the next one's key counts them. */
  attempts: number;
}

/**
 * When a hotel decides about a guarantee, in SQL: the check-out the PMS sent (validated as a
 * date at create), or the morning after check-in. The same rule as hold-lapse.ts.
 */
const DECISION_DATE = `COALESCE(CASE WHEN p.reservation_data->>'checkout' ~ '^\\d{4}-\\d{2}-\\d{2}$'
                                     THEN (p.reservation_data->>'checkout')::date END, p.checkin + 1)`;

const DUE_COLUMNS = `p.id, p.tenant_id, p.reference, p.amount, p.currency, p.card_token,
  p.card_network_transaction_id, p.provider, p.hold_expires_at::text AS cursor_at, live.id::text AS live_hold_id,
  p.provider_transaction_id AS live_transaction_id, p.hold_attempts`;

/** The live hold's ledger row: the succeeded hold of the request's own transaction. */
const LIVE_HOLD = `CROSS JOIN LATERAL (
  SELECT l.id FROM money_ledger l
   WHERE l.payment_request_id = p.id AND l.kind = 'hold' AND l.state = 'succeeded'
     AND l.provider_transaction_id = p.provider_transaction_id
   ORDER BY l.id DESC LIMIT 1) live`;

/**
 * The renewal run's SQL: the live holds that would lapse before the hotel's decision and
 * before the next run, their claim, and the old holds to release once replaced.
 */
export function holdRenewalsRepository(db: Queryable) {
  return {
    /**
     * One batch of IMPRINTs in AUTHORISED_TO_VALIDATE, not claimed, with a card, whose hold
     * ends, in the hotel's zone, on or before the day after `runDay` and on or before the
     * hotel's decision date, and has not ended yet at `at` (the run's moment: a lapsed hold is
     * the expiry job's, not renewal's); after `after` in (end, id) order: keyset batches along
     * the index of the live holds' ends, which the scan leaves at `runDay` + 3 days (UTC, wider
     * than any zone), so the run reads the holds due and nothing else, however large the table.
     * A guarantee that failed (a renewal the bank refused) is never renewed on the same card:
     * only a new card given by the guest is tried (newCardsBatch).
     */
    async dueBatch(
      runDay: string,
      after: { expiresAt: string; id: string } | null,
      limit: number,
      at: Date,
    ): Promise<DueRenewal[]> {
      const r = await db.query<DueRenewal>(
        `SELECT ${DUE_COLUMNS}
           FROM payment_requests p
           JOIN tenants t ON t.id = p.tenant_id
           ${LIVE_HOLD}
          WHERE p.status = 'AUTHORISED_TO_VALIDATE' AND p.request_type = 'IMPRINT'
            AND p.hold_expires_at < ($1::date + 3)::timestamp AT TIME ZONE 'UTC'
            AND p.hold_expires_at > $5::timestamptz
            AND ($2::timestamptz IS NULL OR (p.hold_expires_at, p.id) > ($2::timestamptz, $3::uuid))
            AND (p.hold_expires_at AT TIME ZONE t.timezone)::date <= $1::date + 1
            AND (p.hold_expires_at AT TIME ZONE t.timezone)::date <= ${DECISION_DATE}
            AND p.card_token IS NOT NULL AND p.pending_action IS NULL
            AND NOT ${GUARANTEE_FAILED('p')}
          ORDER BY p.hold_expires_at, p.id LIMIT $4`,
        [runDay, after?.expiresAt ?? null, after?.id ?? null, limit, at],
      );
      return r.rows;
    },

    /**
     * One batch of requests whose guest gave a new card after a refused renewal (`renew_hold`):
     * due at once, whatever their hold's end; after `afterId`, along their own small index.
     */
    async newCardsBatch(afterId: string | null, limit: number): Promise<DueRenewal[]> {
      const r = await db.query<DueRenewal>(
        `SELECT ${DUE_COLUMNS}
           FROM payment_requests p
           ${LIVE_HOLD}
          WHERE p.renew_hold AND p.status = 'AUTHORISED_TO_VALIDATE' AND p.request_type = 'IMPRINT'
            AND p.card_token IS NOT NULL AND p.pending_action IS NULL
            AND ($1::uuid IS NULL OR p.id > $1::uuid)
          ORDER BY p.id LIMIT $2`,
        [afterId, limit],
      );
      return r.rows;
    },

    /**
     * Claims a group for renewal in one statement, as the hold job claims its holds: one winner
     * against a concurrent run or a capture. Each request is claimed only while it still is what
     * the run read: the same live hold, ending at the same moment, with no hold attempt settled
     * since (so a concurrent run that renewed it, or whose renewal the bank refused, in between
     * leaves this run nothing to claim: the new hold's parent is always the live hold claimed).
     * A request with a hold under way or in doubt (a renewal whose answer was lost) is not
     * claimed: reconcile settles that one first. The conditions read the row the UPDATE locks.
     */
    async claim(read: readonly RenewalRead[], token: string, q: Queryable = db): Promise<Set<string>> {
      if (read.length === 0) return new Set();
      const r = await q.query<{ id: string }>(
        `UPDATE payment_requests p SET pending_action = 'hold', pending_since = now(), claim_token = $5
           FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::int[]) AS seen(id, txn, ends, attempts)
          WHERE p.id = seen.id AND p.status = 'AUTHORISED_TO_VALIDATE' AND p.pending_action IS NULL
            AND p.provider_transaction_id = seen.txn AND p.hold_expires_at = seen.ends
            AND p.hold_attempts = seen.attempts
            AND NOT EXISTS (SELECT 1 FROM money_ledger l
                             WHERE l.payment_request_id = p.id AND l.kind = 'hold'
                               AND l.state IN ('requested', 'in_doubt'))
          RETURNING p.id`,
        [
          read.map((x) => x.id),
          read.map((x) => x.live_transaction_id),
          read.map((x) => x.cursor_at),
          read.map((x) => x.hold_attempts),
          token,
        ],
      );
      return new Set(r.rows.map((row) => row.id));
    },

    /**
     * Holds a renewal replaced that are still alive (by their own end, against `at`) and that
     * no release has freed or is freeing: released after each renewal, and again by the next
     * run when that failed, even once the request is gone (released, then deleted: the old
     * hold still holds the guest's money until it is freed). Read through the index on live
     * holds' ends.
     */
    async superseded(at: Date, limit: number): Promise<SupersededHold[]> {
      const r = await db.query<SupersededHold>(
        `SELECT old.id::text, old.payment_request_id, old.tenant_id,
                COALESCE(p.reference, old.payment_request_id::text) AS reference, old.currency, old.provider,
                old.provider_transaction_id,
                (SELECT count(*)::int FROM money_ledger x WHERE x.parent_id = old.id AND x.kind = 'release') AS attempts
           FROM money_ledger old
           LEFT JOIN payment_requests p ON p.id = old.payment_request_id
          WHERE old.kind = 'hold' AND old.state = 'succeeded' AND old.hold_expires_at > $1
            AND old.provider_transaction_id IS DISTINCT FROM p.provider_transaction_id
            AND EXISTS (SELECT 1 FROM money_ledger n
                         WHERE n.parent_id = old.id AND n.kind = 'hold' AND n.state = 'succeeded')
            AND NOT EXISTS (SELECT 1 FROM money_ledger x
                             WHERE x.parent_id = old.id AND x.kind = 'release' AND x.state <> 'failed')
          ORDER BY old.id LIMIT $2`,
        [at, limit],
      );
      return r.rows;
    },
  };
}
export type HoldRenewalsRepository = ReturnType<typeof holdRenewalsRepository>;
