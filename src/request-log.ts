import type { FastifyInstance } from 'fastify';

/**
 * One log line per request, written when it is answered: the request (method, path, host,
 * peer), its status, its time and its id. Fastify's own request logging writes two, one as the
 * request arrives; on a busy instance that doubles the log's cost for nothing the second line
 * does not say. The arrival is still logged at `debug`, to follow a request that never ends.
 */
export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    request.log.debug({ req: request }, 'incoming request');
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  });
}
