import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../domain/index.ts';
import type { IpnOutcome, ServiceMetrics } from './service-metrics.ts';

const IPN_ROUTE = '/ipn/:provider/';

function ipnOutcome(status: number): IpnOutcome {
  if (status < 300) return 'accepted';
  if (status === 429) return 'rate_limited';
  if (status === 404) return 'not_found';
  return status >= 500 ? 'failed' : 'refused';
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Counts every answered request by route pattern (never the raw URL: one series per route, not
 * per uuid) and status, with its latency; provider notifications by outcome. Installed on the
 * root instance before the routes, so every route has it.
 */
export function recordRequests(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    if (route === IPN_ROUTE) {
      const provider = (request.params as { provider?: string }).provider ?? '';
      // A provider path that does not exist is not a provider: one label value for all of them.
      const name = app.payreq.providers.byName(provider) ? provider : 'unknown';
      metrics.ipnNotification(name, ipnOutcome(reply.statusCode));
    }
  });
}

/**
 * `GET /metrics` in Prometheus's text format, for the holder of METRICS_TOKEN only
 * (`Authorization: Bearer <token>`); without METRICS_TOKEN the route does not exist. A token
 * rather than a separate port: one listener to run, TLS and the proxy rules included, and
 * nothing readable by whoever reaches the service's address.
 */
export function metricsRoute(app: FastifyInstance, metrics: ServiceMetrics, token: string | undefined): void {
  const expected = token === undefined ? undefined : digest(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!expected) throw errors.routeNotFound();
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    // Compared as digests: constant time, whatever the length given.
    if (!given || !timingSafeEqual(digest(given), expected)) throw errors.unauthorized();
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
}
