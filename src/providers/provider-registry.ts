import type { PaymentProvider, ProviderError, ProviderNotification } from './payment-provider.ts';
import type { StripePayoutSource } from './stripe/payouts.ts';

/**
 * A provider with the tenant's account it was built from: that account's version, or null when
 * the tenant has no account row (the sandbox).
 */
export interface AccountProvider {
  provider: PaymentProvider;
  account: number | null;
}

/** Each tenant asked for, with its provider and account, or why it has none. */
export type TenantProviders = ReadonlyMap<string, AccountProvider | ProviderError>;

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
  /**
   * The provider of one account a tenant had, by version (a ledger row's `provider_account`),
   * even after the tenant switched account: what happened on an old account is only known
   * there. `account` null: the sandbox for a sandbox row, otherwise the tenant's current account.
   */
  forAccount(tenantId: string, providerName: string, account: number | null): Promise<PaymentProvider>;
  /** The provider that reads notifications posted to `/ipn/<name>/`, if there is one. */
  byName(name: string): PaymentProvider | undefined;
  /** For `/ipn/<name>/` when its provider is per account; otherwise byName's parseNotification reads it. */
  notificationReceiver?(name: string): NotificationReceiver | undefined;
  /**
   * The payouts of the tenant's current Stripe account (reads only); undefined when the tenant
   * is not on Stripe. Throws ProviderError when its secrets cannot be opened.
   */
  stripePayouts?(tenantId: string): Promise<StripePayoutSource | undefined>;
}
