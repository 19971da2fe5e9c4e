import type { AdminUserRow, Repositories } from '../db/index.js';
import { AppError, errors } from '../domain/index.js';
import { isCommonPassword } from './common-passwords.js';
import { checkPassword, decoyHash, hashPassword } from './passwords.js';

const USERNAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/;
export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 1024;

export const adminErrors = {
  usernameTaken: (u: string) => new AppError('username_taken', 409, `The username "${u}" is taken`),
  userNotFound: (u: string) => new AppError('user_not_found', 404, `No back-office user "${u}"`),
};

/** Lower-cased: one account per name whatever the case typed at sign-in. */
export function normaliseUsername(raw: string): string {
  return raw.trim().toLowerCase();
}

export function usernameProblem(username: string): string | undefined {
  return USERNAME.test(username)
    ? undefined
    : 'must be 1 to 64 characters: letters, digits and . _ @ - (starting with a letter or digit)';
}

export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  if (isCommonPassword(password)) return 'is one of the most common passwords (easily guessed): choose another';
  return undefined;
}

/** A password read from standard input: one trailing newline (from echo or a file) is not part of it. */
export function passwordFromStdin(stdin: string | undefined): string {
  return (stdin ?? '').replace(/\r?\n$/, '');
}

export interface AdminUser {
  id: string;
  username: string;
  /** null: a superuser, who sees every tenant. */
  tenantId: string | null;
  disabled: boolean;
  createdAt: Date;
}

export const toAdminUser = (row: AdminUserRow): AdminUser => ({
  id: row.id,
  username: row.username,
  tenantId: row.tenant_id,
  disabled: row.disabled_at !== null,
  createdAt: row.created_at,
});

export function adminUsers(repos: Repositories) {
  return {
    async create(input: { username: string; password: string; tenantId: string | null }): Promise<AdminUser> {
      const username = normaliseUsername(input.username);
      const issues = [
        { field: 'username', message: usernameProblem(username) },
        { field: 'password', message: passwordProblem(input.password) },
      ].filter((i): i is { field: string; message: string } => i.message !== undefined);
      if (issues.length > 0) throw errors.validation(issues);
      if (input.tenantId && !(await repos.tenants.find(input.tenantId))) {
        throw errors.validation([{ field: 'tenant', message: `no tenant with id ${input.tenantId}` }]);
      }
      const row = await repos.adminUsers.insert({
        username,
        passwordHash: await hashPassword(input.password),
        tenantId: input.tenantId,
      });
      if (!row) throw adminErrors.usernameTaken(username);
      return toAdminUser(row);
    },

    async list(tenantId?: string): Promise<AdminUser[]> {
      return (await repos.adminUsers.list(tenantId)).map(toAdminUser);
    },

    /** A new password ends every open session of the user. */
    async setPassword(rawUsername: string, password: string): Promise<AdminUser> {
      const username = normaliseUsername(rawUsername);
      const problem = passwordProblem(password);
      if (problem) throw errors.validation([{ field: 'password', message: problem }]);
      const row = await repos.adminUsers.setPassword(username, await hashPassword(password));
      if (!row) throw adminErrors.userNotFound(username);
      await repos.adminSessions.destroyForUser(row.id);
      return toAdminUser(row);
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
      const stored = row?.password_hash ?? (await decoyHash());
      const check = await checkPassword(password.slice(0, MAX_PASSWORD_LENGTH), stored);
      if (row && check.malformed) opts.onMalformedHash?.(row.username);
      if (!row || !check.ok || row.disabled_at !== null) return undefined;
      if (check.needsRehash) await repos.adminUsers.replaceHash(row.id, stored, await hashPassword(password));
      return toAdminUser(row);
    },
  };
}
export type AdminUsers = ReturnType<typeof adminUsers>;
