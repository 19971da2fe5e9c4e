import { randomUUID } from 'node:crypto';
import type { ProviderAccountRow, Repositories } from '../db/index.ts';
import {
  checkLyraCredentials,
  checkStripeKey,
  createWebhookEndpoint,
  isWebhookSecret,
  type LyraSecrets,
  modeOfKey,
  STRIPE_API_URL,
  STRIPE_WEBHOOK_EVENTS,
  type StripeSecrets,
} from '../providers/index.ts';
import { providerSecrets, type SecretKeyRing } from '../secrets/index.ts';

export const LYRA_MODES = ['TEST', 'PRODUCTION'] as const;
export type LyraMode = (typeof LYRA_MODES)[number];

/** The fields of a Lyra account, as each delivery names them to its user (option, form label). */
export type LyraField = 'shop_id' | 'api_url' | 'static_url' | 'mode' | 'secrets';

/** Input the user can correct; `field` says which, the message says what is wrong with it. */
export class ProviderAccountInputError extends Error {
  readonly field: LyraField | undefined;
  constructor(field: LyraField | undefined, message: string) {
    super(message);
    this.field = field;
    this.name = 'ProviderAccountInputError';
  }
}

/** The provider refused the credentials or could not be reached: nothing was stored. */
export class ProviderCredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderCredentialsError';
  }
}

/** A Lyra account as a user gives it: text, unchecked. `secrets` is the JSON of the three keys. */
export interface LyraAccountInput {
  shopId: string | undefined;
  apiUrl: string | undefined;
  staticUrl: string | undefined;
  mode: string | undefined;
  secrets: string | undefined;
}

export interface ProviderAccountDeps {
  repos: Repositories;
  secretKeys: SecretKeyRing;
}

function baseUrl(field: LyraField, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ProviderAccountInputError(field, `must be an absolute URL (got "${value}")`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ProviderAccountInputError(field, 'must be an http(s) URL');
  }
  // The adapter joins service paths to it: a base always ends with a slash.
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

function parseSecrets(text: string): LyraSecrets {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProviderAccountInputError('secrets', 'must be a JSON object {"password", "public_key", "hmac_key"}');
  }
  const given = (parsed ?? {}) as Record<string, unknown>;
  for (const field of ['password', 'public_key', 'hmac_key'] as const) {
    const v = given[field];
    if (typeof v !== 'string' || v.trim() === '') {
      throw new ProviderAccountInputError('secrets', `"${field}" is required, a non-empty string`);
    }
  }
  return {
    password: given.password as string,
    public_key: given.public_key as string,
    hmac_key: given.hmac_key as string,
  };
}

/**
 * Lyra's keys say their mode (passwords `testpassword_…` / `prodpassword_…`, public keys
 * `shop:testpublickey_…` / `shop:publickey_…`): a mismatch is caught here rather than at a
 * guest's first payment.
 */
function checkMode(mode: LyraMode, secrets: LyraSecrets): void {
  const testKeys = secrets.password.startsWith('testpassword_') || secrets.public_key.includes(':testpublickey_');
  const prodKeys = secrets.password.startsWith('prodpassword_') || secrets.public_key.includes(':publickey_');
  if ((mode === 'TEST' && prodKeys) || (mode === 'PRODUCTION' && testKeys)) {
    throw new ProviderAccountInputError(
      'mode',
      `${mode} does not match the keys given (they are ${testKeys ? 'TEST' : 'PRODUCTION'} keys)`,
    );
  }
}

/**
 * A tenant's own Lyra shop: every field checked, the credentials tried with Lyra
 * (Charge/SDKTest), and only then the secrets sealed under the provider accounts' own key and
 * stored. Any failure stores nothing.
 */
export async function setLyraAccount(
  deps: ProviderAccountDeps,
  tenantId: string,
  input: LyraAccountInput,
): Promise<ProviderAccountRow> {
  const shopId = input.shopId?.trim();
  if (!shopId) throw new ProviderAccountInputError('shop_id', 'is required');
  if (!input.apiUrl) throw new ProviderAccountInputError('api_url', 'is required');
  const apiUrl = baseUrl('api_url', input.apiUrl);
  const staticUrl = input.staticUrl === undefined ? null : baseUrl('static_url', input.staticUrl);
  const mode = (input.mode ?? 'TEST').toUpperCase() as LyraMode;
  if (!LYRA_MODES.includes(mode)) throw new ProviderAccountInputError('mode', 'must be TEST or PRODUCTION');
  if (input.secrets === undefined) throw new ProviderAccountInputError('secrets', 'are required');
  const secrets = parseSecrets(input.secrets);
  checkMode(mode, secrets);
  try {
    await checkLyraCredentials({ apiUrl, shopId, password: secrets.password });
  } catch (err) {
    // The message names the failure (bad credentials, host not reached), never the password.
    throw new ProviderCredentialsError(`Lyra credentials check failed, nothing stored: ${(err as Error).message}`);
  }
  const sealed = providerSecrets(deps.secretKeys).seal(JSON.stringify(secrets), tenantId);
  return deps.repos.providerAccounts.set(tenantId, {
    provider: 'lyra',
    shopId,
    apiUrl,
    staticUrl,
    mode,
    secretsSealed: sealed,
  });
}

