import { type Queryable, recordIncident } from '../../db/index.js';
import type { Status } from '../../domain/index.js';
import type { MoneyOperation, Settled } from '../money-runner.js';
import { actorOf } from './entry-actor.js';

/**
 * Money that arrived where it should not, given back: a refund of a payment, or a void of a
 * registered card. No status moves; the request's history shows it beside the incident.
 * A failure leaves the incident open, and reconcile tries again.
 */
export const giveBackOperation: MoneyOperation = {
  name: 'give-back',
  async record(tx: Queryable, settled: readonly Settled[]) {
    for (const s of settled) {
      if (s.outcome !== 'succeeded') continue;
      const row = await tx.query<{ status: Status }>('SELECT status FROM payment_requests WHERE id = $1', [
        s.entry.payment_request_id,
      ]);
      await recordIncident(tx, {
        paymentRequestId: s.entry.payment_request_id,
        tenantId: s.entry.tenant_id,
        status: row.rows[0]?.status ?? null,
        actor: actorOf(s.entry),
        ledgerId: s.entry.id,
        detail: {
          incident: s.entry.incident,
          given_back: s.entry.kind,
          amount: s.entry.amount,
          currency: s.entry.currency,
          transaction_id: s.transactionId,
        },
      });
    }
  },
};
