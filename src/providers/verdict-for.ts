import { lyraVerdict } from './lyra/verdict.ts';
import { transactionVerdict, type VerdictRule } from './verdict.ts';

/**
 * Each provider's rule for reading its order view (by the ledger row's provider name): Lyra's
 * own, since a refund there may change the payment itself; the sandbox's (and any provider that
 * shows each operation as its own transaction) by keys and transactions.
 */
export function verdictFor(provider: string): VerdictRule {
  return provider === 'lyra' ? lyraVerdict : transactionVerdict;
}
