import type { ProviderAccountRow, Repositories } from '../db/index.ts';
import { checkLyraCredentials, type LyraSecrets } from '../providers/index.ts';
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

/** Lyra refused the credentials or could not be reached: nothing was stored. */
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
