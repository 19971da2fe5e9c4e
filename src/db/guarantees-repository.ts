import type { Currency } from '../domain/index.ts';
import type { Queryable } from './database.ts';
import { GUARANTEE_FAILED } from './guarantee-failed.ts';

/** A refused hold just recorded: the request, and the hold's ledger row (the cause of its e-mails). */
export interface RefusedHold {
  id: string;
  ledgerId: string;
}

/** A failed guarantee still waiting for another card: what the hotel needs to act on it. */
export interface FailedGuaranteeRow {
  id: string;
  reference: string;
  reservation_ref: string;
  guest_first_name: string;
  guest_last_name: string;
  guest_email: string;
  amount: number;
  currency: Currency;
  checkin: string | null;
  guarantee_failed_at: Date;
  guarantee_failures: number;
  /** E-mails that asked the guest for another card, so far. */
  guarantee_asks: number;
  /** The bank's answer to the last hold, as the provider worded it. */
  last_hold_error: string | null;
}

/**
 * Tells the hotel and asks the guest, in the transaction that recorded the refused holds (one
 * statement for a group): the guest's e-mail while the tenant asks automatically and fewer
 * than its `guarantee_max_asks` went out (the count goes up with it), the hotel's whenever the
 * tenant has a contact address. One of each per refused hold: the cause names its ledger row.
 */
export async function queueGuaranteeMails(q: Queryable, refused: readonly RefusedHold[]): Promise<void> {
  if (refused.length === 0) return;
  await q.query(
    `WITH r AS (
       SELECT * FROM unnest($1::uuid[], $2::bigint[]) AS r(id, ledger_id)
     ), asked AS (
       UPDATE payment_requests p SET guarantee_asks = p.guarantee_asks + 1
         FROM r, tenants t
        WHERE p.id = r.id AND t.id = p.tenant_id
          AND t.guarantee_ask_guest AND p.guarantee_asks < t.guarantee_max_asks
       RETURNING p.id, p.tenant_id, r.ledger_id
     ), guest AS (
       INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause, ledger_id)
       SELECT tenant_id, id, 'guarantee_failed_guest', 'guarantee_failed_guest:' || ledger_id, ledger_id FROM asked
       ON CONFLICT (cause) DO NOTHING
     )
     INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause, ledger_id)
     SELECT p.tenant_id, p.id, 'guarantee_failed_hotel', 'guarantee_failed_hotel:' || r.ledger_id, r.ledger_id
       FROM r JOIN payment_requests p ON p.id = r.id JOIN tenants t ON t.id = p.tenant_id
      WHERE t.contact_email IS NOT NULL
     ON CONFLICT (cause) DO NOTHING`,
    [refused.map((r) => r.id), refused.map((r) => r.ledgerId)],
  );
}

/**
 * Tells the hotel that a hold was declined softly before the check-in day (the card stays the
 * guarantee, the daily job tries again): once per request, however many mornings it is declined
 * again (the cause names the request), while the tenant has a contact address. In the
 * transaction that recorded the declines.
 */
export async function queueDeclinedHoldMails(q: Queryable, declined: readonly RefusedHold[]): Promise<void> {
  if (declined.length === 0) return;
  await q.query(
    `INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause, ledger_id)
     SELECT p.tenant_id, p.id, 'hold_declined_hotel', 'hold_declined_hotel:' || p.id, r.ledger_id
       FROM unnest($1::uuid[], $2::bigint[]) AS r(id, ledger_id)
       JOIN payment_requests p ON p.id = r.id JOIN tenants t ON t.id = p.tenant_id
      WHERE t.contact_email IS NOT NULL
     ON CONFLICT (cause) DO NOTHING`,
    [declined.map((r) => r.id), declined.map((r) => r.ledgerId)],
  );
}

/** The back office's reads of failed guarantees (`repos.guarantees`). */
export function guaranteesRepository(db: Queryable) {
  return {
    /** See failedGuarantees. */
    failed: (tenantId: string, limit?: number) => failedGuarantees(db, tenantId, limit),
  };
}
export type GuaranteesRepository = ReturnType<typeof guaranteesRepository>;

/**
 * The tenant's failed guarantees that still need someone: IMPRINTs in ERROR because the bank
 * refused their hold, newest failure first. A new card (back to AUTHORISED) or a cancel takes
 * one off the list. For the back office's "needs attention" (docs/back-office.md).
 */
export async function failedGuarantees(q: Queryable, tenantId: string, limit = 100): Promise<FailedGuaranteeRow[]> {
  const r = await q.query<FailedGuaranteeRow>(
    `SELECT id, reference, reservation_ref, guest_first_name, guest_last_name, guest_email, amount, currency,
            to_char(checkin, 'YYYY-MM-DD') AS checkin, guarantee_failed_at, guarantee_failures, guarantee_asks,
            last_hold_error
       FROM payment_requests
      WHERE tenant_id = $1 AND ${GUARANTEE_FAILED('payment_requests')}
      ORDER BY guarantee_failed_at DESC, id
      LIMIT $2`,
    [tenantId, limit],
  );
  return r.rows;
}
