import {
  type AdminUser,
  type AdminUserWithRoles,
  adminUsers,
  isTenantRole,
  MIN_PASSWORD_LENGTH,
  passwordFromStdin,
  scryptParams,
} from '../admin-users/index.ts';
import { TENANT_ROLES } from '../db/index.ts';
import { AppError } from '../domain/index.ts';
import { plural } from '../i18n/index.ts';
import { CliError } from './cli-error.ts';
import type { CommandSpec } from './command-context.ts';
import * as check from './input-checks.ts';

type Roles = readonly { tenantId: string; role: string }[];

/** `role`: "superuser", or "tenant" for a user whose roles are listed in `roles`, one per tenant. */
function present(u: AdminUser, roles?: Roles): Record<string, unknown> {
  return {
    username: u.username,
    role: u.superuser ? 'superuser' : 'tenant',
    ...(roles ? { roles: roles.map((r) => ({ tenant_id: r.tenantId, role: r.role })) } : {}),
    disabled: u.disabled,
    created_at: new Date(u.createdAt).toISOString(),
  };
}

const rolesText = (u: AdminUserWithRoles) =>
  u.superuser ? 'superuser' : u.roles.map((r) => `${r.role}@${r.tenantName}`).join(', ') || 'no role';

/**
 * Repeated --tenant/--role pairs, in the order given: each --tenant has its --role, or, without
 * any --role, each --tenant makes a manager (the documented default of create-user).
 */
function grantPairs(options: Readonly<Record<string, unknown>>): { tenantId: string; role: string }[] {
  const list = (v: unknown) => (v === undefined ? [] : Array.isArray(v) ? (v as string[]) : [String(v)]);
  const tenants = list(options.tenant);
  const given = list(options.role);
  const roles = given.length === 0 ? tenants.map(() => 'manager') : given;
  if (tenants.length !== roles.length) {
    throw new CliError(
      `give one --role per --tenant (got ${tenants.length} --tenant and ${roles.length} --role); without --tenant the user is a superuser`,
    );
  }
  return tenants.map((t, i) => {
    const role = roles[i] ?? '';
    if (!isTenantRole(role)) throw new CliError(`--role must be one of ${TENANT_ROLES.join(', ')} (got "${role}")`);
    return { tenantId: check.tenantId(t), role };
  });
}

/** The service's answer in the CLI's words: a validation issue names its option. */
async function asCli<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.code === 'validation_failed') {
      const details = (err.extra.details ?? []) as { field: string; message: string }[];
      // The password is read with --password-stdin: the message names that option.
      const option = (f: string) => (f === 'password' ? 'password-stdin: the password' : f);
      throw new CliError(details.map((d) => `--${option(d.field)} ${d.message}`).join('; '));
    }
    throw new CliError(err.message);
  }
}

function password(options: Readonly<Record<string, unknown>>, stdin: string | undefined): string {
  if (options['password-stdin'] !== true) {
    throw new CliError('give the password on standard input with --password-stdin (never as an argument)');
  }
  return passwordFromStdin(stdin);
}

export const adminCreateUser: CommandSpec = {
  name: 'admin create-user',
  summary: 'create a user of the back office (/control/)',
  usage:
    'payreq admin create-user --username U --password-stdin [--tenant ID [--role viewer|frontdesk|manager]]... [--json]',
  help: [
    '  --username U        1 to 64 characters: letters, digits and . _ @ - (stored lower-cased)',
    `  --password-stdin    read the password (at least ${MIN_PASSWORD_LENGTH} characters, not a common one) from standard input`,
    '  --tenant ID         a tenant the user works on, with the --role that follows it; repeat the pair',
    '                      (without any --role, the user is a manager of each --tenant)',
    '                      for several tenants (a hotel group). Without --tenant: a superuser (every tenant)',
    '  --role R            viewer (reads), frontdesk (also resends, cancels, captures, releases),',
    "                      manager (also refunds; keys, settings, webhooks, the tenant's users)",
    'Recorded in the audit log (user_created, role_granted).',
  ].join('\n'),
  options: {
    username: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    tenant: { type: 'string', multiple: true },
    role: { type: 'string', multiple: true },
  },
  stdin: 'password-stdin',
  needs: 'schema',
  async run(ctx, { options, stdin }) {
    const username = check.text('username', options.username as string | undefined, 64);
    const grants = grantPairs(options);
    const pw = password(options, stdin);
    const user = await asCli(() =>
      adminUsers(ctx.repos, scryptParams(ctx.config.passwordHashCost)).create({ username, password: pw, grants }),
    );
    for (const g of grants) await auditCli(ctx, user, 'role_granted', { role: g.role }, g.tenantId);
    return {
      json: present(user, grants),
      text: `Created back-office user "${user.username}" (${grants.length ? grants.map((g) => `${g.role} of tenant ${g.tenantId}`).join(', ') : 'superuser: every tenant'}); sign in at ${ctx.config.publicBaseUrl}/control/`,
    };
  },
};

