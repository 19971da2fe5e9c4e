import type { FastifyInstance } from 'fastify';
import pino from 'pino';

/**
 * One log line per request, written when it is answered: the request (method, path, host,
 * peer), its status, its time and its id. Fastify's own request logging writes two, one as the
 * request arrives; on a busy instance that doubles the log's cost for nothing the second line
 * does not say. The arrival is still logged at `debug`, to follow a request that never ends.
 * The level is read once, at start (LOG_LEVEL): a hook whose line would never be written is
 * not installed, so a quiet instance does not pay a hook per request for nothing.
 */
export function installRequestLog(app: FastifyInstance): void {
  if (enabled(app, 'debug')) {
    app.addHook('onRequest', (request, _reply, done) => {
      request.log.debug({ req: request }, 'incoming request');
      done();
    });
  }
  if (enabled(app, 'info')) {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
      done();
    });
  }
}

/** Whether the app's logger writes lines of `level` ('silent' writes none). */
function enabled(app: FastifyInstance, level: 'debug' | 'info'): boolean {
  const at = pino.levels.values[app.log.level];
  return at !== undefined && at <= (pino.levels.values[level] as number);
}
