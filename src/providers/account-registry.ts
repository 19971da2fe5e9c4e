import type { ProviderAccountRow } from '../db/index.ts';
import { lyraRequestTimeoutMs, stripeRequestTimeoutMs } from '../provider-call-limits/index.ts';
import type { SecretBox } from '../secrets/index.ts';
import { claimedOrderId, type LyraAccount, lyraProvider } from './lyra/index.ts';
import {
  AccountGone,
  IgnoredNotification,
  InvalidNotificationError,
  type PaymentProvider,
  ProviderError,
  type ProviderNotification,
  UnknownNotificationOrder,
} from './payment-provider.ts';
import type { AccountProvider, NotificationReceiver, ProviderRegistry, TenantProviders } from './provider-registry.ts';
import {
  claimedOrderOfEvent,
  type StripeAccount,
  type StripeCustomerStore,
  type StripeProvider,
  type StripeSecrets,
  stripePayoutSource,
  stripeProvider,
} from './stripe/index.ts';
import { withTimeouts } from './with-timeouts.ts';

/** Where the accounts are: one query each, so a cache can ask on every call. */
export interface ProviderAccountSource {
  find(tenantId: string): Promise<ProviderAccountRow | undefined>;
  findMany(tenantIds: readonly string[]): Promise<ProviderAccountRow[]>;
  /** One account the tenant had, by version (the current one included). */
  findVersion(tenantId: string, version: number): Promise<ProviderAccountRow | undefined>;
  /** The Lyra accounts the tenant had before its current one, newest first. */
  pastLyraAccounts(tenantId: string): Promise<ProviderAccountRow[]>;
  /** The Stripe accounts the tenant had before its current one, newest first. */
  pastStripeAccounts(tenantId: string): Promise<ProviderAccountRow[]>;
  /** Every tenant's current Stripe account. */
  stripeAccounts(): Promise<ProviderAccountRow[]>;
  /** The request whose ledger names a Stripe PaymentIntent, its tenant and that tenant's account. */
  forStripeTransaction(
    transactionId: string,
  ): Promise<{ requestId: string; tenantId: string; account: ProviderAccountRow | undefined } | undefined>;
  /** The tenant of a payment request (a deleted one too), and that tenant's account if it has one. */
  forOrder(requestId: string): Promise<{ tenantId: string; account: ProviderAccountRow | undefined } | undefined>;
}

export interface AccountRegistryOptions {
  accounts: ProviderAccountSource;
  /** Opens the sealed secrets (bound to the tenant id). */
  secrets: SecretBox;
  /** Serves a tenant with no real account (development, tests); absent: such a tenant cannot pay. */
  sandbox?: PaymentProvider;
  /** The runner's bound on every provider call (PROVIDER_TIMEOUT_MS). */
  timeoutMs: number;
  /** Wraps each provider built from an account, outside its timeouts (metrics). */
  meter?: (provider: PaymentProvider) => PaymentProvider;
  /** The Stripe Customers payreq made per request (a Stripe account's order views start from them). */
  stripeCustomers?: StripeCustomerStore;
}

/** What `--secrets-stdin` gives and the row keeps sealed. */
export interface LyraSecrets {
  password: string;
  public_key: string;
  hmac_key: string;
}

/** Lyra's own timeout stays below the runner's bound (src/provider-call-limits/). */
const lyraTimeout = lyraRequestTimeoutMs;

/** The row with its secrets opened; a row that cannot be opened (SECRET_KEY changed) is unusable. */
export function lyraAccountOf(row: ProviderAccountRow, secrets: SecretBox): LyraAccount {
  if (row.provider !== 'lyra' || !row.shop_id || !row.api_url || !row.mode || !row.secrets_sealed) {
    throw new ProviderError('technical', `tenant ${row.tenant_id}: not a Lyra account`);
  }
  let opened: LyraSecrets;
  try {
    opened = JSON.parse(secrets.open(row.secrets_sealed, row.tenant_id)) as LyraSecrets;
  } catch {
    // Never the value, only the fact: a log line must not carry a secret.
    throw new ProviderError('technical', `tenant ${row.tenant_id}: the account's secrets cannot be opened`);
  }
  return {
    shopId: row.shop_id,
    apiUrl: row.api_url,
    ...(row.static_url ? { staticUrl: row.static_url } : {}),
    mode: row.mode,
    password: opened.password,
    publicKey: opened.public_key,
    hmacKey: opened.hmac_key,
  };
}

/** A Stripe row with its secrets opened; a row that cannot be opened (SECRET_KEY changed) is unusable. */
export function stripeAccountOf(row: ProviderAccountRow, secrets: SecretBox): StripeAccount {
  if (row.provider !== 'stripe' || !row.api_url || !row.mode || !row.secrets_sealed) {
    throw new ProviderError('technical', `tenant ${row.tenant_id}: not a Stripe account`);
  }
  let opened: StripeSecrets;
  try {
    opened = JSON.parse(secrets.open(row.secrets_sealed, row.tenant_id)) as StripeSecrets;
  } catch {
    throw new ProviderError('technical', `tenant ${row.tenant_id}: the account's secrets cannot be opened`);
  }
  return {
    apiUrl: row.api_url,
    mode: row.mode,
    secretKey: opened.secret_key,
    webhookSecret: opened.webhook_secret,
    tenantId: row.tenant_id,
    version: row.version,
  };
}

