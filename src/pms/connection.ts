import type { Database } from '../db/index.ts';
import { type SecretKeyRing, secretBox } from '../secrets/index.ts';
import { type ApaleoEndpoint, ApaleoError, apaleoClient, describeAnswer } from './apaleo-client.ts';
import { readPropertyName } from './apaleo-wire.ts';
import { type ConnectionRow, type PmsRepository, pmsRepository } from './pms-repository.ts';
import { processTokens, tokenCache } from './token-cache.ts';

export const APALEO_API_URL = 'https://api.apaleo.com';
export const APALEO_IDENTITY_URL = 'https://identity.apaleo.com';

/** The fields of a connection, as each delivery names them to its user (option, form label). */
export type PmsField = 'pms' | 'property_id' | 'api_url' | 'identity_url' | 'secrets';

/** Input the user can correct; `field` says which, the message what is wrong with it. Nothing stored. */
export class PmsInputError extends Error {
  readonly field: PmsField;
  constructor(field: PmsField, message: string) {
    super(message);
    this.field = field;
    this.name = 'PmsInputError';
  }
}

/** Apaleo refused the client or the property, or was not reached: nothing stored. */
export class PmsConnectError extends Error {
  readonly reason: 'credentials' | 'property' | 'unreachable';
  constructor(reason: PmsConnectError['reason'], message: string) {
    super(message);
    this.reason = reason;
    this.name = 'PmsConnectError';
  }
}

export interface PmsDeps {
  db: Database;
  secretKeys: SecretKeyRing;
}

export interface ApaleoConnectInput {
  propertyId: string | undefined;
  apiUrl?: string | undefined;
  identityUrl?: string | undefined;
  /** The JSON `{"client_id", "client_secret"}` as given (standard input, the form). */
  secrets: string | undefined;
}

/** The connections' client secrets have their own key: no other sealed value's box opens them. */
export const pmsSecrets = (keys: SecretKeyRing) => secretBox(keys, 'pms-connection');

interface ClientSecrets {
  client_id: string;
  client_secret: string;
}

function parseSecrets(text: string): ClientSecrets {
  let given: unknown;
  try {
    given = JSON.parse(text);
  } catch {
    throw new PmsInputError('secrets', 'must be a JSON object {"client_id", "client_secret"}');
  }
  const o = (given ?? {}) as Record<string, unknown>;
  for (const field of ['client_id', 'client_secret'] as const) {
    const v = o[field];
    if (typeof v !== 'string' || v.trim() === '' || v.length > 500) {
      throw new PmsInputError('secrets', `"${field}" is required, a non-empty string`);
    }
  }
  return { client_id: (o.client_id as string).trim(), client_secret: o.client_secret as string };
}

function baseUrl(field: PmsField, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PmsInputError(field, `must be an absolute URL (got "${value.slice(0, 100)}")`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search) {
    throw new PmsInputError(field, 'must be an http(s) URL without user, password or query');
  }
  return url.href.replace(/\/+$/, '');
}

/** The endpoint a stored connection calls, its secret opened. */
export function endpointOf(keys: SecretKeyRing, c: ConnectionRow): ApaleoEndpoint {
  const secrets = JSON.parse(pmsSecrets(keys).open(c.secrets_sealed, c.tenant_id)) as ClientSecrets;
  return {
    tenantId: c.tenant_id,
    version: c.version,
    apiUrl: c.api_url,
    identityUrl: c.identity_url,
    clientId: secrets.client_id,
    clientSecret: secrets.client_secret,
  };
}

/**
 * Apaleo's subscriptions live on their own host (webhook.apaleo.com beside api.apaleo.com, as
 * the n8n node's environments list them): the API's host with `api.` made `webhook.`; any other
 * API address (a test's stand-in) serves them itself.
 */
export function webhookBaseOf(apiUrl: string): string {
  const url = new URL(apiUrl);
  if (url.hostname.startsWith('api.')) url.hostname = `webhook.${url.hostname.slice(4)}`;
  return url.href.replace(/\/+$/, '');
}

/**
 * Connects a tenant to its Apaleo property: every field checked, a token asked with the client
 * id and secret, the property read with it, and only then the secret sealed and stored. Any
 * failure stores nothing; a refused secret (any 4xx of the identity server) or an unknown
 * property says so.
 */
