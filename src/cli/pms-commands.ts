import {
  connectApaleo,
  disconnectPms,
  PmsConnectError,
  type PmsField,
  PmsInputError,
  pmsRepository,
  presentPms,
  presentPosting,
} from '../pms/index.ts';
import { resolveSecretKeys, type SecretKeyRing } from '../secrets/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext, CommandSpec } from './command-context.ts';
import { existingTenant } from './key-commands.ts';

/** Where each field of the connection comes from on the command line. */
const SOURCE: Record<PmsField, string> = {
  pms: '--pms',
  property_id: '--property-id',
  api_url: '--api-url',
  identity_url: '--identity-url',
  secrets: 'standard input',
};

async function secretKeysOf(ctx: CommandContext): Promise<SecretKeyRing> {
  return ctx.app?.secretKeys ?? (await resolveSecretKeys(ctx.config, ctx.repos));
}

/** The tenant's connection as `tenant show` and `set-pms` print it (null: none). */
export async function pmsOf(ctx: CommandContext, tenantId: string): Promise<Record<string, unknown> | null> {
  const repo = pmsRepository(ctx.db);
  const c = await repo.connection(tenantId);
  return presentPms(c, c ? await repo.lastSettled(tenantId) : undefined);
}

const APALEO_ONLY = ['property-id', 'api-url', 'identity-url', 'secrets-stdin'] as const;

export const tenantSetPms: CommandSpec = {
  name: 'tenant set-pms',
  summary: "connect a tenant to its hotel's own system (Apaleo), or disconnect it",
  usage: [
    'payreq tenant set-pms --tenant ID --pms apaleo --property-id PROPERTY [--api-url URL] [--identity-url URL]',
    '                      --secrets-stdin [--json] < secrets.json   # {"client_id", "client_secret"}',
    'payreq tenant set-pms --tenant ID --pms none [--json]',
  ].join('\n'),
  help: [
    "  --pms apaleo|none      apaleo: post every payment and refund on the reservation's Apaleo folio; none: stop",
    '  --property-id P        the Apaleo property (its id, e.g. MUC)',
    '  --api-url URL          default https://api.apaleo.com',
    '  --identity-url URL     default https://identity.apaleo.com',
    '  --secrets-stdin        read the custom app\'s {"client_id", "client_secret"} as JSON from standard input',
    'payreq asks Apaleo for a token with them and reads the property before anything is stored: a refused secret',
    'or an unknown property stores nothing. The secret is stored sealed and never shown (docs/apaleo.md).',
  ].join('\n'),
  options: {
    tenant: { type: 'string' },
    pms: { type: 'string' },
    'property-id': { type: 'string' },
    'api-url': { type: 'string' },
    'identity-url': { type: 'string' },
    'secrets-stdin': { type: 'boolean' },
  },
  stdin: 'secrets-stdin',
  needs: 'schema',
  async run(ctx, { options, stdin }) {
    const tenant = await existingTenant(ctx.repos, options.tenant as string | undefined);
    const deps = { db: ctx.db, secretKeys: await secretKeysOf(ctx) };
    if (options.pms === 'none') {
      const given = APALEO_ONLY.filter((o) => options[o] !== undefined);
      if (given.length > 0) throw new CliError(`--pms none takes no --${given.join(', --')}`);
      const was = await disconnectPms(deps, tenant.id);
      return {
        json: { tenant_id: tenant.id, pms: null },
        text: was
          ? `Tenant "${tenant.name}" is no longer connected to Apaleo.`
          : `Tenant "${tenant.name}" was not connected.`,
      };
    }
    if (options.pms !== 'apaleo') throw new CliError('--pms must be apaleo or none');
    if (options['secrets-stdin'] !== true) throw new CliError('--secrets-stdin is required for --pms apaleo');
    try {
      const row = await connectApaleo(deps, tenant.id, {
        propertyId: options['property-id'] as string | undefined,
        apiUrl: options['api-url'] as string | undefined,
        identityUrl: options['identity-url'] as string | undefined,
        secrets: stdin ?? '',
      });
      return {
        json: { tenant_id: tenant.id, pms: await pmsOf(ctx, tenant.id) },
        text: `Tenant "${tenant.name}" is connected to Apaleo property ${row.property_id}${row.property_name ? ` (${row.property_name})` : ''}: payments and refunds are posted on its reservations' folios.`,
      };
    } catch (err) {
      if (err instanceof PmsInputError) {
        throw new CliError(
          err.message === 'is required'
            ? `${SOURCE[err.field]} is required for --pms apaleo`
            : `${SOURCE[err.field]} ${err.message}`,
        );
      }
      if (err instanceof PmsConnectError) throw new CliError(`${err.message}; nothing stored`);
      throw err;
    }
  },
};

export const pmsPostings: CommandSpec = {
  name: 'pms postings',
  summary: "the tenant's postings on its Apaleo folios, newest first",
  usage: 'payreq pms postings --tenant ID [--failed] [--json]',
  help: [
    "  --failed   only those Apaleo refused for good (retry them from the request's page once fixed,",
    '             or with `payreq pms retry`)',
    '{"postings": [{"request", "reference", "operation", "kind": "payment|refund", "amount", "currency",',
    '  "state": "pending|posted|failed", "reason", "apaleo_id", "posted_at"}]}',
  ].join('\n'),
  options: { tenant: { type: 'string' }, failed: { type: 'boolean' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const tenant = await existingTenant(ctx.repos, options.tenant as string | undefined);
    const rows = await pmsRepository(ctx.db).list(tenant.id, { failed: options.failed === true });
    const postings = rows.map(presentPosting);
    return {
      json: { postings },
      text:
        postings.length === 0
          ? 'No postings.'
          : rows
              .map(
                (p) =>
                  `${p.reference}  ${p.kind}  ${(p.amount / 100).toFixed(2)} ${p.currency}  ${p.state}${p.apaleo_id ? `  ${p.apaleo_id}` : ''}${p.reason && p.state !== 'posted' ? `  ${p.reason}` : ''}`,
              )
              .join('\n'),
    };
  },
};

export const pmsRetry: CommandSpec = {
  name: 'pms retry',
  summary: 'post again a posting Apaleo refused for good, once the cause is fixed',
  usage: 'payreq pms retry --tenant ID --operation LEDGER_ID [--json]',
  help: '  --operation   the posting\'s "operation" as `payreq pms postings` prints it',
  options: { tenant: { type: 'string' }, operation: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const tenant = await existingTenant(ctx.repos, options.tenant as string | undefined);
    const operation = String(options.operation ?? '');
    if (!/^\d{1,18}$/.test(operation)) throw new CliError("--operation must be a posting's operation (a number)");
    const found = await ctx.db.query<{ id: string }>(
      'SELECT id::text FROM pms_postings WHERE tenant_id = $1 AND ledger_id = $2::bigint',
      [tenant.id, operation],
    );
    const id = found.rows[0]?.id;
    const row = id ? await pmsRepository(ctx.db).retry(tenant.id, id) : undefined;
    if (!row) throw new CliError(`no failed posting of operation ${operation} for this tenant`);
    return { json: { posting: presentPosting(row) }, text: `Posting of ${row.reference} queued again.` };
  },
};
