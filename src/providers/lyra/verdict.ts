import type { ProviderOrder, ProviderTransaction } from '../payment-provider.js';
import { type LedgerBooks, newRefund, transactionVerdict, type Verdict, type VerdictRule } from '../verdict.js';

/**
 * How Lyra's order view proves an operation. CancelOrRefund on a payment not yet sent to the
 * bank (the same day) cancels it whole or lowers its amount: no new transaction appears, the
 * payment itself changes. Once sent, it creates a CREDIT child. So a refund happened when a new
 * CREDIT child of its amount is there, or when the payment keeps exactly the refund's amount
 * less than payreq's books say it kept before; it did not when the payment keeps what the books
 * say. A capture is the hold's captured state at the captured amount; a hold only lowered (a
 * partial capture whose Validate never happened) captured nothing. Anything else: unknown, an
 * operator looks.
 */
export const lyraVerdict: VerdictRule = (entry, order, books) => {
  const target = order.transactions.find((t) => t.id === entry.provider_transaction_id);
  switch (entry.kind) {
    case 'refund': {
      const credit = newRefund(entry, order, books.known);
      if (credit) return { done: true, transactionId: credit };
      if (!target) return 'unknown';
      const before = keptByBooks(target.id, order, books);
      const now = target.capturedAmount - target.refundedAmount;
      if (now === before - entry.amount) return { done: true, transactionId: target.id };
      return now === before ? { done: false } : 'unknown';
    }
    case 'capture':
      if (!target) return 'unknown';
      if (target.status === 'captured' || target.status === 'refunded') {
        return target.capturedAmount === entry.amount ? { done: true, transactionId: target.id } : 'unknown';
      }
      return target.status === 'authorised' ? { done: false } : 'unknown';
    default:
      return transactionVerdict(entry, order, books);
  }
};

/**
 * What payreq's settled rows say a payment (or hold) took and kept: its payment or capture,
 * less every refund that went back from it (done on the payment itself, or as a CREDIT child).
 */
function keptByBooks(paymentId: string, order: ProviderOrder, books: LedgerBooks): number {
  const children = new Set(
    order.transactions.filter((t: ProviderTransaction) => t.parentId === paymentId).map((t) => t.id),
  );
  let kept = 0;
  for (const row of books.settled) {
    const on = row.provider_transaction_id;
    if (!on) continue;
    if ((row.kind === 'payment' || row.kind === 'capture') && on === paymentId) kept += row.amount;
    if (row.kind === 'refund' && (on === paymentId || children.has(on))) kept -= row.amount;
  }
  return kept;
}

export type { Verdict };
