import {
  type OrderAccount,
  orderAcrossAccounts,
  type ProviderOrder,
  type ProviderRegistry,
} from '../providers/index.ts';

/** What the books check knows of an order when it picks whom to ask. */
export interface OrderOwner {
  tenant_id: string;
  payment_request_id: string;
  /** Every account the order's ledger rows went to. */
  accounts: readonly OrderAccount[];
}

/**
 * The provider's view of an order: asked of every account its ledger rows recorded, the ones
 * their calls went to, even after the tenant switched account (the new account knows nothing
 * of the old one's transactions). Throws when an account cannot be read.
 */
export async function orderViewOf(providers: ProviderRegistry, order: OrderOwner): Promise<ProviderOrder> {
  const view = await orderAcrossAccounts(providers, order.tenant_id, order.accounts, order.payment_request_id);
  if (!view) throw new Error('the order has no ledger row to name an account');
  return view;
}
