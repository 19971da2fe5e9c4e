import { generateApiKey } from '../api/index.js';
import { type ApiKeySummary, PG, pgCode, type Repositories } from '../db/index.js';
import { CliError } from './cli-error.js';
import type { CommandContext, CommandSpec } from './command-context.js';
import * as check from './input-checks.js';

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

/**
 * Creates a key and returns it whole: the only moment the secret exists outside a hash. The
 * caller shows it once; nothing logs it.
 */
export async function createApiKey(
  repos: Repositories,
  k: { tenantId: string; label: string; expiresAt: Date | null },
): Promise<{ key: string; summary: ApiKeySummary }> {
  // Prefixes are random (57^8); a collision is rare enough that a few retries settle it.
  for (let attempt = 1; ; attempt++) {
    const generated = generateApiKey();
    try {
      const summary = await repos.apiKeys.insert({ ...k, prefix: generated.prefix, secretHash: generated.secretHash });
      return { key: generated.key, summary };
    } catch (err) {
      if (pgCode(err) !== PG.uniqueViolation || attempt >= 3) throw err;
    }
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

function refuseRevoked(key: ApiKeySummary, action: string): void {
  if (key.status === 'revoked') {
    throw new CliError(`API key ${key.prefix} is revoked; revocation is final, it cannot be ${action}`);
  }
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
    const { key, summary } = await createApiKey(ctx.repos, { tenantId: tenant.id, label, expiresAt });
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
    refuseRevoked(key, 'disabled');
    // The update itself refuses a key revoked since the read above.
    const updated = await ctx.repos.apiKeys.setStatus(key.prefix, 'disabled');
    if (!updated) refuseRevoked({ ...key, status: 'revoked' }, 'disabled');
    ctx.keyChanged?.(key.prefix);
    return {
      json: present(updated ?? key),
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
    refuseRevoked(key, 'enabled');
    const updated = (await ctx.repos.apiKeys.enable(key.prefix)) ?? (await ctx.repos.apiKeys.find(key.prefix));
    if (!updated || updated.status === 'revoked') refuseRevoked({ ...key, status: 'revoked' }, 'enabled');
    ctx.keyChanged?.(key.prefix);
    return {
      json: present(updated ?? key),
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
    const updated = await ctx.repos.apiKeys.setStatus(key.prefix, 'revoked');
    ctx.keyChanged?.(key.prefix);
    return {
      json: present(updated ?? key),
      text: `Revoked API key ${key.prefix} "${key.label}": it answers 403 from now on. Revocation is final.`,
    };
  },
};
