import type { ProviderOrder } from './payment-provider.ts';
import type { ProviderRegistry } from './provider-registry.ts';

/** An account a ledger row's call went to: the provider and the tenant's account version (null: current). */
export interface OrderAccount {
  provider: string;
  provider_account: number | null;
}

/**
 * An order as every account its ledger rows name sees it, as one view. An account switch (TEST
 * to PRODUCTION at go-live, a new shop) splits an order: each account knows only the
 * transactions made on it. Undefined when any of those accounts cannot be read (a partial view
 * would read as money missing).
 */
export async function orderAcrossAccounts(
  providers: ProviderRegistry,
  tenantId: string,
  accounts: readonly OrderAccount[],
  orderId: string,
): Promise<ProviderOrder | undefined> {
  const distinct = new Map(accounts.map((a) => [`${a.provider}:${a.provider_account}`, a]));
  const views: ProviderOrder[] = [];
  for (const a of distinct.values()) {
    const view = await (await providers.forAccount(tenantId, a.provider, a.provider_account)).getOrder(orderId);
    views.push({ ...view, transactions: view.transactions.map((t) => ({ ...t, account: a.provider_account })) });
  }
  const [first, ...rest] = views;
  if (!first || rest.length === 0) return first;
  const seen = new Set<string>();
  const transactions = views.flatMap((v) => v.transactions).filter((t) => !seen.has(t.id) && seen.add(t.id));
  return { orderId, transactions, keysKept: views.every((v) => v.keysKept) };
}
