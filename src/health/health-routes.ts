import type { FastifyInstance } from 'fastify';
import { pendingMigrations } from '../db/index.js';

/**
 * `/healthz` (liveness: the process answers) and `/readyz` (readiness: send it traffic).
 * Liveness asks nothing of the database: a probe that restarts an instance when it fails
 * would otherwise restart every instance during a database outage, which a restart cannot
 * mend, and each would come back to the same outage. Ready means the database answers and
 * every migration this version ships is applied; otherwise 503 (with Retry-After, as every
 * 503), so a load balancer takes the instance out of rotation (during an outage, before
 * migrations ran, while it stops) and puts it back when it recovers. Never a 500: a failed
 * check is the answer, not an error.
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
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
    const ready = database === 'ok' && pending.length === 0;
    if (!ready) reply.code(503);
    return {
      status: ready ? 'ready' : 'unavailable',
      checks: { database, migrations, ...(pending.length > 0 ? { pending_migrations: pending } : {}) },
    };
  });
}
