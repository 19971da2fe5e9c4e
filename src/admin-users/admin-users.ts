import { type AdminUserRow, type Repositories, type RoleGrant, TENANT_ROLES, type TenantRole } from '../db/index.ts';
import { AppError, errors } from '../domain/index.ts';
import { isCommonPassword } from './common-passwords.ts';
import { checkPassword, decoyHash, hashPassword, SCRYPT, type ScryptParams } from './passwords.ts';

const USERNAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/;
export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 1024;

export const adminErrors = {
  usernameTaken: (u: string) => new AppError('username_taken', 409, `The username "${u}" is taken`),
  userNotFound: (u: string) => new AppError('user_not_found', 404, `No back-office user "${u}"`),
  superuserHasAll: (u: string) =>
    new AppError('superuser_has_all', 409, `"${u}" is a superuser and sees every tenant already: no role to grant`),
};

export function isTenantRole(v: unknown): v is TenantRole {
  return typeof v === 'string' && (TENANT_ROLES as readonly string[]).includes(v);
}

/** Lower-cased: one account per name whatever the case typed at sign-in. */
export function normaliseUsername(raw: string): string {
  return raw.trim().toLowerCase();
}

/**
 * What can be wrong with a new user's or a new password's values, as codes: the command line
 * prints the English text below (`message`), the back office its own words for the code, in
 * the page's language.
 */
export type UserIssueCode =
  | 'username_invalid'
  | 'password_short'
  | 'password_long'
  | 'password_common'
  | 'no_tenant'
  | 'role_invalid'
  | 'tenant_twice';

const ISSUE_TEXT: Record<UserIssueCode, string> = {
  username_invalid: 'must be 1 to 64 characters: letters, digits and . _ @ - (starting with a letter or digit)',
  password_short: `must be at least ${MIN_PASSWORD_LENGTH} characters`,
  password_long: `must be at most ${MAX_PASSWORD_LENGTH} characters`,
  password_common: 'is one of the most common passwords (easily guessed): choose another',
  no_tenant: 'no such tenant',
  role_invalid: `must be one of ${TENANT_ROLES.join(', ')}`,
  tenant_twice: 'names the same tenant twice: one role per tenant',
};

export interface UserIssue {
  field: string;
  code: UserIssueCode;
  message: string;
}

const issue = (field: string, code: UserIssueCode | undefined): UserIssue[] =>
  code ? [{ field, code, message: ISSUE_TEXT[code] }] : [];

function usernameIssue(username: string): UserIssueCode | undefined {
  return USERNAME.test(username) ? undefined : 'username_invalid';
}

export function passwordIssue(password: string): UserIssueCode | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return 'password_short';
  if (password.length > MAX_PASSWORD_LENGTH) return 'password_long';
  if (isCommonPassword(password)) return 'password_common';
  return undefined;
}

export function usernameProblem(username: string): string | undefined {
  const code = usernameIssue(username);
  return code && ISSUE_TEXT[code];
}

export function passwordProblem(password: string): string | undefined {
  const code = passwordIssue(password);
  return code && ISSUE_TEXT[code];
}

/** A password read from standard input: one trailing newline (from echo or a file) is not part of it. */
export function passwordFromStdin(stdin: string | undefined): string {
  return (stdin ?? '').replace(/\r?\n$/, '');
}

export interface AdminUser {
  id: string;
  username: string;
  /** Sees every tenant (and holds no role). */
  superuser: boolean;
  disabled: boolean;
  createdAt: Date;
}

/** A user with their roles, as lists show them. */
export interface AdminUserWithRoles extends AdminUser {
  roles: { tenantId: string; tenantName: string; role: TenantRole }[];
}

export const toAdminUser = (row: AdminUserRow): AdminUser => ({
  id: row.id,
  username: row.username,
  superuser: row.superuser,
  disabled: row.disabled_at !== null,
  createdAt: row.created_at,
});

/** The grants of a new user: each tenant once, each role known (else issues naming the field). */
function grantIssues(grants: readonly { tenantId: string; role: string }[]): UserIssue[] {
  const seen = new Set<string>();
  return grants.flatMap((g) => {
    const out = issue('role', isTenantRole(g.role) ? undefined : 'role_invalid');
    if (seen.has(g.tenantId)) out.push(...issue('tenant', 'tenant_twice'));
    seen.add(g.tenantId);
    return out;
  });
}

/**
 * The back office's users. `hashing`: the parameters new password hashes are made at, and below
 * which a stored one is raised at sign-in: today's, or the configured PASSWORD_HASH_COST's
 * (scryptParams(config.passwordHashCost); lower only outside production).
 */
