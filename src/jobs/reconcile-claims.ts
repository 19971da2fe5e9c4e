import type { Actor, PaymentRequestsRepository } from '../db/index.js';
import { type MoneyAction, outcomeFromProvider } from '../payment-requests/provider-outcome.js';
import type { PaymentProvider } from '../providers/index.js';

export interface ReconcileContext {
  requests: PaymentRequestsRepository;
  provider: PaymentProvider;
}

export interface ReconcileResult {
  examined: number;
  settled: number;
  released: number;
  unknown: number;
}

const ACTOR: Actor = { source: 'job', actor: 'reconcile_claims' };

/**
 * Settles the claims of money commands whose process died between claiming the row and
 * recording the provider's answer (they would otherwise answer 409 forever): the provider's
 * view decides. Done: recorded, as the command would have. Not done: the claim is given back,
 * so the hotel can try again. Unknown (a hold whose transaction was never recorded, a provider
 * that cannot tell): left claimed for an operator, and counted.
 */
export async function reconcileStaleClaims(
  ctx: ReconcileContext,
  opts: { olderThanSeconds?: number; limit?: number } = {},
): Promise<ReconcileResult> {
  const rows = await ctx.requests.staleClaims(opts.olderThanSeconds ?? 300, opts.limit ?? 500);
  const result: ReconcileResult = { examined: rows.length, settled: 0, released: 0, unknown: 0 };
  for (const row of rows) {
    const action = row.pending_action;
    if (action !== 'capture' && action !== 'release' && action !== 'refund') {
      result.unknown++;
      continue;
    }
    const state = await ctx.provider
      .getPayment({
        paymentRequestId: row.id,
        reference: row.reference,
        currency: row.currency,
        transactionId: row.provider_transaction_id,
      })
      .catch(() => undefined);
    const outcome = outcomeFromProvider(action as MoneyAction, row, state);
    if (outcome === 'unknown') {
      result.unknown++;
    } else if (outcome === 'not_done') {
      await ctx.requests.unclaim(row.id, action);
      result.released++;
    } else {
      await ctx.requests.completeClaim(row.id, action, outcome.done.to, outcome.done.changes, ACTOR, {
        reconciled: true,
        amount: outcome.done.cents,
      });
      result.settled++;
    }
  }
  return result;
}
