import type { Repositories } from '../db/index.ts';
import { isUuid } from '../domain/index.ts';
import { plural } from '../i18n/index.ts';
import { withSecretKey } from '../instance/index.ts';
import { keyRing, type SecretKeyRing } from '../secrets/index.ts';
import {
  createEndpoint,
  EVENT_TYPES,
  presentEndpoint,
  rotateEndpointSecret,
  WebhookInputError,
} from '../webhooks/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext, CommandSpec } from './command-context.ts';
import * as check from './input-checks.ts';

async function existingTenant(repos: Repositories, value: string | undefined) {
  const id = check.tenantId(value);
  const tenant = await repos.tenants.find(id);
  if (!tenant) throw new CliError(`no tenant with id ${id} (see \`payreq tenant list\`)`);
  return tenant;
}

/** The service's keys, which seal endpoint secrets: the running service's, or resolved as it does. */
async function secretKeys(ctx: CommandContext): Promise<SecretKeyRing> {
  if (ctx.app) return ctx.app.secretKeys;
  const key = ctx.config.secretKey ?? (await withSecretKey(ctx.config, ctx.repos)).secretKey;
  // Outside development without SECRET_KEY, a secret sealed here could not be opened by the service.
  if (!key) throw new CliError('SECRET_KEY is required to register a webhook outside development');
  return keyRing({ id: ctx.config.secretKeyId, key }, ctx.config.oldSecretKeys);
}

/** Where endpoints may point, from the configuration (NODE_ENV, WEBHOOKS_ALLOW_PRIVATE). */
const endpointRules = (ctx: CommandContext) => ({
  production: ctx.config.production,
  allowPrivate: ctx.config.webhooksAllowPrivate,
});

export const webhookCreate: CommandSpec = {
  name: 'webhook create',
  summary: "register a webhook endpoint for a tenant's events (its signing secret is shown once, here only)",
  usage: 'payreq webhook create --tenant ID --url URL [--events TYPE,...] [--json]',
  help: [
    '  --tenant ID        the tenant whose events are sent',
    '  --url URL          where to POST them (https:// in production; not a loopback, private or',
    '                     link-local address unless WEBHOOKS_ALLOW_PRIVATE=on, see docs/operations.md)',
    `  --events TYPES     comma-separated; default every type: ${EVENT_TYPES.join(', ')}`,
    'Each delivery carries Payreq-Signature: t=<unix>,v1=<hex HMAC-SHA-256 of "t.body"> with the secret.',
  ].join('\n'),
  options: { tenant: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const tenant = await existingTenant(ctx.repos, options.tenant as string | undefined);
    const url = check.text('url', options.url as string | undefined, 2000);
    const events = ((options.events as string | undefined) ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    try {
      const e = await createEndpoint(ctx.repos, await secretKeys(ctx), endpointRules(ctx), {
        tenantId: tenant.id,
        url,
        events,
      });
      return {
        json: { id: e.id, url: e.url, events: e.events, secret: e.secret, tenant_id: e.tenant_id, status: e.status },
        text: [
          `Registered webhook ${e.id} for tenant "${tenant.name}": ${e.url} (${e.events.length ? e.events.join(', ') : 'every event'})`,
          'Its signing secret, shown this once only (store it in the receiver now):',
          `  ${e.secret}`,
        ].join('\n'),
      };
    } catch (err) {
      if (err instanceof WebhookInputError) throw new CliError(err.message);
      throw err;
    }
  },
};

export const webhookList: CommandSpec = {
  name: 'webhook list',
  summary: "list a tenant's webhook endpoints (never their secrets)",
  usage: 'payreq webhook list --tenant ID [--json]',
  options: { tenant: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const tenant = await existingTenant(ctx.repos, options.tenant as string | undefined);
    const endpoints = (await ctx.repos.webhooks.listEndpoints(tenant.id)).map(presentEndpoint);
    const rows = endpoints.map((e) =>
      [
        e.id,
        e.status.padEnd(8),
        e.url,
        e.events.length ? e.events.join(',') : '(every event)',
        e.disabled_reason ?? (e.failing_since ? `failing since ${e.failing_since}` : ''),
      ]
        .join('  ')
        .trim(),
    );
    return {
      json: { tenant_id: tenant.id, endpoints },
      text: endpoints.length === 0 ? `No webhook endpoints for tenant "${tenant.name}".` : rows.join('\n'),
    };
  },
};

export const webhookDelete: CommandSpec = {
  name: 'webhook delete',
  summary: 'delete a webhook endpoint and its delivery log',
  usage: 'payreq webhook delete ID [--json]',
  options: {},
  positionals: ['ID'],
  needs: 'schema',
  async run(ctx, { positionals }) {
    const id = positionals[0] ?? '';
    if (!isUuid(id) || !(await ctx.repos.webhooks.deleteEndpoint(id.toLowerCase()))) {
      throw new CliError(`no webhook endpoint with id "${id}" (see \`payreq webhook list --tenant ID\`)`);
    }
    return { json: { id, deleted: true }, text: `Deleted webhook endpoint ${id}.` };
  },
};

export const webhookRedeliver: CommandSpec = {
  name: 'webhook redeliver',
  summary: 'send an event again to every enabled endpoint of its tenant that takes its type',
  usage: 'payreq webhook redeliver EVENT_ID [--json]',
  options: {},
  positionals: ['EVENT_ID'],
  needs: 'schema',
  async run(ctx, { positionals }) {
    const raw = positionals[0] ?? '';
    const eventId = /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
    const event = eventId === undefined ? undefined : await ctx.repos.events.find(eventId);
    if (!event || eventId === undefined) {
      throw new CliError(`no event with id "${raw}" (events are kept 90 days; see GET /api/events/)`);
    }
    const endpoints = await ctx.repos.webhooks.redeliver(eventId);
    return {
      json: { event_id: eventId, type: event.type, endpoints },
      text:
        endpoints.length === 0
          ? `Event ${eventId} (${event.type}): no enabled endpoint of its tenant takes it; nothing queued.`
          : `Event ${eventId} (${event.type}) queued again for ${plural('en', endpoints.length, { one: '# endpoint', other: '# endpoints' })}: ${endpoints.join(', ')}`,
    };
  },
};

export const webhookRotateSecret: CommandSpec = {
  name: 'webhook rotate-secret',
  summary: 'give an endpoint a new signing secret (shown once); the old one still signs for 24 hours',
  usage: 'payreq webhook rotate-secret ID [--json]',
  help: [
    "During the 24 hours, each delivery carries two v1= signatures, the new secret's first and the",
    "old one's last: install the new secret in the receiver within that time.",
  ].join('\n'),
  options: {},
  positionals: ['ID'],
  needs: 'schema',
  async run(ctx, { positionals }) {
    const id = positionals[0] ?? '';
    const e = isUuid(id) ? await rotateEndpointSecret(ctx.repos, await secretKeys(ctx), id.toLowerCase()) : undefined;
    if (!e) throw new CliError(`no webhook endpoint with id "${id}" (see \`payreq webhook list --tenant ID\`)`);
    return {
      json: { id: e.id, url: e.url, secret: e.secret, previous_secret_expires_at: e.previous_secret_expires_at },
      text: [
        `New signing secret for webhook ${e.id} (${e.url}), shown this once only:`,
        `  ${e.secret}`,
        `The old secret still signs beside it until ${e.previous_secret_expires_at}.`,
      ].join('\n'),
    };
  },
};
