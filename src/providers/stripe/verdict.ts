import { holdVerdict, refundVerdict, targetVerdict, type VerdictRule } from '../verdict.ts';

/**
 * How Stripe's order view proves an operation. Every PaymentIntent (a hold) and Refund payreq
 * creates carries the operation's key in its metadata, written with the object itself (one
 * call), whatever became of it (a declined hold keeps it): so a hold or a refund is judged by
 * the status of the object with its key, and one whose key is nowhere never happened (once no
 * call can still land: reconcile's grace). A capture or a cancel writes no key of its own: it
 * is the held PaymentIntent's state (captured for the amount asked; canceled).
 */
export const stripeVerdict: VerdictRule = (entry, order) => {
  const byKey = order.transactions.find((t) => t.keys.includes(entry.idempotency_key));
  const target = order.transactions.find((t) => t.id === entry.provider_transaction_id);
  switch (entry.kind) {
    case 'hold':
      return byKey ? holdVerdict(byKey) : { kind: 'not_done' };
    case 'refund':
      return byKey ? refundVerdict(byKey) : { kind: 'not_done' };
    case 'capture':
      return targetVerdict(entry, target, 'capture');
    case 'release':
    case 'void':
      return targetVerdict(entry, target, 'cancel');
    default:
      return { kind: 'unknown', why: `a ${entry.kind} is never asked of the provider` };
  }
};
