import type { ProviderOrder } from './payment-provider.js';

/** What the provider's view says of one operation whose answer we never had. */
export type Verdict = { done: true; transactionId: string } | { done: false } | 'unknown';

/** One operation of payreq's ledger, as a verdict reads it; amounts in minor units. */
export interface LedgerOperation {
  kind: 'verification' | 'payment' | 'hold' | 'capture' | 'release' | 'refund' | 'void';
  amount: number;
  idempotency_key: string;
  /** The transaction it acted on (capture, release, refund, void) or, once settled, created (hold, refund). */
  provider_transaction_id: string | null;
}

/**
 * What payreq's ledger already says of the order, beside the operation in doubt: `known`, the
 * transactions its settled rows account for (so an old hold or refund is not taken for this
 * one); `settled`, those rows themselves.
 */
export interface LedgerBooks {
  known: ReadonlySet<string>;
  settled: readonly Omit<LedgerOperation, 'idempotency_key'>[];
}

/** How one provider's order view proves that an operation happened. */
export type VerdictRule = (entry: LedgerOperation, order: ProviderOrder, books: LedgerBooks) => Verdict;

/**
 * The rule for a provider whose view shows each operation as its own transaction or state: by
 * our idempotency key where the provider keeps it; otherwise by the transactions' states. A
 * refund is a new refund transaction of the payment, a capture the hold captured, a release
 * or void the transaction cancelled. 'unknown': an operator must look; the row stays in doubt.
 */
export const transactionVerdict: VerdictRule = (entry, order, { known }) => {
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
      const refund = newRefund(entry, order, known);
      return refund ? done(refund) : { done: false };
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
};

/** A refund transaction of the entry's payment, of its amount, that the ledger does not account for yet. */
export function newRefund(
  entry: LedgerOperation,
  order: ProviderOrder,
  known: ReadonlySet<string>,
): string | undefined {
  return order.transactions.find(
    (t) =>
      t.kind === 'refund' &&
      t.parentId === entry.provider_transaction_id &&
      t.amount === entry.amount &&
      !known.has(t.id),
  )?.id;
}
