import { type Authenticator, authenticator } from './api/index.ts';
import type { Config } from './config/index.ts';
import { type Database, type Repositories, repositories } from './db/index.ts';
import { type HoldRepositories, holdRepositories } from './holds/index.ts';
import { type Notifications, notifications } from './ipn/index.ts';
import { meteredProvider, type ServiceMetrics, serviceMetrics } from './metrics/index.ts';
import { type Reconciler, reconciler } from './money-audit/index.ts';
import {
  type GuestCommands,
  guestCommands,
  type MoneyRunner,
  moneyRunner,
  type PaymentRequestCommands,
  paymentRequestCommands,
} from './payment-requests/index.ts';
import { longestProviderCallMs } from './provider-call-limits/index.ts';
import {
  accountRegistry,
  type PaymentProvider,
  type ProviderRegistry,
  sandboxProvider,
  stripeCustomerStore,
  withTimeouts,
} from './providers/index.ts';
import { providerSecrets, resolveSecretKeys, type SecretBox, type SecretKeyRing, secretBox } from './secrets/index.ts';

/** What every part of the service shares, built once at start. */
export interface AppContext {
  config: Config;
  db: Database;
  repos: Repositories;
  /** The hold jobs' SQL (the holds room's). */
  holds: HoldRepositories;
  commands: PaymentRequestCommands;
  guest: GuestCommands;
  /** The provider of each tenant (each hotel is its own merchant). */
  providers: ProviderRegistry;
  /** The one path of every money move. */
  runner: MoneyRunner;
  reconciler: Reconciler;
  notifications: Notifications;
  /** SECRET_KEY as resolved at start (configured, or generated outside production). */
  secretKey: string;
  /** That key under SECRET_KEY_ID, with SECRET_KEYS_OLD: what sealed values open with. */
  secretKeys: SecretKeyRing;
  cardTokens: SecretBox;
  auth: Authenticator;
  /** This instance's Prometheus metrics (GET /metrics). */
  metrics: ServiceMetrics;
}

declare module 'fastify' {
  interface FastifyInstance {
    payreq: AppContext;
    /** Looks at the job queue now (the scheduler queued a run): a no-op without workers. */
    wakeQueue(): void;
  }
}

export interface ContextOptions {
  config: Config;
  db: Database;
  /** Wraps the configured provider (tests count or fail its calls). */
  wrapProvider?: (real: PaymentProvider) => PaymentProvider;
  now?: () => Date;
}

/** Everything the service shares, for the HTTP app, the CLI and the jobs alike. */
export async function buildContext(opts: ContextOptions): Promise<AppContext> {
  const repos = repositories(opts.db);
  const secretKeys = await resolveSecretKeys(opts.config, repos);
  const secretKey = secretKeys.current.key;
  const cardTokens = secretBox(secretKeys, 'card-token');
  const metrics = serviceMetrics(opts.db);
  const providers = accountRegistry({
    accounts: repos.providerAccounts,
    secrets: providerSecrets(secretKeys),
    timeoutMs: opts.config.providerTimeoutMs,
    // Metered outside the timeouts: a call cut off by its timeout counts as unavailable.
    meter: (provider) => meteredProvider(provider, metrics),
    stripeCustomers: stripeCustomerStore(opts.db),
    // PAYMENT_PROVIDER=sandbox: a tenant with no real account pays in the sandbox (development,
    // tests); lyra: it cannot take payments at all, as production requires.
    ...(opts.config.paymentProvider === 'sandbox' ? { sandbox: sandboxFor(opts, secretKey, metrics) } : {}),
  });
  const runner = moneyRunner({
    db: opts.db,
    ledger: repos.ledger,
    providers,
    // A move starts its call only while the rest of its grace covers the longest call.
    callWindowMs: opts.config.inDoubtGraceSeconds * 1000 - longestProviderCallMs(opts.config.providerTimeoutMs),
    ...(opts.now ? { now: () => (opts.now as () => Date)().getTime() } : {}),
  });
  const reconcile = reconciler({
    db: opts.db,
    repos,
    runner,
    providers,
    graceSeconds: opts.config.inDoubtGraceSeconds,
    escalateSeconds: opts.config.inDoubtEscalateHours * 3600,
  });
  return {
    config: opts.config,
    db: opts.db,
    repos,
    holds: holdRepositories(opts.db),
    providers,
    runner,
    reconciler: reconcile,
    notifications: notifications({ db: opts.db, ledger: repos.ledger, runner, cardTokens }),
    commands: paymentRequestCommands({ db: opts.db, repos, runner, reconciler: reconcile }, opts.now),
    guest: guestCommands(opts.db),
    secretKey,
    secretKeys,
    cardTokens,
    auth: authenticator(repos, opts.config.authCacheMs),
    metrics,
  };
}

function sandboxFor(opts: ContextOptions, secretKey: string, metrics: ServiceMetrics): PaymentProvider {
  const real = sandboxProvider({ db: opts.db, secretKey, publicBaseUrl: opts.config.publicBaseUrl });
  // Metered outside the timeouts: a call cut off by its timeout counts as unavailable.
  return meteredProvider(
    withTimeouts(opts.wrapProvider ? opts.wrapProvider(real) : real, opts.config.providerTimeoutMs),
    metrics,
  );
}
