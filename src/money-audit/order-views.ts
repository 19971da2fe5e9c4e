import type { LedgerEntry } from '../db/index.ts';
import { orderAcrossAccounts, type ProviderOrder } from '../providers/index.ts';
import type { AuditDeps } from './audit-deps.ts';

/** A request's order as the provider shows it; undefined (logged) when the view cannot be read. */
export function orderViews(deps: Pick<AuditDeps, 'providers' | 'log'>) {
  const { providers } = deps;
  /**
   * The order's view in the account a ledger row names (the one its call went to), even when
   * the tenant has switched account since: the new account knows nothing of the old one's.
   */
  async function orderOf(
    row: Pick<LedgerEntry, 'tenant_id' | 'provider' | 'provider_account'>,
    requestId: string,
  ): Promise<ProviderOrder | undefined> {
    try {
      return await (await providers.forAccount(row.tenant_id, row.provider, row.provider_account)).getOrder(requestId);
    } catch (err) {
      deps.log?.warn({ err: (err as Error).message, request: requestId }, 'reconcile: order view unavailable');
      return undefined;
    }
  }

  /** The order in every account the request's rows name, as one view (an account switch splits it). */
  async function wholeOrderOf(entries: readonly LedgerEntry[], requestId: string): Promise<ProviderOrder | undefined> {
    const first = entries[0];
    if (!first) return undefined;
    try {
      return await orderAcrossAccounts(providers, first.tenant_id, entries, requestId);
    } catch (err) {
      deps.log?.warn({ err: (err as Error).message, request: requestId }, 'reconcile: order view unavailable');
      return undefined;
    }
  }

  return { orderOf, wholeOrderOf };
}

export type OrderViews = ReturnType<typeof orderViews>;
