import type { ApiCaller } from './authenticator.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API key check on /api routes. */
    caller?: ApiCaller;
    /** The JSON body as received, for the Idempotency-Key fingerprint. */
    rawBody?: string;
  }
}
