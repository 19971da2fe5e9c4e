import { existsSync } from 'node:fs';
import { type DatabaseLocation, parseDatabaseUrl } from '../database-location/index.ts';
import { longestProviderCallMs } from '../provider-call-limits/index.ts';
import { checkKeyId, KeyRingError, keyRing, LEGACY_KEY_ID, type NamedKey, parseOldKeys } from '../secrets/index.ts';
import { estimatedBits, MIN_SECRET_KEY_BITS } from './secret-key-strength.ts';
import { parseTrustProxy, type TrustProxy } from './trust-proxy.ts';

export type { TrustProxy };

/** Configuration from the environment. A bad value stops the start with one line. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  database: DatabaseLocation;
  redisUrl: string | undefined;
  /**
   * The longest any Redis command may wait for its answer: past it the command fails, and the
   * rate limit it served lets the request through (rate limits fail open).
   */
  redisTimeoutMs: number;
  publicBaseUrl: string;
  nodeEnv: 'development' | 'production' | 'test';
  production: boolean;
  trustProxy: TrustProxy;
  /** The whole request (headers and body) must arrive within this; then 408 and the socket closes. */
  requestTimeoutMs: number;
  /** The request's headers must arrive within this. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /**
   * Open connections one instance holds at most; a new one past it is closed at accept (and
   * counted). Below the process's file descriptor limit, so that limit is never what fails.
   */
  maxConnections: number;
  /**
   * Open connections one client address holds at most, below maxConnections: one client's idle
   * sockets cannot fill the instance. A trusted proxy's (TRUST_PROXY) connections are exempt.
   */
  maxConnectionsPerAddress: number;
  /**
   * How long a keep-alive connection may live, however often it sends a request: the response
   * of the first request past it closes the connection (one request a minute cannot hold a
   * connection for ever).
   */
  connectionMaxAgeMs: number;
  /**
   * PostgreSQL: the longest wait for a connection, and for any one statement's answer. Past it
   * the request answers 503 with Retry-After instead of hanging on a database that is away.
   */
  databaseTimeoutMs: number;
  /** /api/docs and /api/openapi.json served (API_DOCS); on by default except in production. */
  apiDocs: boolean;
  /** GET /metrics answers with this bearer token only; unset: no /metrics at all. */
  metricsToken: string | undefined;
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  smtpUrl: string | undefined;
  /** sandbox: a tenant with no account of its own pays in the sandbox; lyra or stripe: it cannot pay at all. */
  paymentProvider: 'sandbox' | 'lyra' | 'stripe';
  createRateLimit: number;
  secretKey: string | undefined;
  /** SECRET_KEY's id, recorded in every value it seals; `v1` unless set (what `v1:` values name). */
  secretKeyId: string;
  /** SECRET_KEYS_OLD: retired keys, which still open (never seal) the values they sealed. */
  oldSecretKeys: readonly NamedKey[];
  logLevel: string;
  /** How long a verified API key is trusted without asking the database again. */
  authCacheMs: number;
  /** How long any call to the payment provider may take before it counts as unavailable. */
  providerTimeoutMs: number;
  /**
   * How long a money operation with no answer stays in doubt before the provider's "not
   * there" is believed: a call that timed out may still land a moment later. At least twice
   * the longest a provider call can last (checked here).
   */
  inDoubtGraceSeconds: number;
  /**
   * How long an operation may stay undecided before it is an incident on the Books page, for
   * a manager to settle by hand after looking at the provider's back office.
   */
  inDoubtEscalateHours: number;
  /**
   * How many days after payreq captured or refunded money the provider's remittance should
   * hold it: past them, money no imported remittance holds is "not paid out" (the Payouts page,
   * the daily digest).
   */
  settlementDelayDays: number;
  /** The sandbox's first IPN retry delay; later ones double (tests shorten it). */
  sandboxIpnRetryMs: number;
  /** The e-mail outbox's first retry delay after an SMTP failure; later ones double up to 1 h. */
  mailRetryBaseMs: number;
  /**
   * E-mails kept back while SMTP_URL was unset are sent, once it is set, only if they were
   * queued less than this many hours before; the older ones are marked expired, not sent.
   */
  mailBacklogMaxAgeHours: number;
  /** First delay before a failed webhook delivery is tried again; it doubles up to an hour. */
  webhookRetryBaseMs: number;
  /**
   * How long a scheduled job's run is leased for; renewed every quarter of it while it runs. A
   * run whose lease has passed belongs to a process that died, and its slot is run again.
   */
  jobLeaseSeconds: number;
  /**
   * WORKERS=off: this process runs no background work (scheduler, e-mail and webhook senders), e.g. a
   * read-only replica or an API-only instance. On by default; the slot claim keeps several
   * instances with workers from running a job twice.
   */
  workers: boolean;
  /**
   * CONTROL_REQUIRE_2FA=on: every back-office user, superusers included, signs in with a second
   * factor (TOTP), whatever their tenant's `require_2fa`. Off by default: each tenant decides.
   */
  controlRequire2fa: boolean;
  /**
   * WEBHOOKS_ALLOW_PRIVATE=on: webhook endpoints may be at loopback, private (10/8, 172.16/12,
   * 192.168/16, fc00::/7) and CGNAT (100.64/10) addresses, for a PMS on the hotel's own network.
   * Off by default: the SSRF guard refuses them at registration and at every delivery.
   * Link-local, metadata, multicast and reserved addresses are refused either way.
   */
  webhooksAllowPrivate: boolean;
  /** PASSWORD_HASH_COST: log2 of scrypt's N for new password hashes (PASSWORD_HASH_COST above). */
  passwordHashCost: number;
}

