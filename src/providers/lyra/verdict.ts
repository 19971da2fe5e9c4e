import type { ProviderOrder, ProviderTransaction } from '../payment-provider.ts';
import {
  candidateRefunds,
  type LedgerBooks,
  refundFromCandidates,
  targetVerdict,
  transactionVerdict,
  type Verdict,
  type VerdictRule,
} from '../verdict.ts';

/**
 * How Lyra's order view proves an operation. A hold carries our key in its metadata, whatever
 * its status (a refused silent payment keeps it), so a hold is judged by its own transaction's
 * status. A refund leaves no key: CancelOrRefund on a payment not yet sent to the bank (the
 * same day) cancels it whole or lowers its amount, so no new transaction appears and the
 * payment itself changes; once sent, it creates a CREDIT child, which may itself be refused or
 * cancelled. So a refund happened when a CREDIT of its payment and amount, made after it was
 * asked and not already in the books, was accepted; or when the payment keeps exactly the
 * refund's amount less than the books say it kept before. A capture is the hold's captured
 * state at the amount asked; a hold only lowered (a partial capture whose Validate never
 * happened) captured nothing.
 */
export const lyraVerdict: VerdictRule = (entry, order, books) => {
  const target = order.transactions.find((t) => t.id === entry.provider_transaction_id);
  switch (entry.kind) {
    case 'refund': {
      const credit = refundFromCandidates(candidateRefunds(entry, order, books.known));
      if (credit?.kind === 'done' || credit?.kind === 'in_flight' || credit?.kind === 'unknown') return credit;
      const onPayment = paymentLowered(entry, target, order, books);
      // A refused CREDIT is the refund's answer unless the payment itself shows it done.
      return onPayment.kind === 'done' || !credit ? onPayment : credit;
    }
    case 'capture':
      return targetVerdict(entry, target, 'capture');
    default:
      return transactionVerdict(entry, order, books);
  }
};

/** A refund done on the payment itself (before the remittance): its amount lowered, or cancelled whole. */
function paymentLowered(
  entry: { amount: number; provider_transaction_id: string | null },
  target: ProviderTransaction | undefined,
  order: ProviderOrder,
  books: LedgerBooks,
): Verdict {
  if (!target) return { kind: 'unknown', why: `${entry.provider_transaction_id ?? 'its payment'} is not in the order` };
  if (target.status === 'in_flight' || target.status === 'unknown') {
    return { kind: target.status, why: `${target.id} is ${target.providerStatus}` };
  }
  const before = keptByBooks(target.id, order, books);
  const now = target.capturedAmount - target.refundedAmount;
  if (now === before - entry.amount) return { kind: 'done', transactionId: target.id, status: target.providerStatus };
  if (now === before) return { kind: 'not_done' };
  return { kind: 'unknown', why: `${target.id} keeps ${now}, the books ${before}, the refund ${entry.amount}` };
}

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
