import {
  type LyraField,
  ProviderAccountInputError,
  ProviderCredentialsError,
  presentProviderAccount,
  setLyraAccount,
  setSandboxAccount,
  setStripeAccount,
  stripeWebhookUrl,
} from '../provider-accounts/index.ts';
import { STRIPE_WEBHOOK_EVENTS } from '../providers/index.ts';
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
function asCliError(err: ProviderAccountInputError, provider: 'lyra' | 'stripe'): CliError {
  if (err.field === 'secrets' && err.message === 'are required') {
    return new CliError(`--secrets-stdin is required for --provider ${provider}`);
  }
  const source = err.field ? SOURCE[err.field] : '';
  if (err.message === 'is required') return new CliError(`${source} is required for --provider ${provider}`);
  return new CliError(`${source}${err.field === 'secrets' && err.message.startsWith('"') ? ':' : ''} ${err.message}`);
}

function present(
  ctx: CommandContext,
  tenantId: string,
  row: Parameters<typeof presentProviderAccount>[0],
): Record<string, unknown> {
  return { tenant_id: tenantId, ...presentProviderAccount(row, { publicBaseUrl: ctx.config.publicBaseUrl }) };
}

/** The options each provider takes, beside --tenant and --provider. */
const PROVIDER_OPTIONS: Record<'sandbox' | 'lyra' | 'stripe', readonly string[]> = {
  sandbox: [],
  lyra: ['shop-id', 'api-url', 'static-url', 'mode', 'secrets-stdin'],
  stripe: ['api-url', 'secrets-stdin'],
};

function refuseOthers(provider: 'sandbox' | 'lyra' | 'stripe', options: Record<string, unknown>): void {
  const foreign = PROVIDER_OPTIONS.lyra
    .filter((o) => !PROVIDER_OPTIONS[provider].includes(o))
    .filter((o) => options[o] !== undefined);
  if (foreign.length > 0) throw new CliError(`--provider ${provider} takes no --${foreign.join(', --')}`);
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
    'payreq tenant set-provider --tenant ID --provider stripe [--api-url URL] --secrets-stdin [--json]',
    'payreq tenant set-provider --tenant ID --provider sandbox [--json]',
  ].join('\n'),
  help: [
    "  --provider lyra|stripe|sandbox  lyra: the hotel's own Lyra/PayZen shop; stripe: its own Stripe account;",
    '                           sandbox: back to the test provider',
    '  --shop-id S              the shop id (Lyra back office: Settings > Shop > REST API keys)',
    "  --api-url URL            the brand's REST base, e.g. https://api.payzen.eu/api-payment/",
    '  --static-url URL         where the brand serves its JS card form, e.g. https://static.payzen.eu/static/',
    '  --mode TEST|PRODUCTION   which keys these are (default TEST)',
    '  --secrets-stdin          read the secrets as JSON from standard input: Lyra {"password", "public_key",',
    '                           "hmac_key"}; Stripe {"secret_key": "sk_…" or "rk_…", "webhook_secret"?: "whsec_…"}',
    "  (stripe) --api-url URL   Stripe's API base (default https://api.stripe.com); the mode follows the key",
    'The credentials are checked with the provider (Lyra: Charge/SDKTest; Stripe: a list of PaymentIntents) before',
    'anything is stored: a failure stores nothing. Stripe without a webhook_secret: payreq creates its webhook',
    'endpoint (PUBLIC_BASE_URL/ipn/stripe/) at Stripe and keeps the signing secret Stripe returns.',
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
      refuseOthers('sandbox', options);
      const row = await setSandboxAccount(ctx, tenant.id);
      return {
        json: present(ctx, tenant.id, row),
        text: `Tenant "${tenant.name}" now uses the sandbox (no real payments).`,
      };
    }
    if (provider === 'stripe') return setStripe(ctx, tenant, options, stdin);
    if (provider !== 'lyra') throw new CliError('--provider must be lyra, stripe or sandbox');
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
      if (err instanceof ProviderAccountInputError) throw asCliError(err, 'lyra');
      if (err instanceof ProviderCredentialsError) throw new CliError(err.message);
      throw err;
    }
    const { shop_id: shopId, mode } = row;
    return {
      json: present(ctx, tenant.id, row),
      text: [
        `Tenant "${tenant.name}" now takes payments with Lyra shop ${shopId} (${mode}); credentials checked.`,
        `Declare the notification URL in the Lyra back office: ${ctx.config.publicBaseUrl}/ipn/lyra/`,
      ].join('\n'),
    };
  },
};

/** `--provider stripe`: the key checked, the webhook endpoint made unless its secret is given, then stored. */
async function setStripe(
  ctx: CommandContext,
  tenant: { id: string; name: string },
  options: Record<string, unknown>,
  stdin: string | undefined,
) {
  refuseOthers('stripe', options);
  let row: Awaited<ReturnType<typeof setStripeAccount>>;
  try {
    row = await setStripeAccount(
      { repos: ctx.repos, secretKeys: await secretKeysOf(ctx), publicBaseUrl: ctx.config.publicBaseUrl },
      tenant.id,
      {
        apiUrl: options['api-url'] as string | undefined,
        secrets: options['secrets-stdin'] === true ? (stdin ?? '') : undefined,
      },
    );
  } catch (err) {
    if (err instanceof ProviderAccountInputError) throw asCliError(err, 'stripe');
    if (err instanceof ProviderCredentialsError) throw new CliError(err.message);
    throw err;
  }
  const url = stripeWebhookUrl(ctx.config.publicBaseUrl);
  return {
    json: present(ctx, tenant.id, row),
    text: [
      `Tenant "${tenant.name}" now takes payments with its Stripe account (${row.mode}); key checked.`,
      row.webhook_endpoint_id
        ? `Webhook endpoint ${row.webhook_endpoint_id} created at Stripe for ${url}; its signing secret is kept.`
        : `Its webhook endpoint must send these events to ${url}: ${STRIPE_WEBHOOK_EVENTS.join(', ')}`,
    ].join('\n'),
  };
}