/** Back to the built-in sandbox: no real payments. */
export async function setSandboxAccount(deps: Pick<ProviderAccountDeps, 'repos'>, tenantId: string) {
  return deps.repos.providerAccounts.set(tenantId, { provider: 'sandbox' });
}

/** A Stripe account as a user gives it: `secrets` is the JSON of the key and, maybe, the webhook secret. */
export interface StripeAccountInput {
  apiUrl: string | undefined;
  secrets: string | undefined;
}

/** Where Stripe sends a tenant's events: one address for every hotel (docs/stripe.md). */
export function stripeWebhookUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/ipn/stripe/`;
}

function parseStripeSecrets(text: string): { secret_key: string; webhook_secret?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProviderAccountInputError('secrets', 'must be a JSON object {"secret_key", "webhook_secret"?}');
  }
  const given = (parsed ?? {}) as Record<string, unknown>;
  const key = given.secret_key;
  if (typeof key !== 'string' || key.trim() === '') {
    throw new ProviderAccountInputError('secrets', '"secret_key" is required, a non-empty string');
  }
  if (!modeOfKey(key)) {
    throw new ProviderAccountInputError(
      'secrets',
      '"secret_key" must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_test_…, rk_live_…)',
    );
  }
  const webhook = given.webhook_secret;
  if (webhook === undefined || webhook === null) return { secret_key: key };
  if (typeof webhook !== 'string' || !isWebhookSecret(webhook)) {
    throw new ProviderAccountInputError('secrets', '"webhook_secret" must be the endpoint\'s signing secret (whsec_…)');
  }
  return { secret_key: key, webhook_secret: webhook };
}

/**
 * A tenant's own Stripe account: the key tried with Stripe (a list of one PaymentIntent), its
 * mode read from it (test or live), then, with no webhook secret given, payreq's webhook
 * endpoint created at Stripe (`PUBLIC_BASE_URL/ipn/stripe/`, the events payreq reads) and the
 * signing secret Stripe returns kept; the secrets sealed and stored last. Any failure stores
 * nothing (an endpoint created before a failure to store is left at Stripe, named in the error).
 */
export async function setStripeAccount(
  deps: ProviderAccountDeps & { publicBaseUrl: string },
  tenantId: string,
  input: StripeAccountInput,
): Promise<ProviderAccountRow> {
  const apiUrl = baseUrl('api_url', input.apiUrl ?? STRIPE_API_URL);
  if (input.secrets === undefined) throw new ProviderAccountInputError('secrets', 'are required');
  const given = parseStripeSecrets(input.secrets);
  const mode = modeOfKey(given.secret_key) as 'TEST' | 'PRODUCTION';
  try {
    await checkStripeKey({ apiUrl, secretKey: given.secret_key });
  } catch (err) {
    // The message names the failure (a wrong key, host not reached), never the key.
    throw new ProviderCredentialsError(`Stripe key check failed, nothing stored: ${(err as Error).message}`);
  }
  let webhookSecret = given.webhook_secret;
  let webhookEndpointId: string | null = null;
  if (!webhookSecret) {
    try {
      const endpoint = await createWebhookEndpoint({
        apiUrl,
        secretKey: given.secret_key,
        url: stripeWebhookUrl(deps.publicBaseUrl),
        events: STRIPE_WEBHOOK_EVENTS,
        idempotencyKey: `payreq-webhook-endpoint-${tenantId}-${randomUUID()}`,
      });
      webhookSecret = endpoint.secret;
      webhookEndpointId = endpoint.id;
    } catch (err) {
      throw new ProviderCredentialsError(
        `Stripe webhook endpoint not created, nothing stored: ${(err as Error).message}`,
      );
    }
  }
  const secrets: StripeSecrets = { secret_key: given.secret_key, webhook_secret: webhookSecret };
  const sealed = providerSecrets(deps.secretKeys).seal(JSON.stringify(secrets), tenantId);
  return deps.repos.providerAccounts.set(tenantId, {
    provider: 'stripe',
    apiUrl,
    mode,
    secretsSealed: sealed,
    webhookEndpointId,
  });
}
