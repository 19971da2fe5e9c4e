import type { LedgerEntry } from '../../db/index.js';
import { type LedgerBooks, type ProviderOrder, type Verdict, verdictFor } from '../../providers/index.js';

export type { Verdict };

/**
 * Whether a ledger row's operation happened, by the provider's view of its order, read after
 * the call can no longer be under way: each provider says how its view proves an operation
 * (verdictFor). `books`: what the ledger already accounts for on the order. 'unknown': an
 * operator must look; the row stays in doubt.
 */
export function verdictFromOrder(
  entry: Pick<LedgerEntry, 'kind' | 'amount' | 'idempotency_key' | 'provider_transaction_id' | 'provider'>,
  order: ProviderOrder,
  books: LedgerBooks,
): Verdict {
  return verdictFor(entry.provider)(entry, order, books);
}

/** The books a verdict reads, from the order's ledger rows: the settled ones, and their transactions. */
export function booksOf(rows: readonly LedgerEntry[]): { known: Set<string>; settled: LedgerEntry[] } {
  const settled = rows.filter((e) => e.state === 'succeeded');
  return {
    known: new Set(settled.flatMap((e) => (e.provider_transaction_id ? [e.provider_transaction_id] : []))),
    settled,
  };
}
