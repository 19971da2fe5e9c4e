import type { PaymentProvider, ProviderRegistry } from '../providers/index.js';

/** What the books check knows of an order when it picks whom to ask. */
export interface OrderOwner {
  tenant_id: string;
  /** The provider that made the order's latest ledger row (`sandbox`, `lyra`). */
  provider: string;
}

/**
 * The provider account to ask about an order: the one place this is chosen, so it can follow
 * the ledger once each row records the account that made its transaction. Until then: an
 * order the built-in sandbox made is asked of the sandbox while this service runs one (a
 * tenant that moved to a real account keeps its sandbox orders there), any other order of the
 * tenant's current account. An order made on an account the tenant has left since is then asked
 * of the wrong one, and reads as a disagreement: rare (a switch at go-live), and visible.
 */
export async function accountForOrder(providers: ProviderRegistry, order: OrderOwner): Promise<PaymentProvider> {
  return providers.byName(order.provider) ?? (await providers.forTenant(order.tenant_id));
}