export class ConfigError extends Error {}

/**
 * scrypt's cost for back-office passwords, as log2 of N (PASSWORD_HASH_COST). Production takes
 * today's, OWASP's 2^17 (128 MiB and about 250 ms of CPU a hash), and refuses less. Lower, down
 * to 2^10, only outside production: a test suite signing in hundreds of times whose subject is
 * not the hash, or a developer's laptop. A hash carries its own cost, so it verifies whatever
 * the setting, and one below the setting is raised at the next sign-in.
 */
export const PASSWORD_HASH_COST = { production: 17, lowest: 10 } as const;

/** One client address's share of the connections unless MAX_CONNECTIONS is small (then a quarter of it). */
const DEFAULT_CONNECTIONS_PER_ADDRESS = 128;

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return n;
}

/** Reads `.env` in the working directory when present; real environment variables win. */
export function loadDotEnv(file = '.env'): void {
  if (existsSync(file)) process.loadEnvFile(file);
}

/** The length and (in production) entropy rules, for SECRET_KEY and each retired key alike. */
function checkKeyStrength(name: string, key: string, production: boolean): void {
  if (key.length < 32) throw new ConfigError(`${name} must be at least 32 characters`);
  if (production && estimatedBits(key) < MIN_SECRET_KEY_BITS) {
    throw new ConfigError(
      `${name} looks guessable (too few different characters): make one with \`openssl rand -base64 48\``,
    );
  }
}

