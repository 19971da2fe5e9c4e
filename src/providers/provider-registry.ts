import type { PaymentProvider } from './payment-provider.js';

/**
 * Which provider serves whom. Each hotel is its own merchant, so the provider (and its
 * account) is chosen per tenant, never per process; a notification arrives at
 * `/ipn/<provider name>/` and is read by that provider.
 */
export interface ProviderRegistry {
  /** The provider a tenant takes payments with. */
  forTenant(tenantId: string): Promise<PaymentProvider>;
  /** The provider that reads notifications posted to `/ipn/<name>/`, if there is one. */
  byName(name: string): PaymentProvider | undefined;
}

/** Every tenant on one provider: the sandbox in development and tests. */
export function singleProviderRegistry(provider: PaymentProvider): ProviderRegistry {
  return {
    forTenant: async () => provider,
    byName: (name) => (name === provider.name ? provider : undefined),
  };
}
