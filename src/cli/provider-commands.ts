import {
  type LyraField,
  ProviderAccountInputError,
  ProviderCredentialsError,
  presentProviderAccount,
  setLyraAccount,
  setSandboxAccount,
} from '../provider-accounts/index.ts';
import type { SecretKeyRing } from '../secrets/index.ts';
import { resolveSecretKeys } from '../secrets/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext, CommandSpec } from './command-context.ts';
import { existingTenant } from './key-commands.ts';

/** Where each field of the account comes from on the command line. */
const SOURCE: Record<LyraField, string> = {
  shop_id: '--shop-id',
  api_url: '--api-url',
  static_url: '--static-url',
  mode: '--mode',
  secrets: 'standard input',
};

/** The room's input error, in the command line's words. */
function asCliError(err: ProviderAccountInputError): CliError {
  if (err.field === 'secrets' && err.message === 'are required') {
    return new CliError('--secrets-stdin is required for --provider lyra');
  }
  const source = err.field ? SOURCE[err.field] : '';
  if (err.message === 'is required') return new CliError(`${source} is required for --provider lyra`);
  return new CliError(`${source}${err.field === 'secrets' && err.message.startsWith('"') ? ':' : ''} ${err.message}`);
}

function present(tenantId: string, row: Parameters<typeof presentProviderAccount>[0]): Record<string, unknown> {
  return { tenant_id: tenantId, ...presentProviderAccount(row) };
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
      const row = await setSandboxAccount(ctx, tenant.id);
      return {
        json: present(tenant.id, row),
        text: `Tenant "${tenant.name}" now uses the sandbox (no real payments).`,
      };
    }
    if (provider !== 'lyra') throw new CliError('--provider must be lyra or sandbox');
    let row: Awaited<ReturnType<typeof setLyraAccount>>;
    try {
      row = await setLyraAccount({ repos: ctx.repos, secretKeys: await secretKeysOf(ctx) }, tenant.id, {
        shopId: options['shop-id'] as string | undefined,
        apiUrl: options['api-url'] as string | undefined,
        staticUrl: options['static-url'] as string | undefined,
        mode: options.mode as string | undefined,
        secrets: options['secrets-stdin'] === true ? (stdin ?? '') : undefined,
      });
    } catch (err) {
      if (err instanceof ProviderAccountInputError) throw asCliError(err);
      if (err instanceof ProviderCredentialsError) throw new CliError(err.message);
      throw err;
    }
    const { shop_id: shopId, mode } = row;
    return {
      json: present(tenant.id, row),
      text: [
        `Tenant "${tenant.name}" now takes payments with Lyra shop ${shopId} (${mode}); credentials checked.`,
        `Declare the notification URL in the Lyra back office: ${ctx.config.publicBaseUrl}/ipn/lyra/`,
      ].join('\n'),
    };
  },
};
