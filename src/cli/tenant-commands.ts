import type { Tenant } from '../db/index.js';
import type { CommandSpec } from './command-context.js';
import * as check from './input-checks.js';

const DEFAULT_TIMEZONE = 'Europe/Paris';

function present(t: Tenant): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    confirmation_email: t.confirmation_email,
    timezone: t.timezone,
    create_rate_limit: t.create_rate_limit,
    hold_days: t.hold_days,
    link_lifetime_days: t.link_lifetime_days,
    created_at: new Date(t.created_at).toISOString(),
  };
}

export const tenantCreate: CommandSpec = {
  name: 'tenant create',
  summary: 'create a tenant (one hotel)',
  usage: 'payreq tenant create --name NAME [--confirmation-email] [--timezone ZONE] [--json]',
  help: [
    '  --name NAME             the establishment, 1 to 200 characters',
    '  --confirmation-email    e-mail the guest the payment link (tenant setting confirmation_email)',
    `  --timezone ZONE         IANA time zone of the hotel (default ${DEFAULT_TIMEZONE}); dates such as checkin are read in it`,
  ].join('\n'),
  options: { name: { type: 'string' }, 'confirmation-email': { type: 'boolean' }, timezone: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const name = check.text('name', options.name as string | undefined, 200);
    const timezone = check.timezone((options.timezone as string | undefined) ?? DEFAULT_TIMEZONE);
    const tenant = await ctx.repos.tenants.create({
      name,
      timezone,
      confirmationEmail: options['confirmation-email'] === true,
    });
    return {
      json: present(tenant),
      text: [
        `Created tenant "${tenant.name}"`,
        `  id:                  ${tenant.id}`,
        `  timezone:            ${tenant.timezone}`,
        `  confirmation e-mail: ${tenant.confirmation_email ? 'on' : 'off'}`,
        `Next: payreq key create --tenant ${tenant.id} --label "PMS"`,
      ].join('\n'),
    };
  },
};

export const tenantList: CommandSpec = {
  name: 'tenant list',
  summary: 'list the tenants',
  usage: 'payreq tenant list [--json]',
  options: {},
  needs: 'schema',
  async run(ctx) {
    const tenants = await ctx.repos.tenants.list();
    const lines = tenants.map((t) => `${t.id}  ${t.timezone.padEnd(20)}  ${t.name}`);
    return {
      json: { tenants: tenants.map(present) },
      text: tenants.length === 0 ? 'No tenants yet: payreq tenant create --name NAME' : lines.join('\n'),
    };
  },
};
