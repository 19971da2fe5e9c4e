import type { LedgerEntry } from '../../db/index.js';
import type { ProviderOrder } from '../../providers/index.js';

/** What the provider's view says of one operation whose answer we never had. */
export type Verdict = { done: true; transactionId: string } | { done: false } | 'unknown';

/**
 * Whether a ledger row's operation happened, by the provider's view of its order, read after
 * the call can no longer be under way. By our idempotency key where the provider keeps it;
 * otherwise by the transactions' states, `known` being the transactions our ledger already
 * accounts for (so an old hold or refund is not taken for this one). 'unknown': an operator
 * must look; the row stays in doubt.
 */
export function verdictFromOrder(
  entry: Pick<LedgerEntry, 'kind' | 'amount' | 'idempotency_key' | 'provider_transaction_id'>,
  order: ProviderOrder,
  known: ReadonlySet<string>,
): Verdict {
  const byKey = order.transactions.find((t) => t.keys.includes(entry.idempotency_key));
  if (byKey) return { done: true, transactionId: byKey.id };
  if (order.keysKept) return { done: false };
  const done = (transactionId: string): Verdict => ({ done: true, transactionId });
  const target = order.transactions.find((t) => t.id === entry.provider_transaction_id);
  switch (entry.kind) {
    case 'hold': {
      const hold = order.transactions.find(
        (t) => t.kind === 'hold' && !known.has(t.id) && t.status !== 'refused' && t.status !== 'error',
      );
      return hold ? done(hold.id) : { done: false };
    }
    case 'refund': {
      const refund = order.transactions.find(
        (t) =>
          t.kind === 'refund' &&
          t.parentId === entry.provider_transaction_id &&
          t.amount === entry.amount &&
          !known.has(t.id),
      );
      return refund ? done(refund.id) : { done: false };
    }
    case 'capture':
      if (!target) return 'unknown';
      if (target.status === 'captured' || target.status === 'refunded') return done(target.id);
      return target.status === 'authorised' ? { done: false } : 'unknown';
    case 'release':
    case 'void':
      if (!target) return 'unknown';
      if (target.status === 'cancelled') return done(target.id);
      return target.status === 'authorised' || target.status === 'accepted' ? { done: false } : 'unknown';
    default:
      // Payments and verifications are reported by the provider, never requested by us.
      return 'unknown';
  }
}
