import type { RequestType, Status } from '../domain/index.ts';
import type { Queryable } from './database.ts';
import { GUARANTEE_FAILED } from './guarantee-failed.ts';

/** The outcomes a provider reports, as the provider_events table records them. */
export type ProviderEventOutcome = 'registered' | 'paid' | 'refused' | 'error' | 'hold_lapsed' | 'disputed';

/** What applying a provider event needs of its request, read under a row lock. */
export interface NotifiedRequestRow {
  id: string;
  tenant_id: string;
  request_type: RequestType;
  status: Status;
  amount: number;
  currency: string;
  /** An IMPRINT's check-in (`YYYY-MM-DD`): a card registered for it must last until its hold. */
  checkin: string | null;
  /** Its guarantee failed and waits for another card (a refused hold, or a refused renewal). */
  guarantee_failed: boolean;
  reference: string;
  /** Its own transaction at the provider (the hold an IMPRINT holds, a DEPOSIT's payment). */
  provider_transaction_id: string | null;
  amount_captured: number;
  amount_refunded: number;
}

/**
 * The SQL of provider notifications (IPN): each verified event is recorded once (the primary
 * key on provider and event id makes a duplicate a no-op), then marked applied when it moved
 * a status. Every function takes the caller's transaction.
 */

/** Records a provider event; false when this event was recorded before (a duplicate). */
export async function recordProviderEvent(
  q: Queryable,
  e: { provider: string; eventId: string; paymentRequestId: string; outcome: ProviderEventOutcome },
): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO provider_events (provider, event_id, payment_request_id, outcome, applied)
     VALUES ($1, $2, $3, $4, false) ON CONFLICT DO NOTHING RETURNING 1`,
    [e.provider, e.eventId, e.paymentRequestId, e.outcome],
  );
  return r.rowCount !== 0;
}

export async function markProviderEventApplied(q: Queryable, provider: string, eventId: string): Promise<void> {
  await q.query('UPDATE provider_events SET applied = true WHERE provider = $1 AND event_id = $2', [provider, eventId]);
}

/** The request a notification names, locked until the transaction ends; undefined when it is gone. */
export async function lockNotifiedRequest(q: Queryable, id: string): Promise<NotifiedRequestRow | undefined> {
  const r = await q.query<NotifiedRequestRow>(
    `SELECT id, tenant_id, request_type, status, amount, currency, to_char(checkin, 'YYYY-MM-DD') AS checkin,
            ${GUARANTEE_FAILED('payment_requests')} AS guarantee_failed, reference, provider_transaction_id,
            amount_captured, amount_refunded
       FROM payment_requests
      WHERE id = $1 FOR UPDATE`,
    [id],
  );
  return r.rows[0];
}

/** The tenant of a request that was deleted, from its history; undefined when no request of ours had this id. */
export async function tenantOfDeletedRequest(q: Queryable, id: string): Promise<string | undefined> {
  const r = await q.query<{ tenant_id: string }>(
    'SELECT tenant_id FROM status_history WHERE payment_request_id = $1 ORDER BY id DESC LIMIT 1',
    [id],
  );
  return r.rows[0]?.tenant_id;
}
