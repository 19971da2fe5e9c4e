import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * Node refuses to write a header holding a control character or a character past Latin-1, and
 * it refuses by throwing from `writeHead`, after every handler and hook has finished. Thrown
 * there, the error page is written with the same headers and throws again, out of reach of
 * any handler: the process stops. So every header is checked while the answer can still
 * change: one that Node would refuse is dropped, logged, and the answer becomes a plain 500.
 */
export function installHeaderGuard(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const refused = unwritableHeaders(reply);
    if (refused.length === 0) return payload;
    for (const name of refused) reply.removeHeader(name);
    request.log.error({ headers: refused }, 'response header refused: answered 500 instead');
    reply.code(500).type('application/json; charset=utf-8');
    return JSON.stringify({ error: 'Internal server error', code: 'internal_error' });
  });
}

function unwritableHeaders(reply: FastifyReply): string[] {
  const refused: string[] = [];
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value === undefined) continue;
    try {
      validateHeaderName(name);
      for (const one of Array.isArray(value) ? value : [value]) validateHeaderValue(name, String(one));
    } catch {
      refused.push(name);
    }
  }
  return refused;
}