export const adminGrant: CommandSpec = {
  name: 'admin grant',
  summary: 'give a back-office user a role on a tenant, or change the role they have there',
  usage: 'payreq admin grant --username U --tenant ID --role viewer|frontdesk|manager [--json]',
  help: [
    '  --username U   an existing back-office user (not a superuser: they see every tenant already)',
    '  --tenant ID    the tenant',
    '  --role R       viewer, frontdesk or manager; replaces the role they had on that tenant',
    'Takes effect at their next page. Recorded in the audit log (role_granted, or role_changed).',
    'To remove a role: the Team page (/control/team) of a manager or a superuser.',
  ].join('\n'),
  options: { username: { type: 'string' }, tenant: { type: 'string' }, role: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const username = usernameOption(options);
    const tenantId = check.tenantId(check.text('tenant', options.tenant as string | undefined, 64));
    const role = check.text('role', options.role as string | undefined, 16);
    const done = await asCli(() =>
      adminUsers(ctx.repos, scryptParams(ctx.config.passwordHashCost)).grant(username, tenantId, role),
    );
    const action = done.before === null ? 'role_granted' : 'role_changed';
    await auditCli(ctx, done.user, action, { role: done.role, before: done.before }, tenantId);
    return {
      json: { ...present(done.user), tenant_id: tenantId, role_on_tenant: done.role, before: done.before },
      text:
        done.before === null
          ? `"${done.user.username}" is now ${done.role} of tenant ${tenantId}.`
          : `"${done.user.username}" was ${done.before} of tenant ${tenantId}, now ${done.role}.`,
    };
  },
};

export const adminListUsers: CommandSpec = {
  name: 'admin list-users',
  summary: 'list the users of the back office',
  usage: 'payreq admin list-users [--tenant ID] [--json]',
  options: { tenant: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const tenant = options.tenant === undefined ? undefined : check.tenantId(options.tenant as string);
    const users = await adminUsers(ctx.repos, scryptParams(ctx.config.passwordHashCost)).list(tenant);
    const lines = users.map((u) => `${u.username.padEnd(24)} ${u.disabled ? 'disabled' : 'active  '} ${rolesText(u)}`);
    return {
      json: { users: users.map((u) => present(u, u.roles)) },
      text:
        users.length === 0
          ? 'No back-office users yet: payreq admin create-user --username U --password-stdin'
          : lines.join('\n'),
    };
  },
};

export const adminDisableUser: CommandSpec = {
  name: 'admin disable-user',
  summary: 'disable a back-office user (signed out everywhere at once)',
  usage: 'payreq admin disable-user USERNAME [--json]',
  options: {},
  positionals: ['USERNAME'],
  needs: 'schema',
  async run(ctx, { positionals }) {
    const user = await asCli(() =>
      adminUsers(ctx.repos, scryptParams(ctx.config.passwordHashCost)).setDisabled(positionals[0] ?? '', true),
    );
    return { json: present(user), text: `Disabled back-office user "${user.username}"; their sessions are ended.` };
  },
};

