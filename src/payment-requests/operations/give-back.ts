import { currentStatus, type Queryable, recordIncident } from '../../db/index.ts';
import type { MoneyOperation, Settled } from '../money-runner.ts';
import { actorOf } from './entry-actor.ts';

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
      await recordIncident(tx, {
        paymentRequestId: s.entry.payment_request_id,
        tenantId: s.entry.tenant_id,
        status: await currentStatus(tx, s.entry.payment_request_id),
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
