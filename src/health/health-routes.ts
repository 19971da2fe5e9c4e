import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { pendingMigrations } from '../db/index.ts';

/**
 * `/healthz` (liveness: the process answers) and `/readyz` (readiness: send it traffic).
 * Liveness asks nothing of the database: a probe that restarts an instance when it fails
 * would otherwise restart every instance during a database outage, which a restart cannot
 * mend, and each would come back to the same outage. Ready means the database answers and
 * every migration this version ships is applied; otherwise 503 (with Retry-After, as every
 * 503), so a load balancer takes the instance out of rotation (during an outage, before
 * migrations ran, while it stops) and puts it back when it recovers. Never a 500: a failed
 * check is the answer, not an error.
 *
 * Redis (the shared rate-limit counters), when configured, is reported too, with what its
 * absence means: rate limits fail open, so the instance stays ready and serves (its PING is
 * bounded by REDIS_TIMEOUT_MS, like every Redis command).
 */
export async function healthRoutes(app: FastifyInstance, opts: { redis?: Redis }): Promise<void> {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    let database: 'ok' | 'unavailable' = 'ok';
    let pending: string[] = [];
    try {
      pending = await pendingMigrations(app.payreq.db);
    } catch (err) {
      database = 'unavailable';
      request.log.warn({ err: (err as Error).message }, 'readiness: database unavailable');
    }
    const migrations = database === 'ok' ? (pending.length === 0 ? 'current' : 'pending') : 'unknown';
    const redis = opts.redis ? await redisCheck(opts.redis, request.log) : undefined;
    const ready = database === 'ok' && pending.length === 0;
    if (!ready) reply.code(503);
    return {
      status: ready ? 'ready' : 'unavailable',
      checks: {
        database,
        migrations,
        ...(pending.length > 0 ? { pending_migrations: pending } : {}),
        ...(redis ? { redis } : {}),
      },
      ...(redis === 'unavailable' ? { degraded: { redis: 'rate limits are not enforced: requests pass' } } : {}),
    };
  });
}

async function redisCheck(redis: Redis, log: { warn(obj: object, msg: string): void }): Promise<'ok' | 'unavailable'> {
  try {
    await redis.ping();
    return 'ok';
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'readiness: redis unavailable, rate limits fail open');
    return 'unavailable';
  }
}
