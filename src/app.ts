import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import sjson from 'secure-json-parse';
import {
  type AppContext,
  apiPlugin,
  authenticator,
  frameworkErrors,
  installErrorHandling,
  validatorCompiler,
} from './api/index.js';
import type { Config } from './config/index.js';
import { type Database, type Repositories, repositories } from './db/index.js';
import { AppError, errors } from './domain/index.js';
import { guestRoutes } from './guest/index.js';
import { ipnRoutes, notifications } from './ipn/index.js';
import { guestCommands, moneyRunner, paymentRequestCommands, reconciler } from './payment-requests/index.js';
import { accountRegistry, type PaymentProvider, sandboxProvider, withTimeouts } from './providers/index.js';
import { sandboxRoutes } from './providers/sandbox/index.js';
import { secretBox } from './secrets/index.js';

export const BODY_LIMIT = 64 * 1024;
const SAFE_REQUEST_ID = /^[\w.:-]{1,64}$/;

export interface BuildOptions {
  config: Config;
  db: Database;
  /** Wraps the configured provider (tests count or fail its calls). */
  wrapProvider?: (real: PaymentProvider) => PaymentProvider;
  now?: () => Date;
}

/** Everything the service shares, for the HTTP app, the CLI and the jobs alike. */
export async function buildContext(opts: BuildOptions): Promise<AppContext> {
  const repos = repositories(opts.db);
  const secretKey = await resolveSecretKey(opts.config, repos);
  const cardTokens = secretBox(secretKey, 'card-token');
  const providers = accountRegistry({
    accounts: repos.providerAccounts,
    secrets: providerSecrets(secretKey),
    timeoutMs: opts.config.providerTimeoutMs,
    // PAYMENT_PROVIDER=sandbox: a tenant with no real account pays in the sandbox (development,
    // tests); lyra: it cannot take payments at all, as production requires.
    ...(opts.config.paymentProvider === 'sandbox' ? { sandbox: sandboxFor(opts, secretKey) } : {}),
  });
  const runner = moneyRunner({ db: opts.db, ledger: repos.ledger, providers });
  const reconcile = reconciler({
    db: opts.db,
    repos,
    runner,
    providers,
    graceSeconds: opts.config.inDoubtGraceSeconds,
  });
  return {
    config: opts.config,
    db: opts.db,
    repos,
    providers,
    runner,
    reconciler: reconcile,
    notifications: notifications({ db: opts.db, ledger: repos.ledger, runner, cardTokens }),
    commands: paymentRequestCommands({ db: opts.db, repos, runner, reconciler: reconcile }, opts.now),
    guest: guestCommands(opts.db),
    secretKey,
    cardTokens,
    auth: authenticator(repos, opts.config.authCacheMs),
  };
}

function sandboxFor(opts: BuildOptions, secretKey: string): PaymentProvider {
  const real = sandboxProvider({ db: opts.db, secretKey, publicBaseUrl: opts.config.publicBaseUrl });
  return withTimeouts(opts.wrapProvider ? opts.wrapProvider(real) : real, opts.config.providerTimeoutMs);
}

/** The provider accounts' secrets have their own key: a card token's box never opens them. */
export function providerSecrets(secretKey: string) {
  return secretBox(secretKey, 'provider-account');
}

/**
 * SECRET_KEY when configured (production requires it: config refuses to start without).
 * Otherwise the key stored in the database on first use, so the service, the CLI and every
 * later start seal and open card tokens with the same key.
 */
export async function resolveSecretKey(config: Config, repos: Repositories): Promise<string> {
  if (config.secretKey) return config.secretKey;
  if (config.production) throw new Error('SECRET_KEY is required in production');
  return repos.settings.getOrSet('secret_key', randomBytes(32).toString('hex'));
}

/** The whole HTTP service on an open, migrated database. */
export async function buildApp(opts: BuildOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const https =
    config.tlsCert && config.tlsKey ? { key: readFileSync(config.tlsKey), cert: readFileSync(config.tlsCert) } : null;
  const app = Fastify({
    ...(https ? { https } : {}),
    logger: {
      level: config.logLevel,
      // Keys, card data and secrets never reach a log line.
      redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
    },
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: false } },
    frameworkErrors,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('payreq', await buildContext(opts));
  app.setValidatorCompiler(validatorCompiler());
  installErrorHandling(app);

  // Only JSON is accepted; an empty body counts as no body (a bodiless POST with the header set).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch {
      done(errors.invalidJson(), undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (config.production) {
      reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
      if (request.protocol !== 'https') throw errors.httpsRequired();
    }
  });

  const redis = config.redisUrl ? await connectRedis(config.redisUrl, app) : undefined;
  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    ...(redis ? { redis } : {}),
    // A Redis outage must not take the API down with it: let requests through and log.
    skipOnError: true,
    errorResponseBuilder: (_req, ctx) =>
      new AppError('rate_limited', 429, `Rate limit exceeded, retry in ${ctx.after}`, {}),
  });

  await app.register(apiPlugin);
  await app.register(ipnRoutes);
  await app.register(guestRoutes);
  if (app.payreq.providers.byName('sandbox')) await app.register(sandboxRoutes);
  app.get('/healthz', { schema: { hide: true } }, async () => {
    await app.payreq.db.query('SELECT 1');
    return { status: 'ok' };
  });
  return app;
}

/**
 * The shared rate-limit store. Connected before the first request (a configured Redis that
 * cannot be reached stops the start); an outage later is logged and requests go through
 * (skipOnError) rather than the API going down with it.
 */
async function connectRedis(url: string, app: FastifyInstance): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', (err) => app.log.warn({ err: err.message }, 'redis unavailable'));
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new Error(`REDIS_URL: cannot connect (${(err as Error).message})`);
  }
  app.addHook('onClose', async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  return redis;
}