export function adminUsers(repos: Repositories, hashing: ScryptParams = SCRYPT) {
  return {
    /**
     * A user with a role on each tenant of `grants`, or, with none, a superuser. `tenantId`
     * alone (no grants) is one grant as manager, as a tenant user was before roles.
     */
    async create(input: {
      username: string;
      password: string;
      tenantId?: string | null;
      grants?: readonly { tenantId: string; role: string }[];
    }): Promise<AdminUser> {
      const username = normaliseUsername(input.username);
      const grants = input.grants ?? (input.tenantId ? [{ tenantId: input.tenantId, role: 'manager' }] : []);
      const issues = [
        ...issue('username', usernameIssue(username)),
        ...issue('password', passwordIssue(input.password)),
        ...grantIssues(grants),
      ];
      if (issues.length > 0) throw errors.validation(issues);
      for (const g of grants) {
        if (!(await repos.tenants.find(g.tenantId))) {
          throw errors.validation([{ field: 'tenant', code: 'no_tenant', message: `no tenant with id ${g.tenantId}` }]);
        }
      }
      const row = await repos.adminUsers.insert({
        username,
        passwordHash: await hashPassword(input.password, hashing),
        grants: grants as RoleGrant[],
      });
      if (!row) throw adminErrors.usernameTaken(username);
      return toAdminUser(row);
    },

    /** Users with a role on `tenantId` (every user when undefined), each with all their roles. */
    async list(tenantId?: string): Promise<AdminUserWithRoles[]> {
      const [rows, roles] = await Promise.all([repos.adminUsers.list(tenantId), repos.adminUsers.roles({})]);
      return rows.map((row) => ({
        ...toAdminUser(row),
        roles: roles
          .filter((r) => r.user_id === row.id)
          .map((r) => ({ tenantId: r.tenant_id, tenantName: r.tenant_name, role: r.role })),
      }));
    },

    /**
     * Gives `username` the role on the tenant, or changes the one they had there; the role
     * before (null: none). A superuser holds no roles: refused.
     */
    async grant(
      rawUsername: string,
      tenantId: string,
      role: string,
    ): Promise<{ user: AdminUser; before: TenantRole | null; role: TenantRole }> {
      const username = normaliseUsername(rawUsername);
      if (!isTenantRole(role)) throw errors.validation(issue('role', 'role_invalid'));
      const row = await repos.adminUsers.findByUsername(username);
      if (!row) throw adminErrors.userNotFound(username);
      if (row.superuser) throw adminErrors.superuserHasAll(username);
      if (!(await repos.tenants.find(tenantId))) {
        throw errors.validation([{ field: 'tenant', code: 'no_tenant', message: `no tenant with id ${tenantId}` }]);
      }
      const { before } = await repos.adminUsers.setRole(row.id, tenantId, role);
      return { user: toAdminUser(row), before, role };
    },

    /**
     * A new password ends every open session of the user, but `keepSession` (the session id of
     * a user changing their own password, who stays signed in there).
     */
    async setPassword(rawUsername: string, password: string, opts: { keepSession?: string } = {}): Promise<AdminUser> {
      const username = normaliseUsername(rawUsername);
      const problems = issue('password', passwordIssue(password));
      if (problems.length > 0) throw errors.validation(problems);
      const row = await repos.adminUsers.setPassword(username, await hashPassword(password, hashing));
      if (!row) throw adminErrors.userNotFound(username);
      await repos.adminSessions.destroyForUser(row.id, opts.keepSession);
      return toAdminUser(row);
    },

    /** Ends every session of the user (a lost laptop, a departure); how many were open. */
    async endSessions(rawUsername: string): Promise<{ user: AdminUser; ended: number }> {
      const username = normaliseUsername(rawUsername);
      const row = await repos.adminUsers.findByUsername(username);
      if (!row) throw adminErrors.userNotFound(username);
      return { user: toAdminUser(row), ended: await repos.adminSessions.destroyForUser(row.id) };
    },

    /**
     * Removes the user's second factor and recovery codes (a lost phone) and ends their
     * sessions: the next sign-in takes the password alone, or sends them to set up a new one
     * where two factors are required.
     */
    async resetTwoFactor(rawUsername: string): Promise<{ user: AdminUser; removed: boolean; ended: number }> {
      const username = normaliseUsername(rawUsername);
      const row = await repos.adminUsers.findByUsername(username);
      if (!row) throw adminErrors.userNotFound(username);
      const removed = await repos.twoFactor.remove(row.id);
      return { user: toAdminUser(row), removed, ended: await repos.adminSessions.destroyForUser(row.id) };
    },

    async findByUsername(rawUsername: string): Promise<AdminUser | undefined> {
      const username = normaliseUsername(rawUsername);
      const row = USERNAME.test(username) ? await repos.adminUsers.findByUsername(username) : undefined;
      return row && toAdminUser(row);
    },

    /** Disabling signs the user out everywhere, at once. */
    async setDisabled(rawUsername: string, disabled: boolean): Promise<AdminUser> {
      const username = normaliseUsername(rawUsername);
      const row = await repos.adminUsers.setDisabled(username, disabled);
      if (!row) throw adminErrors.userNotFound(username);
      if (disabled) await repos.adminSessions.destroyForUser(row.id);
      return toAdminUser(row);
    },

    /**
     * The user when the password is right and the account enabled; undefined otherwise, in
     * the same time whether or not the username exists. A right password stored below today's
     * hashing parameters is hashed again at today's (unless it changed meanwhile). A stored
     * hash that cannot be read refuses the sign-in and is told to `onMalformedHash` (to log).
     */
    async authenticate(
      rawUsername: string,
      password: string,
      opts: { onMalformedHash?: (username: string) => void } = {},
    ): Promise<AdminUser | undefined> {
      const username = normaliseUsername(rawUsername);
      const row = USERNAME.test(username) ? await repos.adminUsers.findByUsername(username) : undefined;
      const stored = row?.password_hash ?? (await decoyHash(hashing));
      const check = await checkPassword(password.slice(0, MAX_PASSWORD_LENGTH), stored, hashing);
      if (row && check.malformed) opts.onMalformedHash?.(row.username);
      if (!row || !check.ok || row.disabled_at !== null) return undefined;
      if (check.needsRehash) await repos.adminUsers.replaceHash(row.id, stored, await hashPassword(password, hashing));
      return toAdminUser(row);
    },
  };
}
export type AdminUsers = ReturnType<typeof adminUsers>;
