import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The hotel asking one of the sandbox's views (its order view, its remittance report): the
 * tenant of the API key in `X-API-Key`, checked as the API checks it (401 in the API's shape
 * otherwise). These views name orders, and an order id opens the guest's pages: like a real
 * provider's API, they answer the merchant's own credentials only, in development too.
 */
export async function hotelOfCall(app: FastifyInstance, request: FastifyRequest): Promise<string> {
  const caller = await app.payreq.auth.authenticate(request.headers['x-api-key']);
  return caller.tenantId;
}
