import { lyraVerdict } from './lyra/verdict.ts';
import { stripeVerdict } from './stripe/verdict.ts';
import { transactionVerdict, type VerdictRule } from './verdict.ts';

/**
 * Each provider's rule for reading its order view (by the ledger row's provider name): Lyra's
 * own, since a refund there may change the payment itself; Stripe's, whose holds and refunds
 * carry their keys and whose captures and cancels do not; the sandbox's (and any provider that
 * shows each operation as its own transaction) by keys and transactions.
 */
export function verdictFor(provider: string): VerdictRule {
  if (provider === 'lyra') return lyraVerdict;
  if (provider === 'stripe') return stripeVerdict;
  return transactionVerdict;
}
