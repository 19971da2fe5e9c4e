import { readError, stripeClient } from './client.ts';

export interface StripeKeyCheck {
  apiUrl: string;
  secretKey: string;
  timeoutMs?: number;
}

/**
 * Whether a key opens the account, before anyone relies on it: one list of PaymentIntents (a
 * permission payreq needs whatever it does), nothing created. A wrong or revoked key is
 * Stripe's 401 `authentication_error`; a restricted key without that permission its 403.
 * Throws a ProviderError saying what failed, never the key.
 */
export async function checkStripeKey(check: StripeKeyCheck): Promise<void> {
  const stripe = await stripeClient({ ...check, timeoutMs: check.timeoutMs ?? 10_000 });
  try {
    await stripe.paymentIntents.list({ limit: 1 });
  } catch (err) {
    throw readError('key check', err);
  }
}

/**
 * Creates the account's webhook endpoint (`POST /v1/webhook_endpoints`) for `url` and the
 * events payreq reads; answers its id and the signing secret, which Stripe returns at creation
 * only. `idempotencyKey`: one per setting-up, so the SDK's retries create one endpoint.
 */
export async function createWebhookEndpoint(
  check: StripeKeyCheck & { url: string; events: readonly string[]; idempotencyKey: string },
): Promise<{ id: string; secret: string }> {
  const stripe = await stripeClient({ ...check, timeoutMs: check.timeoutMs ?? 10_000 });
  try {
    const endpoint = await stripe.webhookEndpoints.create(
      {
        url: check.url,
        enabled_events: [...check.events] as never,
        description: 'payreq: payment requests (guest checkouts, holds, refunds, disputes)',
      },
      { idempotencyKey: check.idempotencyKey },
    );
    if (!endpoint.secret) throw new Error(`endpoint ${endpoint.id} came without its signing secret`);
    return { id: endpoint.id, secret: endpoint.secret };
  } catch (err) {
    throw readError('webhook endpoint', err);
  }
}
