import type { FastifyInstance } from 'fastify';
import { RETRY_AFTER_SECONDS } from '../api/index.js';
import { pendingMigrations } from '../db/index.js';

/**
 * `/healthz` (liveness: the process answers and reaches its database) and `/readyz`
 * (readiness: send it traffic). Ready means the database answers and every migration this
 * version ships is applied; otherwise 503 with Retry-After, so a load balancer takes the
 * instance out of rotation (during an outage, before migrations ran, while it stops) and puts
 * it back when it recovers. Never a 500: a failed check is the answer, not an error.
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', { schema: { hide: true } }, async () => {
    await app.payreq.db.query('SELECT 1');
    return { status: 'ok' };
  });

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
    const ready = database === 'ok' && pending.length === 0;
    if (!ready) reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS));
    return {
      status: ready ? 'ready' : 'unavailable',
      checks: { database, migrations, ...(pending.length > 0 ? { pending_migrations: pending } : {}) },
    };
  });
}
