import { apiKeys } from '../api-keys/index.ts';
import type { ApiKeySummary, Repositories } from '../db/index.ts';
import { AppError } from '../domain/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext, CommandSpec } from './command-context.ts';
import * as check from './input-checks.ts';

const PREFIX = /^[A-Za-z0-9]{8}$/;

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function present(k: ApiKeySummary): Record<string, unknown> {
  return {
    prefix: k.prefix,
    tenant_id: k.tenant_id,
    label: k.label,
    status: k.status,
    expires_at: iso(k.expires_at),
    last_used_at: iso(k.last_used_at),
    created_at: iso(k.created_at),
  };
}

export async function existingTenant(repos: Repositories, value: string | undefined) {
  const id = check.tenantId(value);
  const tenant = await repos.tenants.find(id);
  if (!tenant) throw new CliError(`no tenant with id ${id} (see \`payreq tenant list\`)`);
  return tenant;
}

/** The key service, with the running service's auth cache told of each change. */
const keysOf = (ctx: CommandContext) => apiKeys(ctx.repos, ctx.keyChanged);

/** The service's refusal in the CLI's words (same messages, one line). */
async function asCli<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError) throw new CliError(err.message);
    throw err;
  }
}

async function existingKey(ctx: CommandContext, value: string | undefined): Promise<ApiKeySummary> {
  const prefix = value ?? '';
  if (prefix.includes('.')) {
    throw new CliError("give the key's prefix (the 8 characters before the dot), not the full key");
  }
  const key = PREFIX.test(prefix) ? await ctx.repos.apiKeys.find(prefix) : undefined;
  if (!key) throw new CliError(`no API key with prefix "${prefix}" (see \`payreq key list --tenant ID\`)`);
  return key;
}

export const keyCreate: CommandSpec = {
  name: 'key create',
  summary: 'create an API key for a tenant (its secret is shown once, here only)',
  usage: 'payreq key create --tenant ID --label LABEL [--expires-at ISO] [--json]',
  help: [
    '  --tenant ID        the tenant the key belongs to',
    '  --label LABEL      what uses the key (e.g. "PMS"), 1 to 100 characters',
    '  --expires-at ISO   optional expiry: 2027-01-31 (midnight UTC) or 2027-01-31T18:00:00+01:00',
  ].join('\n'),
  options: { tenant: { type: 'string' }, label: { type: 'string' }, 'expires-at': { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const label = check.text('label', options.label as string | undefined, 100);
    const rawExpiry = options['expires-at'] as string | undefined;
    const expiresAt = rawExpiry === undefined ? null : check.futureInstant('expires-at', rawExpiry);
    const tenant = await existingTenant(ctx.repos, options.tenant as string | undefined);
    const { key, summary } = await keysOf(ctx).create({ tenantId: tenant.id, label, expiresAt });
    return {
      json: { ...present(summary), key },
      text: [
        `Created API key ${summary.prefix} "${summary.label}" for tenant "${tenant.name}" (${tenant.id}), expires: ${iso(summary.expires_at) ?? 'never'}`,
        'The key, shown this once only (store it now; it cannot be displayed again):',
        `  ${key}`,
        'Send it in the X-API-Key header.',
      ].join('\n'),
    };
  },
};

export const keyList: CommandSpec = {
  name: 'key list',
  summary: "list a tenant's API keys (prefixes and statuses, never secrets)",
  usage: 'payreq key list --tenant ID [--json]',
  options: { tenant: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const tenant = await existingTenant(ctx.repos, options.tenant as string | undefined);
    const keys = await ctx.repos.apiKeys.list(tenant.id);
    const rows = keys.map((k) =>
      [
        k.prefix,
        k.status.padEnd(8),
        (iso(k.expires_at) ?? 'never').padEnd(24),
        (iso(k.last_used_at) ?? 'never').padEnd(24),
        k.label,
      ].join('  '),
    );
    const header = ['PREFIX  ', 'STATUS  ', 'EXPIRES'.padEnd(24), 'LAST USED'.padEnd(24), 'LABEL'].join('  ');
    return {
      json: { tenant_id: tenant.id, keys: keys.map(present) },
      text: keys.length === 0 ? `No API keys for tenant "${tenant.name}".` : [header, ...rows].join('\n'),
    };
  },
};

export const keyDisable: CommandSpec = {
  name: 'key disable',
  summary: 'disable an API key (answers 401 until enabled again)',
  usage: 'payreq key disable PREFIX [--json]',
  options: {},
  positionals: ['PREFIX'],
  needs: 'schema',
  async run(ctx, { positionals }) {
    const key = await existingKey(ctx, positionals[0]);
    const updated = await asCli(() => keysOf(ctx).disable(key.prefix));
    return {
      json: present(updated),
      text: `Disabled API key ${key.prefix} "${key.label}": it answers 401 until \`payreq key enable ${key.prefix}\`.`,
    };
  },
};

export const keyEnable: CommandSpec = {
  name: 'key enable',
  summary: 'enable a disabled API key again',
  usage: 'payreq key enable PREFIX [--json]',
  options: {},
  positionals: ['PREFIX'],
  needs: 'schema',
  async run(ctx, { positionals }) {
    const key = await existingKey(ctx, positionals[0]);
    const updated = await asCli(() => keysOf(ctx).enable(key.prefix));
    return {
      json: present(updated),
      text: `API key ${key.prefix} "${key.label}" is active.`,
    };
  },
};

export const keyRevoke: CommandSpec = {
  name: 'key revoke',
  summary: 'revoke an API key for good (answers 403)',
  usage: 'payreq key revoke PREFIX [--json]',
  options: {},
  positionals: ['PREFIX'],
  needs: 'schema',
  async run(ctx, { positionals }) {
    const key = await existingKey(ctx, positionals[0]);
    const updated = await asCli(() => keysOf(ctx).revoke(key.prefix));
    return {
      json: present(updated),
      text: `Revoked API key ${key.prefix} "${key.label}": it answers 403 from now on. Revocation is final.`,
    };
  },
};