/** The providers a row can be: a real account's. */
const REAL: ReadonlySet<string> = new Set(['lyra', 'stripe']);

/**
 * Each tenant's provider from its account row. A Lyra provider is built once per row version
 * (opening the secrets, making the client) and kept; a changed row (a new version) builds anew.
 * Each call still reads the row (one indexed query), so an account changed or removed by
 * another process applies at once: money calls and guest pages are not the hot path, creates
 * are, and they never come here.
 */
export function accountRegistry(opts: AccountRegistryOptions): ProviderRegistry {
  const built = new Map<string, { version: number; provider: PaymentProvider }>();
  /** Providers of past accounts (reconcile's reads of old transactions), by tenant and version. */
  const past = new Map<string, PaymentProvider>();
  /** Each Stripe account's own adapter (its webhook events are read with it), by tenant and version. */
  const stripeAdapters = new Map<string, StripeProvider>();

  const stripeOf = (row: ProviderAccountRow): StripeProvider => {
    const key = `${row.tenant_id}:${row.version}`;
    const hit = stripeAdapters.get(key);
    if (hit) return hit;
    if (!opts.stripeCustomers) throw new ProviderError('technical', 'stripe: no customer store configured');
    const adapter = stripeProvider(stripeAccountOf(row, opts.secrets), {
      timeoutMs: stripeRequestTimeoutMs(opts.timeoutMs),
      customers: opts.stripeCustomers,
    });
    if (stripeAdapters.size >= 1000) stripeAdapters.clear();
    stripeAdapters.set(key, adapter);
    return adapter;
  };

  const build = (row: ProviderAccountRow): PaymentProvider => {
    const real =
      row.provider === 'stripe'
        ? stripeOf(row)
        : lyraProvider(lyraAccountOf(row, opts.secrets), { timeoutMs: lyraTimeout(opts.timeoutMs) });
    const bounded = withTimeouts(real, opts.timeoutMs);
    return opts.meter ? opts.meter(bounded) : bounded;
  };

  const accountFor = (row: ProviderAccountRow): PaymentProvider => {
    const hit = built.get(row.tenant_id);
    if (hit && hit.version === row.version) return hit.provider;
    const provider = build(row);
    built.set(row.tenant_id, { version: row.version, provider });
    return provider;
  };

  const fromRow = (tenantId: string, row: ProviderAccountRow | undefined): PaymentProvider => {
    if (row && REAL.has(row.provider)) return accountFor(row);
    built.delete(tenantId);
    if (opts.sandbox) return opts.sandbox;
    throw new ProviderError('unavailable', `tenant ${tenantId} has no payment provider account`);
  };

  /** The provider of a past account version, built once and kept. */
  const pastFor = (row: ProviderAccountRow): PaymentProvider => {
    const key = `${row.tenant_id}:${row.version}`;
    const hit = past.get(key);
    if (hit) return hit;
    const provider = build(row);
    past.set(key, provider);
    return provider;
  };

  /**
   * A Lyra notification is signed with the shop password of the account that took the money:
   * the order is found first (from the claim, not trusted), then the signature checked with
   * that tenant's current account, or else with each Lyra account it had before, newest first
   * (a guest paying after an account switch on a form handed out before it: the money is on the
   * old account). The notification names the account whose password verified it, which records
   * the money as that account's.
   */
  const lyraReceiver: NotificationReceiver = {
    name: 'lyra',
    async receive(rawBody, headers): Promise<ProviderNotification> {
      const orderId = claimedOrderId(rawBody);
      const found = await opts.accounts.forOrder(orderId);
      if (!found) throw new UnknownNotificationOrder(`order ${orderId} unknown`);
      if (!found.account) throw new InvalidNotificationError(`tenant ${found.tenantId} has no account (removed?)`);
      const current = found.account.provider === 'lyra' ? [found.account] : [];
      let refusal: InvalidNotificationError | undefined;
      const verified = async (rows: readonly ProviderAccountRow[]) => {
        for (const row of rows) {
          let provider: PaymentProvider;
          try {
            provider = row === found.account ? accountFor(row) : pastFor(row);
          } catch (err) {
            refusal ??= new InvalidNotificationError(err instanceof Error ? err.message : 'account unusable');
            continue;
          }
          try {
            return { ...provider.parseNotification(rawBody, headers), account: row.version };
          } catch (err) {
            // Authentic but not applied: the answer is the same whichever account signed it.
            if (err instanceof IgnoredNotification || !(err instanceof InvalidNotificationError)) throw err;
            refusal ??= err;
          }
        }
        return undefined;
      };
      const notification =
        (await verified(current)) ?? (await verified(await opts.accounts.pastLyraAccounts(found.tenantId)));
      if (!notification) {
        throw refusal ?? new InvalidNotificationError(`tenant ${found.tenantId} has never had a Lyra account`);
      }
      // The signature covers the whole answer, order included: a verified one names the same order.
      if (notification.paymentRequestId !== orderId) throw new UnknownNotificationOrder('order changed under us');
      return notification;
    },
  };

  /**
   * A Stripe event is signed with the webhook secret of the account whose endpoint it was sent
   * to. The request it is about is found first, unverified, only to choose the key: the
   * metadata payreq put on the object, or the ledger row naming its PaymentIntent (a dispute
   * carries no metadata of ours); its tenant's current Stripe account, then each it had before.
   * An event about no request of payreq's (another sale on the hotel's Stripe account) is
   * checked against every tenant's Stripe account: authentic, it is acknowledged and ignored;
   * otherwise refused.
   */
  const stripeReceiver: NotificationReceiver = {
    name: 'stripe',
    async receive(rawBody, headers): Promise<ProviderNotification> {
      const claim = claimedOrderOfEvent(rawBody);
      let orderId = claim.orderId;
      let found = orderId ? await opts.accounts.forOrder(orderId) : undefined;
      if (!found && claim.paymentIntent) {
        const byTxn = await opts.accounts.forStripeTransaction(claim.paymentIntent);
        if (byTxn) {
          orderId = byTxn.requestId;
          found = { tenantId: byTxn.tenantId, account: byTxn.account };
        }
      }
      const candidates: ProviderAccountRow[] = [];
      if (found) {
        if (found.account?.provider === 'stripe') candidates.push(found.account);
        candidates.push(...(await opts.accounts.pastStripeAccounts(found.tenantId)));
      }
      let refusal: InvalidNotificationError | undefined;
      for (const row of candidates) {
        let adapter: StripeProvider;
        try {
          adapter = stripeOf(row);
        } catch (err) {
          refusal ??= new InvalidNotificationError(err instanceof Error ? err.message : 'account unusable');
          continue;
        }
        try {
          const n = await adapter.receiveEvent(rawBody, headers, orderId);
          return { ...n, account: row.version };
        } catch (err) {
          if (err instanceof IgnoredNotification || !(err instanceof InvalidNotificationError)) throw err;
          refusal ??= err;
        }
      }
      if (found)
        throw refusal ?? new InvalidNotificationError(`tenant ${found.tenantId} has never had a Stripe account`);
      // About nothing of payreq's: acknowledged if one of the hotels' accounts signed it.
      for (const row of await opts.accounts.stripeAccounts()) {
        try {
          await stripeOf(row).receiveEvent(rawBody, headers);
        } catch (err) {
          if (err instanceof IgnoredNotification) throw err;
          if (!(err instanceof InvalidNotificationError))
            throw new IgnoredNotification('an event about nothing of payreq’s');
          continue;
        }
        throw new IgnoredNotification('an event about nothing of payreq’s');
      }
      throw new InvalidNotificationError('no Stripe account of any hotel signed this event');
    },
  };

  const forTenants = async (tenantIds: readonly string[]): Promise<TenantProviders> => {
    const unique = [...new Set(tenantIds)];
    const rows = new Map((await opts.accounts.findMany(unique)).map((row) => [row.tenant_id, row]));
    const found = new Map<string, AccountProvider | ProviderError>();
    for (const id of unique) {
      try {
        const row = rows.get(id);
        found.set(id, { provider: fromRow(id, row), account: row?.version ?? null });
      } catch (err) {
        found.set(id, err instanceof ProviderError ? err : new ProviderError('technical', String(err)));
      }
    }
    return found;
  };

  return {
    forTenant: async (tenantId) => fromRow(tenantId, await opts.accounts.find(tenantId)),
    forTenants,
    async forAccount(tenantId, providerName, version) {
      if (version === null) {
        if (opts.sandbox && providerName === opts.sandbox.name) return opts.sandbox;
        return fromRow(tenantId, await opts.accounts.find(tenantId));
      }
      const current = await opts.accounts.find(tenantId);
      if (current?.version === version) return fromRow(tenantId, current);
      const hit = past.get(`${tenantId}:${version}`);
      if (hit) return hit;
      const row = await opts.accounts.findVersion(tenantId, version);
      if (!row) throw new AccountGone(`tenant ${tenantId} has no account version ${version}`);
      if (!REAL.has(row.provider)) {
        if (opts.sandbox) return opts.sandbox;
        throw new AccountGone(`tenant ${tenantId}: account version ${version} was the sandbox`);
      }
      return pastFor(row);
    },
    byName: (name) => (opts.sandbox && name === opts.sandbox.name ? opts.sandbox : undefined),
    notificationReceiver: (name) => (name === 'lyra' ? lyraReceiver : name === 'stripe' ? stripeReceiver : undefined),
    async stripePayouts(tenantId) {
      const row = await opts.accounts.find(tenantId);
      return row?.provider === 'stripe' ? stripePayoutSource(stripeAccountOf(row, opts.secrets)) : undefined;
    },
  };
}
