import type { PaymentProvider, ProviderError, ProviderNotification } from './payment-provider.js';

/** Each tenant asked for, with its provider, or why it has none. */
export type TenantProviders = ReadonlyMap<string, PaymentProvider | ProviderError>;

/**
 * Reads a notification whose key depends on what it is about (Lyra: the order's tenant's
 * password), so reading it may need the database: asynchronous, unlike parseNotification.
 */
export interface NotificationReceiver {
  name: string;
  /** Verifies and reads; throws InvalidNotificationError (or a subclass), never trusts an unsigned one. */
  receive(rawBody: string, headers: Record<string, string | string[] | undefined>): Promise<ProviderNotification>;
}

/**
 * Which provider serves whom. Each hotel is its own merchant, so the provider (and its
 * account) is chosen per tenant, never per process; a notification arrives at
 * `/ipn/<provider name>/` and is read by that provider.
 */
export interface ProviderRegistry {
  /** The provider a tenant takes payments with. */
  forTenant(tenantId: string): Promise<PaymentProvider>;
  /** The providers of several tenants at once: one read however many moves a group holds. */
  forTenants(tenantIds: readonly string[]): Promise<TenantProviders>;
  /** The provider that reads notifications posted to `/ipn/<name>/`, if there is one. */
  byName(name: string): PaymentProvider | undefined;
  /** For `/ipn/<name>/` when its provider is per account; otherwise byName's parseNotification reads it. */
  notificationReceiver?(name: string): NotificationReceiver | undefined;
}
