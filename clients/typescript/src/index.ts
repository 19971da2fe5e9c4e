import { randomUUID } from 'node:crypto';
import createClient, { type Middleware } from 'openapi-fetch';
import { type RetryOptions, retryingFetch } from './retry.ts';
import type { components, operations, paths } from './schema.ts';

export { isRetriable, type RetryOptions, retryAfterMs } from './retry.ts';
export type { components, operations, paths } from './schema.ts';
export { verifyWebhookSignature } from './webhook-signature.ts';

export type PaymentRequestDetail = components['schemas']['PaymentRequestDetail'];
export type CreatePaymentRequest = components['schemas']['CreatePaymentRequest'];
export type Event = components['schemas']['Event'];

export interface PayreqClientOptions extends RetryOptions {
  /** The service's address, without /api: `https://pay.hotel.example`. */
  baseUrl: string;
  /** `<prefix>.<secret>`, sent as X-API-Key. */
  apiKey: string;
  /** For tests or other runtimes; the global fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * Every POST carries an Idempotency-Key: the caller's, or a new one. Being set once before the
 * first attempt, it is the same on every retry, so a retried create or capture happens once.
 */
const idempotencyKeys: Middleware = {
  onRequest({ request }) {
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', randomUUID());
    }
    return request;
  },
};

/**
 * A typed client of the payreq API (openapi-fetch over the generated `paths`). Calls answer
 * `{ data, error, response }`; 429 and 5xx are retried with backoff and jitter (honouring
 * Retry-After), 400/401/403/404/422 are not.
 *
 *   const payreq = createPayreqClient({ baseUrl, apiKey });
 *   const { data, error } = await payreq.POST('/api/payment-requests/', { body: { ... } });
 */
export function createPayreqClient(o: PayreqClientOptions) {
  const inner = o.fetch ?? ((r: Request) => globalThis.fetch(r));
  const client = createClient<paths>({
    baseUrl: o.baseUrl.replace(/\/+$/, ''),
    headers: { 'x-api-key': o.apiKey },
    fetch: retryingFetch(inner, o),
  });
  client.use(idempotencyKeys);
  return client;
}

export type PayreqClient = ReturnType<typeof createPayreqClient>;
export type CreateResponse = operations['createPaymentRequest']['responses']['201']['content']['application/json'];
