import type { ProviderOrder } from '../providers/index.ts';
import type { AuditDeps } from './audit-deps.ts';
import type { OrderViews } from './order-views.ts';

/**
 * Gives rows written before accounts were recorded the account that made their transaction:
 * each account the tenant has had with that provider is asked for the order, and the row
 * takes the one account whose view shows its transaction. None, or more than one: the row
 * stays as it is (read with the current account), asked again a day later. Never guessed.
 */
export async function findAccounts(
  deps: Pick<AuditDeps, 'repos'>,
  { orderOf }: OrderViews,
  limit: number,
): Promise<number> {
  const ledger = deps.repos.ledger;
  let found = 0;
  const views = new Map<string, ProviderOrder | undefined>();
  for (const row of await ledger.withoutAccount(limit)) {
    const txn = row.provider_transaction_id ?? row.answer_transaction_id;
    const showing: number[] = [];
    for (const version of row.versions) {
      const key = `${row.payment_request_id}:${version}`;
      if (!views.has(key)) {
        views.set(key, await orderOf({ ...row, provider_account: version }, row.payment_request_id));
      }
      if (views.get(key)?.transactions.some((t) => t.id === txn)) showing.push(version);
    }
    const [only] = showing;
    if (showing.length === 1 && only !== undefined) {
      await ledger.setAccount(row.id, only);
      found++;
    }
  }
  return found;
}
