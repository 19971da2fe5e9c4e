import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, LogController, type RouteOptions } from 'fastify';
import { Redis } from 'ioredis';
import pino from 'pino';
import {
  answerClientError,
  apiPlugin,
  decodeUtf8,
  frameworkErrors,
  installErrorHandling,
  installHeaderGuard,
  installRetryAfter,
  MAX_HEADER_BYTES,
  originForm,
  parseJsonBody,
  validatorCompiler,
} from './api/index.ts';
import type { Config, TrustProxy } from './config/index.ts';
import { gateConnections, proxyPeers } from './connections/index.ts';
import { buildContext, type ContextOptions } from './context.ts';
import { controlPlugin } from './control/index.ts';
import { devMailRoutes } from './dev-mail/index.ts';
import { AppError, errors } from './domain/index.ts';
import { guestRoutes } from './guest/index.ts';
import { healthRoutes } from './health/index.ts';
import { ipnRoutes } from './ipn/index.ts';
import { metricsRoute, recordRequests } from './metrics/index.ts';
import { pmsWebhookRoutes } from './pms/index.ts';
import { sandboxJobKind, sandboxRoutes } from './providers/sandbox/index.ts';
import type { QueueWorker } from './queue/index.ts';
import { installRequestLog } from './request-log.ts';
import { startServiceQueue } from './service-queue.ts';

export const BODY_LIMIT = 64 * 1024;
const SAFE_REQUEST_ID = /^[\w.:-]{1,64}$/;
/** Paths exempt from the production HTTPS rule (see the onRequest hook). */
const OPERATOR_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
/** TLS handshakes in progress Node accepts past MAX_CONNECTIONS (the gate counts finished ones). */
const TLS_HANDSHAKE_MARGIN = 64;

/** What the HTTP service is built from: the shared context's options (see context.ts), and a route hook. */
export interface BuildOptions extends ContextOptions {
  /** Sees each route as it is registered (the route fuzz test enumerates them this way). */
  onRoute?: (route: RouteOptions) => void;
  /**
   * How often the worker looks for jobs queued elsewhere (1 s unless told). A test sets it long
   * to see that this instance's own writes wake its worker without waiting for the poll.
   */
  queuePollMs?: number;
}

