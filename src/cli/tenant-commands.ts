import type { Tenant } from '../db/index.ts';
import { AppError } from '../domain/index.ts';
import { describeProviderAccount, presentProviderAccount } from '../provider-accounts/index.ts';
import {
  MAX_LOGO_BYTES,
  presentTenant,
  SETTING_FIELDS,
  type SettingField,
  setTenantLogo,
  updateTenantSettings,
} from '../tenants/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext, CommandSpec, OptionSpec } from './command-context.ts';
import * as check from './input-checks.ts';
import { pmsOf } from './pms-commands.ts';

const DEFAULT_TIMEZONE = 'Europe/Paris';

const present = (t: Tenant) => presentTenant(t);

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

// Node 20's parseArgs has no negated flags: a boolean setting declares its `--no-` twin itself.
const noOption = (f: SettingField) => `no-${f.option}`;

const UPDATE_OPTIONS: Record<string, OptionSpec> = {
  tenant: { type: 'string' },
  ...Object.fromEntries(
    SETTING_FIELDS.flatMap((f): [string, OptionSpec][] =>
      f.kind === 'boolean' && !f.valueOption
        ? [
            [f.option, { type: 'boolean' }],
            [noOption(f), { type: 'boolean' }],
          ]
        : [[f.option, { type: 'string' }]],
    ),
  ),
};

function usageOf(f: SettingField): string {
  if (f.kind === 'boolean') return f.valueOption ? `[--${f.option} true|false]` : `[--${f.option}|--${noOption(f)}]`;
  const WORDS: Record<string, string> = {
    integer: 'N',
    timezone: 'ZONE',
    email: 'EMAIL',
    url: 'URL',
    phone: 'PHONE',
    colour: 'COLOUR',
    language: 'en|fr|de',
  };
  const word = WORDS[f.kind] ?? 'TEXT';
  return `[--${f.option} ${word}]`;
}

/** Options to raw setting values keyed by setting name; an option not given stays undefined. */
function rawSettings(options: Readonly<Record<string, string | boolean | string[] | undefined>>) {
  const raw: Record<string, string | boolean | undefined> = {};
  for (const f of SETTING_FIELDS) {
    if (f.kind === 'boolean' && !f.valueOption) {
      const on = options[f.option] === true;
      const off = options[noOption(f)] === true;
      if (on && off) throw new CliError(`give --${f.option} or --${noOption(f)}, not both`);
      raw[f.name] = on ? true : off ? false : undefined;
    } else {
      raw[f.name] = options[f.option] as string | undefined;
    }
  }
  return raw;
}

/** The service's validation answer in the CLI's words: the option, then what is wrong. */
function asCliError(err: unknown): unknown {
  if (!(err instanceof AppError)) return err;
  if (err.code === 'validation_failed') {
    const details = (err.extra.details ?? []) as { field: string; message: string }[];
    const option = (name: string) =>
      name === 'logo' ? 'file' : (SETTING_FIELDS.find((f) => f.name === name)?.option ?? name);
    return new CliError(details.map((d) => `--${option(d.field)} ${d.message}`).join('; '));
  }
  if (err.code === 'tenant_not_found') return new CliError(`${err.message} (see \`payreq tenant list\`)`);
  return err;
}

async function shownTenant(ctx: CommandContext, value: string | undefined): Promise<Tenant> {
  const id = check.tenantId(value);
  const tenant = await ctx.repos.tenants.find(id);
  if (!tenant) throw new CliError(`no tenant with id ${id} (see \`payreq tenant list\`)`);
  return tenant;
}

function describe(t: Tenant): string {
  const width = Math.max(...SETTING_FIELDS.map((f) => f.name.length)) + 2;
  const shown = presentTenant(t);
  return [
    `${'id'.padEnd(width)}${t.id}`,
    ...SETTING_FIELDS.map((f) => {
      const v = shown[f.name];
      const text = f.kind === 'boolean' ? (v ? 'on' : 'off') : String(v).replaceAll('\n', ', ');
      return `${f.name.padEnd(width)}${v === null || v === undefined ? '(not set)' : text}`;
    }),
    `${'logo'.padEnd(width)}${t.logo_hash ? `${t.logo_type}, served at /logo/${t.id}/${t.logo_hash}` : '(not set)'}`,
  ].join('\n');
}

