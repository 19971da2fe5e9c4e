import type { ProviderAccountRow } from '../db/index.js';
import { checkLyraCredentials, type LyraSecrets } from '../providers/index.js';
import type { SecretKeyRing } from '../secrets/index.js';
import { providerSecrets, resolveSecretKeys } from '../secrets/index.js';
import { CliError } from './cli-error.js';
import type { CommandContext, CommandSpec } from './command-context.js';
import { existingTenant } from './key-commands.js';

const MODES = ['TEST', 'PRODUCTION'] as const;
type Mode = (typeof MODES)[number];

/**
 * The account as anyone may see it: never a secret, not even sealed. `configured`: the tenant
 * takes payments with a real provider account (the sandbox is none).
 */
export function presentProviderAccount(row: ProviderAccountRow | undefined): Record<string, unknown> {
  if (!row) return { provider: 'none', configured: false };
  return {
    provider: row.provider,
    configured: row.provider === 'lyra',
    ...(row.provider === 'lyra'
      ? { shop_id: row.shop_id, api_url: row.api_url, static_url: row.static_url, mode: row.mode }
      : {}),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

function present(tenantId: string, row: ProviderAccountRow | undefined): Record<string, unknown> {
  return { tenant_id: tenantId, ...presentProviderAccount(row) };
}

/** One line for `payreq tenant show`. */
export function describeProviderAccount(row: ProviderAccountRow | undefined): string {
  if (row?.provider === 'lyra') {
    return `lyra  shop ${row.shop_id}  ${row.mode}  ${row.api_url}${row.static_url ? `  static ${row.static_url}` : ''}`;
  }
  return row
    ? 'sandbox (no real payments)'
    : 'none: the sandbox where the instance allows it (PAYMENT_PROVIDER=sandbox), otherwise no payments';
}

function httpsUrl(option: string, value: string | undefined): string {
  if (!value) throw new CliError(`--${option} is required for --provider lyra`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`--${option} must be an absolute URL (got "${value}")`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CliError(`--${option} must be an http(s) URL`);
  // The adapter joins service paths to it: a base always ends with a slash.
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

function readSecrets(stdin: string | undefined): LyraSecrets {
  if (stdin === undefined) throw new CliError('--secrets-stdin is required for --provider lyra');
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdin);
  } catch {
    throw new CliError('standard input must be a JSON object {"password", "public_key", "hmac_key"}');
  }
  const given = (parsed ?? {}) as Record<string, unknown>;
  for (const field of ['password', 'public_key', 'hmac_key'] as const) {
    const v = given[field];
    if (typeof v !== 'string' || v.trim() === '') {
      throw new CliError(`standard input: "${field}" is required, a non-empty string`);
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
function checkMode(mode: Mode, secrets: LyraSecrets): void {
  const testKeys = secrets.password.startsWith('testpassword_') || secrets.public_key.includes(':testpublickey_');
  const prodKeys = secrets.password.startsWith('prodpassword_') || secrets.public_key.includes(':publickey_');
  if ((mode === 'TEST' && prodKeys) || (mode === 'PRODUCTION' && testKeys)) {
    throw new CliError(
      `--mode ${mode} does not match the keys given (they are ${testKeys ? 'TEST' : 'PRODUCTION'} keys)`,
    );
  }
}

async function secretKeysOf(ctx: CommandContext): Promise<SecretKeyRing> {
  return ctx.app?.secretKeys ?? (await resolveSecretKeys(ctx.config, ctx.repos));
}

export const tenantSetProvider: CommandSpec = {
  name: 'tenant set-provider',
  summary: 'set the payment provider account a tenant takes payments with',
  usage: [
    'payreq tenant set-provider --tenant ID --provider lyra --shop-id S --api-url URL [--static-url URL]',
    '                           [--mode TEST|PRODUCTION] --secrets-stdin [--json]',
    'payreq tenant set-provider --tenant ID --provider sandbox [--json]',
  ].join('\n'),
  help: [
    "  --provider lyra|sandbox  lyra: the hotel's own Lyra/PayZen shop; sandbox: back to the test provider",
    '  --shop-id S              the shop id (Lyra back office: Settings > Shop > REST API keys)',
    "  --api-url URL            the brand's REST base, e.g. https://api.payzen.eu/api-payment/",
    '  --static-url URL         where the brand serves its JS card form, e.g. https://static.payzen.eu/static/',
    '  --mode TEST|PRODUCTION   which keys these are (default TEST)',
    '  --secrets-stdin          read {"password", "public_key", "hmac_key"} as JSON from standard input',
    'The credentials are checked with Lyra (Charge/SDKTest) before anything is stored: a failure stores nothing.',
    '`payreq tenant show --tenant ID` shows the account (never its secrets).',
  ].join('\n'),
  options: {
    tenant: { type: 'string' },
    provider: { type: 'string' },
    'shop-id': { type: 'string' },
    'api-url': { type: 'string' },
    'static-url': { type: 'string' },
    mode: { type: 'string' },
    'secrets-stdin': { type: 'boolean' },
  },
  stdin: 'secrets-stdin',
  needs: 'schema',
  async run(ctx, { options, stdin }) {
    const tenant = await existingTenant(ctx.repos, options.tenant as string | undefined);
    const provider = options.provider;
    if (provider === 'sandbox') {
      const lyraOnly = ['shop-id', 'api-url', 'static-url', 'mode', 'secrets-stdin'].filter(
        (o) => options[o] !== undefined,
      );
      if (lyraOnly.length > 0) throw new CliError(`--provider sandbox takes no --${lyraOnly.join(', --')}`);
      const row = await ctx.repos.providerAccounts.set(tenant.id, { provider: 'sandbox' });
      return {
        json: present(tenant.id, row),
        text: `Tenant "${tenant.name}" now uses the sandbox (no real payments).`,
      };
    }
    if (provider !== 'lyra') throw new CliError('--provider must be lyra or sandbox');
    const shopId = (options['shop-id'] as string | undefined)?.trim();
    if (!shopId) throw new CliError('--shop-id is required for --provider lyra');
    const apiUrl = httpsUrl('api-url', options['api-url'] as string | undefined);
    const staticUrl =
      options['static-url'] === undefined ? null : httpsUrl('static-url', options['static-url'] as string);
    const mode = ((options.mode as string | undefined) ?? 'TEST').toUpperCase() as Mode;
    if (!MODES.includes(mode)) throw new CliError('--mode must be TEST or PRODUCTION');
    if (options['secrets-stdin'] !== true) throw new CliError('--secrets-stdin is required for --provider lyra');
    const secrets = readSecrets(stdin);
    checkMode(mode, secrets);
    try {
      await checkLyraCredentials({ apiUrl, shopId, password: secrets.password });
    } catch (err) {
      // The message names the failure (bad credentials, host not reached), never the password.
      throw new CliError(`Lyra credentials check failed, nothing stored: ${(err as Error).message}`);
    }
    const sealed = providerSecrets(await secretKeysOf(ctx)).seal(JSON.stringify(secrets), tenant.id);
    const row = await ctx.repos.providerAccounts.set(tenant.id, {
      provider: 'lyra',
      shopId,
      apiUrl,
      staticUrl,
      mode,
      secretsSealed: sealed,
    });
    return {
      json: present(tenant.id, row),
      text: [
        `Tenant "${tenant.name}" now takes payments with Lyra shop ${shopId} (${mode}); credentials checked.`,
        `Declare the notification URL in the Lyra back office: ${ctx.config.publicBaseUrl}/ipn/lyra/`,
      ].join('\n'),
    };
  },
};