/** The whole HTTP service on an open, migrated database. */
export async function buildApp(opts: BuildOptions): Promise<FastifyInstance> {
  const { config } = opts;
  // Node checks its request and header timeouts every connectionsCheckingInterval (30 s unless
  // told): often enough here that a slow client is cut off close to the configured time.
  const serverTimeouts = {
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(config.headersTimeoutMs / 4))),
  };
  const https =
    config.tlsCert && config.tlsKey
      ? { key: readFileSync(config.tlsKey), cert: readFileSync(config.tlsCert), ...serverTimeouts }
      : null;
  const app = Fastify({
    ...(https ? { https } : { http: serverTimeouts }),
    // A client that sends its headers and then half a body (or nothing) is answered 408 and cut
    // off; an idle keep-alive connection closes. Keep-alive outlasts nginx's upstream keepalive
    // (60 s) so the proxy, not the service, closes an idle connection (no request lost in a race).
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // What Node refuses before routing (headers too large, a request too slow) answers in the
    // service's error shape.
    clientErrorHandler: answerClientError,
    logger: {
      level: config.logLevel,
      // Keys, card data and secrets never reach a log line.
      redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
      // Written without blocking the event loop (pino flushes what waits when the process exits).
      ...(config.logLevel === 'silent' ? {} : { stream: pino.destination({ dest: 1, sync: false }) }),
    },
    // One line per request, when it is answered (request-log.ts), not Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // A request line in absolute form (`GET http://host/path`) is routed as its path, and seen
    // as its path by every hook and plugin after (api/request-target.ts).
    rewriteUrl: (req) => originForm(req.url ?? '/'),
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: false } },
    frameworkErrors,
    // Fastify's own answer to a request arriving while the app closes is written straight to
    // the socket, without Retry-After or a request id; the onRequest hook below answers instead.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);
  app.decorate('payreq', await buildContext(opts));
  // A tenant's settings or a key changed by another process or instance reach the key cache
  // as soon as the database's notice does, not AUTH_CACHE_MS later.
  const unfollow = await app.payreq.auth.follow(opts.db);
  app.addHook('onClose', () => unfollow());
  app.setValidatorCompiler(validatorCompiler());
  installErrorHandling(app);
  installRequestLog(app);
  installHeaderGuard(app);
  installRetryAfter(app);
  let stopping = false;
  app.addHook('preClose', async () => {
    stopping = true;
  });

  // Only JSON is accepted; an empty body counts as no body (a bodiless POST with the header set).
  app.removeAllContentTypeParsers();
  // Read as bytes so invalid UTF-8 is refused rather than stored as U+FFFD (see api/json-body.ts).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      const text = decodeUtf8(body as Buffer);
      request.rawBody = text;
      done(null, text.trim() === '' ? undefined : parseJsonBody(text));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // A request that reaches a closing instance (on a connection still open): 503, so the
    // client or the balancer retries elsewhere; requests already running finish.
    if (stopping) throw errors.serviceStopping();
    // The probes and /metrics are called by the infrastructure on the instance's own address,
    // often in plain HTTP on a private network; they carry no guest or integrator data.
    if (config.production && !OPERATOR_PATHS.has(request.url)) {
      reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
      if (request.protocol !== 'https') throw errors.httpsRequired();
    }
  });

  const redis = config.redisUrl ? await connectRedis(config.redisUrl, config.redisTimeoutMs, app) : undefined;
  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    ...(redis ? { redis } : {}),
    // A Redis outage must not take the API down with it: let requests through and log.
    skipOnError: true,
    errorResponseBuilder: (_req, ctx) =>
      new AppError('rate_limited', 429, `Rate limit exceeded, retry in ${ctx.after}`, {}),
  });

  boundConnections(app, config);
  recordRequests(app, app.payreq.metrics);
  await app.register(apiPlugin);
  await app.register(ipnRoutes);
  await app.register(pmsWebhookRoutes);
  await app.register(guestRoutes);
  await app.register(controlPlugin, { now: opts.now });
  if (app.payreq.providers.byName('sandbox')) await app.register(sandboxRoutes);
  await app.register(healthRoutes, { redis });
  // The mail viewer of a trial or a developer's laptop: never served in production (or tests).
  if (config.nodeEnv === 'development') await app.register(devMailRoutes);
  metricsRoute(app, app.payreq.metrics, config.metricsToken);
  runQueue(app, opts.queuePollMs);
  return app;
}

/**
 * The one background worker, run by every instance with WORKERS=on (the claims keep N
 * instances from doing any job twice); tests turn it on the same way. Stopped as the app
 * closes, before the database, waiting for the jobs in flight.
 */
function runQueue(app: FastifyInstance, pollMs: number | undefined): void {
  let queue: QueueWorker | undefined;
  app.decorate('wakeQueue', () => queue?.wake());
  // A request that wrote may have queued a job (an e-mail, a webhook delivery): this instance's
  // worker looks at once; the others see it at their next poll (1 s). No NOTIFY: PostgreSQL
  // would run every such request's commit one at a time (src/queue/queue-worker.ts).
  if (app.payreq.config.workers) {
    app.addHook('onResponse', (request, reply, done) => {
      if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400) queue?.wake();
      done();
    });
  }
  app.addHook('onReady', async () => {
    if (!app.payreq.config.workers) return;
    // The sandbox's notification retries, when the sandbox is a provider: its own kind.
    const sandbox = app.payreq.providers.byName('sandbox')
      ? [sandboxJobKind(app.payreq, app.log.child({ component: 'sandbox' }))]
      : [];
    queue = await startServiceQueue(app.payreq, app.log, sandbox, pollMs);
  });
  app.addHook('onClose', async () => {
    await queue?.stop();
  });
}

/**
 * Connections one instance holds: at most MAX_CONNECTIONS open, at most
 * MAX_CONNECTIONS_PER_ADDRESS of them from one client address (a trusted proxy's excepted).
 * A cap reached closes the connection idle longest under it to admit the new one; only when
 * every connection under it is serving a request is the new one refused at accept (logged once
 * every 10 s, counted in payreq_connections_dropped_total). So idle sockets never lock new
 * clients, the probes included, out. None is older than CONNECTION_MAX_AGE_S: the response of
 * its first request past that age closes it, so one request a minute cannot keep a connection
 * (and its file descriptor) for ever; an idle one closes after KEEP_ALIVE_TIMEOUT_MS.
 */