export async function connectApaleo(
  deps: PmsDeps,
  tenantId: string,
  input: ApaleoConnectInput,
): Promise<ConnectionRow> {
  const propertyId = input.propertyId?.trim() ?? '';
  if (propertyId === '') throw new PmsInputError('property_id', 'is required');
  if (propertyId.length > 100 || !/^[A-Za-z0-9._-]+$/.test(propertyId)) {
    throw new PmsInputError('property_id', "must be Apaleo's property id (letters, digits, '-', '_', '.')");
  }
  const apiUrl = baseUrl('api_url', input.apiUrl?.trim() || APALEO_API_URL);
  const identityUrl = baseUrl('identity_url', input.identityUrl?.trim() || APALEO_IDENTITY_URL);
  if (input.secrets === undefined) throw new PmsInputError('secrets', 'are required');
  const secrets = parseSecrets(input.secrets);
  // A token of its own, never the cached one of a former connection.
  const client = apaleoClient(
    {
      tenantId,
      version: 'check',
      apiUrl,
      identityUrl,
      clientId: secrets.client_id,
      clientSecret: secrets.client_secret,
    },
    { tokens: tokenCache() },
  );
  let propertyName: string | null;
  try {
    await client.token();
    const r = await client.call('GET', `/inventory/v1/properties/${encodeURIComponent(propertyId)}`);
    if (r.status === 404) {
      throw new PmsConnectError('property', `Apaleo knows no property "${propertyId}" for this client`);
    }
    if (r.status === 401 || r.status === 403) {
      throw new PmsConnectError(
        'credentials',
        `Apaleo refused to show property "${propertyId}" (${describeAnswer(r)})`,
      );
    }
    if (r.status !== 200)
      throw new PmsConnectError('unreachable', `Apaleo did not show the property (${describeAnswer(r)})`);
    propertyName = readPropertyName(r.body);
  } catch (err) {
    if (!(err instanceof ApaleoError)) throw err;
    throw new PmsConnectError(err.failure.kind === 'credentials' ? 'credentials' : 'unreachable', err.message);
  }
  const sealed = pmsSecrets(deps.secretKeys).seal(JSON.stringify(secrets), tenantId);
  const repo = pmsRepository(deps.db);
  const was = await repo.connection(tenantId);
  const row = await repo.connect(tenantId, {
    propertyId,
    propertyName,
    apiUrl,
    identityUrl,
    secretsSealed: sealed,
  });
  // Another property: the reservation rule did not follow, so neither may the former
  // property's subscription, which would go on delivering to an endpoint that answers 404.
  if (was?.webhook_subscription_id && row.webhook_subscription_id !== was.webhook_subscription_id) {
    await removeSubscription(deps, was);
  }
  processTokens.forget(`${tenantId}:`);
  return row;
}

/**
 * Removes a former connection's webhook subscription at Apaleo, with that connection's own
 * credentials, as well as it can: a failure leaves deliveries that are refused (404).
 */
async function removeSubscription(deps: PmsDeps, was: ConnectionRow): Promise<void> {
  if (!was.webhook_subscription_id) return;
  try {
    const client = apaleoClient(endpointOf(deps.secretKeys, was), { tokens: tokenCache() });
    await client.call('DELETE', `/v1/subscriptions/${encodeURIComponent(was.webhook_subscription_id)}`, {
      baseUrl: webhookBaseOf(was.api_url),
    });
  } catch {
    // The subscription's endpoint answers 404 to whatever still comes.
  }
}

/**
 * Disconnects the tenant: nothing more is posted (postings still pending end as failed, "not
 * connected", and can be retried once connected again). Apaleo's webhook subscription, if any,
 * is removed, as well as it can be: a failure there leaves deliveries that are refused (404).
 */
export async function disconnectPms(deps: PmsDeps, tenantId: string): Promise<boolean> {
  const repo: PmsRepository = pmsRepository(deps.db);
  const was = await repo.disconnect(tenantId);
  if (!was) return false;
  processTokens.forget(`${tenantId}:`);
  await removeSubscription(deps, was);
  return true;
}
