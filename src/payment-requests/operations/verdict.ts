import type { LedgerEntry } from '../../db/index.ts';
import { type LedgerBooks, type ProviderOrder, type Verdict, verdictFor } from '../../providers/index.ts';

export type { Verdict };

/**
 * Whether a ledger row's operation happened, by the provider's view of its order, read after
 * the call can no longer be under way: each provider says how its view proves an operation
 * (verdictFor). `books`: what the ledger already accounts for on the order. 'unknown': an
 * operator must look; the row stays in doubt.
 */
export function verdictFromOrder(
  entry: Pick<
    LedgerEntry,
    'kind' | 'amount' | 'idempotency_key' | 'provider_transaction_id' | 'provider' | 'created_at'
  >,
  order: ProviderOrder,
  books: LedgerBooks,
): Verdict {
  return verdictFor(entry.provider)(entry, order, books);
}

/**
 * The books a verdict reads, from the order's ledger rows: the succeeded ones, and every
 * transaction a settled row accounts for (what a succeeded row made or moved, what the
 * provider's answer named for a refused or failed one), so no verdict takes it for another
 * operation's. Rows still open are not settled: their answers prove nothing yet.
 */
export function booksOf(rows: readonly LedgerEntry[]): { known: Set<string>; settled: LedgerEntry[] } {
  const settled = rows.filter((e) => e.state === 'succeeded');
  const known = new Set<string>();
  for (const e of rows) {
    if (e.state === 'succeeded' && e.provider_transaction_id) known.add(e.provider_transaction_id);
    if (e.state !== 'requested' && e.state !== 'in_doubt' && e.answer_transaction_id)
      known.add(e.answer_transaction_id);
  }
  return { known, settled };
}