function boundConnections(app: FastifyInstance, config: Config): void {
  const server = app.server;
  // Over TLS, a request's socket is the TLS socket, born with the secure connection: that is
  // the one gated. Handshakes in progress are bounded by Node itself, a little above the cap.
  const connectionEvent = config.tlsCert ? 'secureConnection' : 'connection';
  if (config.tlsCert) server.maxConnections = config.maxConnections + TLS_HANDSHAKE_MARGIN;
  let lastWarned = 0;
  const metrics = app.payreq.metrics;
  const gate = gateConnections(
    server,
    connectionEvent,
    {
      maxConnections: config.maxConnections,
      maxPerAddress: config.maxConnectionsPerAddress,
      isProxy: proxyPeers(config.trustProxy),
    },
    {
      evicted: (cap) => metrics.connectionEvicted(cap),
      refused: (cap) => {
        metrics.connectionDropped(cap);
        if (Date.now() - lastWarned < 10_000) return;
        lastWarned = Date.now();
        app.log.warn(
          {
            cap,
            max_connections: config.maxConnections,
            max_connections_per_address: config.maxConnectionsPerAddress,
          },
          cap === 'instance'
            ? 'connection limit reached: every connection is busy, new connections are closed at accept (MAX_CONNECTIONS)'
            : 'connection limit reached for one address: its connections are all busy, its new ones are closed at accept (MAX_CONNECTIONS_PER_ADDRESS)',
        );
      },
    },
  );
  metrics.countOpenConnections(gate.open);
  // Before the server closes: a connection that never sent a request would keep it open.
  app.addHook('preClose', (done) => {
    gate.closeIdle();
    done();
  });
  server.on('drop', () => metrics.connectionDropped('instance'));
  const born = new WeakMap<object, number>();
  server.on(connectionEvent, (socket: object) => born.set(socket, Date.now()));
  app.addHook('onSend', async (request, reply) => {
    const since = born.get(request.raw.socket);
    if (since !== undefined && Date.now() - since >= config.connectionMaxAgeMs) reply.header('connection', 'close');
  });
}

/**
 * TRUST_PROXY as Fastify takes it. A hop count becomes "the N nearest addresses are proxies",
 * which is what it means. A list of addresses and ranges is decided by the rule the connection
 * caps apply at accept (connections/proxy-peers.ts): one rule for both, and 0.2 to 0.5 µs a
 * call where Fastify's own compiled list took about 2 (proxy-addr parses the address again at
 * each call, and it is asked at every `request.protocol`, which production reads on every
 * request, and at each hop of `request.ip`). The two agree on every address Node itself
 * writes; on a hop of X-Forwarded-For in a form Node does not write (`127.1`, octal
 * `010.0.0.1`), this rule trusts nothing where proxy-addr read an address.
 */
function fastifyTrustProxy(tp: TrustProxy): boolean | ((address: string, hop: number) => boolean) {
  if (typeof tp === 'number') return (_address, hop) => hop < tp;
  if (typeof tp === 'boolean') return tp;
  const isProxy = proxyPeers(tp);
  return (address) => isProxy(address);
}

/**
 * The shared rate-limit store. Connected before the first request when it answers; a Redis
 * that cannot be reached or never answers at start does not stop the start (a restart during a
 * Redis outage must not become a payreq outage): the service serves with its rate limits
 * failing open, says so in the log and on /readyz (degraded), and the client keeps connecting
 * in the background until Redis answers, then uses it. Every wait on it is bounded by
 * `timeoutMs`: a command with no answer fails then (a Redis that holds the bytes, a network
 * partition), and its connection is dropped so the next commands fail at once until it is back
 * (no offline queue); a rate limit whose command fails lets the request through (skipOnError)
 * and the failure is logged. Nothing that guards money uses Redis.
 */
async function connectRedis(url: string, timeoutMs: number, app: FastifyInstance): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs, 1000),
  });
  redis.on('error', (err) => app.log.warn({ err: err.message }, 'redis unavailable'));
  try {
    await redis.connect();
  } catch (err) {
    // ioredis goes on reconnecting (its retry strategy): commands fail at once meanwhile.
    app.log.warn(
      { err: (err as Error).message },
      'REDIS_URL does not answer at start: serving with rate limits failing open until it does',
    );
  }
  app.addHook('onClose', async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  return redis;
}