/** SECRET_KEY_ID and SECRET_KEYS_OLD, checked: ids well formed and distinct, every key strong. */
function secretKeys(
  env: NodeJS.ProcessEnv,
  secretKey: string | undefined,
  production: boolean,
): { secretKeyId: string; oldSecretKeys: NamedKey[] } {
  try {
    const secretKeyId = checkKeyId(env.SECRET_KEY_ID || LEGACY_KEY_ID, 'SECRET_KEY_ID');
    const oldSecretKeys = parseOldKeys(env.SECRET_KEYS_OLD);
    if (oldSecretKeys.length > 0 && !secretKey) {
      throw new ConfigError('SECRET_KEYS_OLD needs SECRET_KEY (the current key) to be set');
    }
    if (secretKey) checkKeyStrength('SECRET_KEY', secretKey, production);
    for (const k of oldSecretKeys) checkKeyStrength(`SECRET_KEYS_OLD key "${k.id}"`, k.key, production);
    keyRing({ id: secretKeyId, key: secretKey ?? '' }, oldSecretKeys);
    return { secretKeyId, oldSecretKeys };
  } catch (err) {
    if (err instanceof KeyRingError) throw new ConfigError(err.message);
    throw err;
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nodeEnv = (env.NODE_ENV ?? 'development') as Config['nodeEnv'];
  if (!['development', 'production', 'test'].includes(nodeEnv)) {
    throw new ConfigError(`NODE_ENV must be development, production or test (got "${env.NODE_ENV}")`);
  }
  const production = nodeEnv === 'production';
  const port = int(env, 'PORT', 8000, 0, 65535);
  const databaseUrl = env.DATABASE_URL || 'pglite://./data/pglite';
  let database: DatabaseLocation;
  try {
    database = parseDatabaseUrl(databaseUrl);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const directUrl = env.DATABASE_DIRECT_URL || undefined;
  // PGlite is in the process: no pooler in front of it, nothing to reach directly.
  if (directUrl && database.engine === 'postgres') {
    if (!/^postgres(ql)?:\/\//.test(directUrl)) {
      throw new ConfigError(
        `DATABASE_DIRECT_URL must start with postgres:// or postgresql:// (got ${directUrl.split(':')[0]}:...)`,
      );
    }
    database = { ...database, directUrl };
  }
  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicBaseUrl);
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL must be an absolute URL (got "${env.PUBLIC_BASE_URL}")`);
  }
  const paymentProvider = (env.PAYMENT_PROVIDER || 'sandbox') as Config['paymentProvider'];
  if (!['sandbox', 'lyra', 'stripe'].includes(paymentProvider)) {
    throw new ConfigError(`PAYMENT_PROVIDER must be sandbox, lyra or stripe (got "${env.PAYMENT_PROVIDER}")`);
  }
  if (production && paymentProvider === 'sandbox' && env.SANDBOX_IN_PRODUCTION !== 'true') {
    throw new ConfigError(
      'PAYMENT_PROVIDER=sandbox takes no real payments and is refused when NODE_ENV=production (set SANDBOX_IN_PRODUCTION=true to allow it)',
    );
  }
  const secretKey = env.SECRET_KEY || undefined;
  if (production && !secretKey) throw new ConfigError('SECRET_KEY is required when NODE_ENV=production');
  const { secretKeyId, oldSecretKeys } = secretKeys(env, secretKey, production);
  const tlsCert = env.TLS_CERT || undefined;
  const tlsKey = env.TLS_KEY || undefined;
  if (Boolean(tlsCert) !== Boolean(tlsKey)) throw new ConfigError('TLS_CERT and TLS_KEY must be set together');
  const workersRaw = (env.WORKERS || 'on').toLowerCase();
  if (!['on', 'off'].includes(workersRaw)) throw new ConfigError(`WORKERS must be on or off (got "${env.WORKERS}")`);
  let trustProxy: TrustProxy;
  try {
    trustProxy = parseTrustProxy(env.TRUST_PROXY, production);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const maxConnections = int(env, 'MAX_CONNECTIONS', 1024, 16, 1_000_000);
  const requestTimeoutMs = int(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  const headersTimeoutMs = int(env, 'HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 100, 600_000);
  // Node refuses a headers timeout longer than the whole request's.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError('HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS');
  }
  const providerTimeoutMs = int(env, 'PROVIDER_TIMEOUT_MS', 15_000, 100, 120_000);
  const inDoubtGraceSeconds = int(env, 'IN_DOUBT_GRACE_SECONDS', 120, 0, 86_400);
  // Reconcile believes the provider's "not there" once the grace has passed since an
  // operation's ledger row was written: by then its call must be over. A move may wait up to
  // one longest call for its turn (the runner does not start it later), then its own call lasts
  // up to one more: the grace must cover both.
  const longestCallMs = longestProviderCallMs(providerTimeoutMs);
  if (inDoubtGraceSeconds * 1000 < 2 * longestCallMs) {
    throw new ConfigError(
      `IN_DOUBT_GRACE_SECONDS (${inDoubtGraceSeconds} s) is shorter than twice the longest a provider call can ` +
        `last (${longestCallMs / 1000} s with PROVIDER_TIMEOUT_MS=${providerTimeoutMs}): set it to at least ` +
        `${Math.ceil((2 * longestCallMs) / 1000)}, or lower PROVIDER_TIMEOUT_MS`,
    );
  }
  const apiDocsRaw = (env.API_DOCS || (production ? 'off' : 'on')).toLowerCase();
  if (!['on', 'off'].includes(apiDocsRaw)) throw new ConfigError(`API_DOCS must be on or off (got "${env.API_DOCS}")`);
  const require2faRaw = (env.CONTROL_REQUIRE_2FA || 'off').toLowerCase();
  if (!['on', 'off'].includes(require2faRaw)) {
    throw new ConfigError(`CONTROL_REQUIRE_2FA must be on or off (got "${env.CONTROL_REQUIRE_2FA}")`);
  }
  const allowPrivateRaw = (env.WEBHOOKS_ALLOW_PRIVATE || 'off').toLowerCase();
  if (!['on', 'off'].includes(allowPrivateRaw)) {
    throw new ConfigError(`WEBHOOKS_ALLOW_PRIVATE must be on or off (got "${env.WEBHOOKS_ALLOW_PRIVATE}")`);
  }
  const passwordHashCost = int(
    env,
    'PASSWORD_HASH_COST',
    PASSWORD_HASH_COST.production,
    PASSWORD_HASH_COST.lowest,
    PASSWORD_HASH_COST.production,
  );
  if (production && passwordHashCost < PASSWORD_HASH_COST.production) {
    throw new ConfigError(
      `PASSWORD_HASH_COST below ${PASSWORD_HASH_COST.production} makes stolen password hashes cheap to guess and is refused when NODE_ENV=production`,
    );
  }
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && (metricsToken.length < 16 || !/^[\x21-\x7e]+$/.test(metricsToken))) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 visible ASCII characters (e.g. `openssl rand -hex 24`)');
  }
  return {
    port,
    // On a laptop the service should not be reachable from the café's network by default;
    // servers and containers (production, test) listen on every interface.
    host: env.HOST || (nodeEnv === 'development' ? '127.0.0.1' : '0.0.0.0'),
    databaseUrl,
    database,
    redisUrl: env.REDIS_URL || undefined,
    redisTimeoutMs: int(env, 'REDIS_TIMEOUT_MS', 500, 50, 10_000),
    publicBaseUrl,
    nodeEnv,
    production,
    trustProxy,
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000, 600_000),
    maxConnections,
    maxConnectionsPerAddress: int(
      env,
      'MAX_CONNECTIONS_PER_ADDRESS',
      Math.min(DEFAULT_CONNECTIONS_PER_ADDRESS, Math.floor(maxConnections / 4)),
      1,
      maxConnections - 1,
    ),
    connectionMaxAgeMs: int(env, 'CONNECTION_MAX_AGE_S', 300, 1, 86_400) * 1000,
    databaseTimeoutMs: int(env, 'DATABASE_TIMEOUT_MS', 1500, 100, 600_000),
    apiDocs: apiDocsRaw === 'on',
    metricsToken,
    tlsCert,
    tlsKey,
    smtpUrl: env.SMTP_URL || undefined,
    paymentProvider,
    createRateLimit: int(env, 'CREATE_RATE_LIMIT', 300, 0, 1_000_000),
    secretKey,
    secretKeyId,
    oldSecretKeys,
    logLevel: env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info'),
    authCacheMs: int(env, 'AUTH_CACHE_MS', 5000, 0, 300_000),
    providerTimeoutMs,
    inDoubtGraceSeconds,
    inDoubtEscalateHours: int(env, 'IN_DOUBT_ESCALATE_HOURS', 24, 1, 720),
    settlementDelayDays: int(env, 'SETTLEMENT_DELAY_DAYS', 3, 1, 60),
    sandboxIpnRetryMs: int(env, 'SANDBOX_IPN_RETRY_MS', 1000, 10, 60_000),
    mailRetryBaseMs: int(env, 'MAIL_RETRY_BASE_MS', 30_000, 10, 3_600_000),
    mailBacklogMaxAgeHours: int(env, 'MAIL_BACKLOG_MAX_AGE_HOURS', 24, 0, 8760),
    webhookRetryBaseMs: int(env, 'WEBHOOK_RETRY_BASE_MS', 30_000, 10, 3_600_000),
    jobLeaseSeconds: int(env, 'JOB_LEASE_SECONDS', 60, 1, 3600),
    workers: workersRaw === 'on',
    controlRequire2fa: require2faRaw === 'on',
    webhooksAllowPrivate: allowPrivateRaw === 'on',
    passwordHashCost,
  };
}
