import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../domain/index.ts';

/** At most this many refused notifications a minute per client address, then 429. */
export const IPN_RATE_LIMIT = 60;

/**
 * The IPN endpoint's rate limit counts refused notifications only (a bad signature, an
 * unreadable body), never the ones that verify. A deliberate departure from a flat "60 requests
 * a minute per address": a provider sends its notifications from a few addresses, in bursts (70
 * deposits paid within 2 s), and a notification refused with 429 is a payment the service learns
 * of late, when the provider retries. Forging a signature is not possible, so a verified
 * notification costs no more than the work it asks for and is always let through; an unsigned
 * flood still gets 429 once an address has had IPN_RATE_LIMIT refusals within the minute. The
 * counters live in the same store as every other limit (Redis when REDIS_URL is set), so they
 * are shared by all instances.
 *
 * Returns the function the route calls after a refusal: it counts it, and throws the 429
 * (with Retry-After) once the address is over its allowance.
 */
export function refusedNotificationLimit(
  app: FastifyInstance,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const limiter = app.createRateLimit({
    max: IPN_RATE_LIMIT,
    timeWindow: 60_000,
    keyGenerator: (request) => `ipn-refused:${request.ip}`,
  });
  return async (request, reply) => {
    const state = await limiter(request);
    if (state.isAllowed || !state.isExceeded) return;
    reply.header('retry-after', String(state.ttlInSeconds));
    reply.header('ratelimit-limit', String(state.max));
    reply.header('ratelimit-remaining', '0');
    reply.header('ratelimit-reset', String(state.ttlInSeconds));
    throw errors.rateLimited(state.ttlInSeconds);
  };
}
