import { applyStatusChanges, lockAmounts, type Queryable, releaseClaims } from '../../db/index.ts';
import { allowedFrom, targetOf } from '../../domain/index.ts';
import type { MoneyOperation, Settled } from '../money-runner.ts';
import { actorOf, moveReasonOf, reasonDetail } from './entry-actor.ts';

/**
 * A refund of what a request captured. The one that gives the last cent back makes the request
 * REFUNDED (the transition table's refund); a partial one keeps it CAPTURED, with more refunded.
 */
export const refundOperation: MoneyOperation = {
  name: 'refund',
  async record(tx: Queryable, settled: readonly Settled[]) {
    const done = settled.filter((s) => s.outcome === 'succeeded');
    if (done.length > 0) {
      // The amounts as they stood before these refunds: this transaction's ledger rows are
      // settled already, so the request's columns still show the previous refunds only.
      const rows = await lockAmounts(
        tx,
        done.map((s) => s.entry.payment_request_id),
      );
      await applyStatusChanges(
        tx,
        done.flatMap((s) => {
          const row = rows.get(s.entry.payment_request_id);
          if (!row) return [];
          const left = row.amount_captured - row.amount_refunded;
          const to = s.entry.amount >= left ? targetOf('refund') : row.status;
          return [
            {
              id: row.id,
              from: [...allowedFrom('refund')],
              to,
              claim: 'refund' as const,
              token: s.entry.claim_token,
              actor: actorOf(s.entry),
              ledgerId: s.entry.id,
              detail: { amount: s.entry.amount, transaction_id: s.transactionId, ...reasonDetail(s.entry) },
              set: { moveReason: moveReasonOf(s.entry) },
            },
          ];
        }),
      );
    }
    await releaseClaims(
      tx,
      settled
        .filter((s) => s.outcome === 'refused' || s.outcome === 'failed')
        .map((s) => ({ id: s.entry.payment_request_id, claim: 'refund' as const, token: s.entry.claim_token })),
    );
  },
};