export const adminEnableUser: CommandSpec = {
  name: 'admin enable-user',
  summary: 'enable a disabled back-office user again',
  usage: 'payreq admin enable-user USERNAME [--json]',
  options: {},
  positionals: ['USERNAME'],
  needs: 'schema',
  async run(ctx, { positionals }) {
    const user = await asCli(() =>
      adminUsers(ctx.repos, scryptParams(ctx.config.passwordHashCost)).setDisabled(positionals[0] ?? '', false),
    );
    return { json: present(user), text: `Back-office user "${user.username}" is active.` };
  },
};

export const adminSetPassword: CommandSpec = {
  name: 'admin set-password',
  summary: "set a back-office user's password (ends their sessions)",
  usage: 'payreq admin set-password USERNAME --password-stdin [--json]',
  options: { 'password-stdin': { type: 'boolean' } },
  positionals: ['USERNAME'],
  stdin: 'password-stdin',
  needs: 'schema',
  async run(ctx, { options, positionals, stdin }) {
    const pw = password(options, stdin);
    const user = await asCli(() =>
      adminUsers(ctx.repos, scryptParams(ctx.config.passwordHashCost)).setPassword(positionals[0] ?? '', pw),
    );
    return { json: present(user), text: `Password of "${user.username}" changed; their open sessions are ended.` };
  },
};

/** What a command changed about a user, in the audit log beside the back office's own actions. */
async function auditCli(
  ctx: Parameters<NonNullable<CommandSpec['run']>>[0],
  user: AdminUser,
  action: string,
  detail: Record<string, unknown>,
  tenantId: string | null = null,
): Promise<void> {
  await ctx.repos.audit.record({
    username: null,
    tenantId,
    ip: null,
    action,
    target: user.username,
    outcome: 'ok',
    detail: { ...detail, via: 'command line' },
  });
}

function usernameOption(options: Readonly<Record<string, unknown>>): string {
  return check.text('username', options.username as string | undefined, 64);
}

export const adminResetTwoFactor: CommandSpec = {
  name: 'admin reset-2fa',
  summary: "remove a user's two-factor sign-in (a lost phone); ends their sessions",
  usage: 'payreq admin reset-2fa --username U [--json]',
  help: [
    '  --username U   the back-office user whose authenticator app and recovery codes are removed',
    'Their open sessions end. At their next sign-in the password alone lets them in, or, where two',
    'factors are required (tenant require_2fa, CONTROL_REQUIRE_2FA=on), sends them to set up a new',
    'app before anything else. Recorded in the audit log (two_factor_reset).',
  ].join('\n'),
  options: { username: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const username = usernameOption(options);
    const done = await asCli(() =>
      adminUsers(ctx.repos, scryptParams(ctx.config.passwordHashCost)).resetTwoFactor(username),
    );
    await auditCli(ctx, done.user, 'two_factor_reset', { had_two_factor: done.removed, sessions_ended: done.ended });
    return {
      json: { ...present(done.user), two_factor_removed: done.removed, sessions_ended: done.ended },
      text: done.removed
        ? `Two-factor sign-in of "${done.user.username}" removed; ${plural('en', done.ended, { one: '# session', other: '# sessions' })} ended.`
        : `"${done.user.username}" had no two-factor sign-in; ${plural('en', done.ended, { one: '# session', other: '# sessions' })} ended.`,
    };
  },
};

export const adminEndSessions: CommandSpec = {
  name: 'admin end-sessions',
  summary: 'end every back-office session of a user (they sign in again)',
  usage: 'payreq admin end-sessions --username U [--json]',
  help: [
    '  --username U   the back-office user signed out everywhere at once',
    'Recorded in the audit log (user_sessions_ended).',
  ].join('\n'),
  options: { username: { type: 'string' } },
  needs: 'schema',
  async run(ctx, { options }) {
    const username = usernameOption(options);
    const done = await asCli(() =>
      adminUsers(ctx.repos, scryptParams(ctx.config.passwordHashCost)).endSessions(username),
    );
    await auditCli(ctx, done.user, 'user_sessions_ended', { sessions_ended: done.ended });
    return {
      json: { ...present(done.user), sessions_ended: done.ended },
      text: `${plural('en', done.ended, { one: '# session', other: '# sessions' })} of "${done.user.username}" ended.`,
    };
  },
};