export const tenantUpdate: CommandSpec = {
  name: 'tenant update',
  summary: "change a tenant's settings (only the options given)",
  usage: `payreq tenant update --tenant ID ${SETTING_FIELDS.map(usageOf).join(' ')} [--json]`,
  help: [
    '  --tenant ID  the tenant to change',
    ...SETTING_FIELDS.map(
      (f) =>
        `  --${f.option}${f.kind === 'boolean' ? (f.valueOption ? ' true|false' : `, --${noOption(f)}`) : ''}: ${f.help}`,
    ),
    'All values are checked before anything is written; a bad one changes nothing.',
  ].join('\n'),
  options: UPDATE_OPTIONS,
  needs: 'schema',
  async run(ctx, { options }) {
    const id = check.tenantId(options.tenant as string | undefined);
    const raw = rawSettings(options);
    if (Object.values(raw).every((v) => v === undefined)) {
      throw new CliError('nothing to change: give at least one setting (see payreq tenant update --help)');
    }
    try {
      const { after, changed } = await updateTenantSettings(ctx.repos, id, raw);
      ctx.tenantChanged?.(id);
      return {
        json: { ...present(after), changed },
        text: `${changed.length === 0 ? 'Nothing changed' : `Updated ${changed.join(', ')}`} for tenant "${after.name}"\n${describe(after)}`,
      };
    } catch (err) {
      throw asCliError(err);
    }
  },
};

export const tenantShow: CommandSpec = {
  name: 'tenant show',
  summary: "show a tenant's settings and payment provider account (never a secret)",
  usage: 'payreq tenant show --tenant ID [--json]',
  help: [
    '  --tenant ID  the tenant to show',
    'provider_account: the account `payreq tenant set-provider` set (provider, shop id, URLs, mode),',
    'without its password or keys; "configured": true when it is a real provider account.',
    'pms: null, or the Apaleo connection `payreq tenant set-pms` made (property, last posting), never its secret.',
  ].join('\n'),
  options: { tenant: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const tenant = await shownTenant(ctx, options.tenant as string | undefined);
    const account = await ctx.repos.providerAccounts.find(tenant.id);
    const pms = await pmsOf(ctx, tenant.id);
    const width = Math.max(...SETTING_FIELDS.map((f) => f.name.length)) + 2;
    const pmsLine = pms ? `apaleo  property ${String(pms.property_id)}` : 'none';
    return {
      json: {
        ...present(tenant),
        provider_account: presentProviderAccount(account, { publicBaseUrl: ctx.config.publicBaseUrl }),
        pms,
      },
      text: `${describe(tenant)}\n${'provider'.padEnd(width)}${describeProviderAccount(account)}\n${'pms'.padEnd(width)}${pmsLine}`,
    };
  },
};

export const tenantSetLogo: CommandSpec = {
  name: 'tenant set-logo',
  summary: "set or remove the logo on a tenant's guest pages",
  usage: 'payreq tenant set-logo --tenant ID (--file PATH | --remove) [--json]',
  help: [
    '  --tenant ID    the tenant to change',
    `  --file PATH    a PNG, JPEG or WebP image of at most ${MAX_LOGO_BYTES / 1024} kB (read by this command, also`,
    '                 when a running service does the work); the type is judged from the bytes,',
    '                 and SVG is refused (it can carry scripts)',
    '  --remove       take the logo off the guest pages',
    'The logo is served at /logo/<tenant-id>/<sha256>: a new logo gets a new address.',
  ].join('\n'),
  options: { tenant: { type: 'string' }, file: { type: 'string' }, remove: { type: 'boolean' } },
  file: 'file',
  needs: 'schema',
  async run(ctx, { options, file }) {
    const id = check.tenantId(options.tenant as string | undefined);
    const remove = options.remove === true;
    if (remove === (options.file !== undefined)) throw new CliError('give --file PATH or --remove (one of them)');
    // The invoking process read the file; without it (a caller that bypassed it), nothing to store.
    if (!remove && file === undefined) throw new CliError('--file was not read');
    try {
      const { after, changed } = await setTenantLogo(ctx.repos, id, remove ? null : (file ?? null));
      const shown = presentTenant(after);
      return {
        json: { ...shown, changed: changed ? ['logo'] : [] },
        text: `${changed ? (remove ? 'Removed the logo' : 'Set the logo') : 'Nothing changed'} for tenant "${after.name}"\n${describe(after)}`,
      };
    } catch (err) {
      throw asCliError(err);
    }
  },
};
