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

/**
 * What can be wrong with a new user's or a new password's values, as codes: the command line
 * prints the English text below (`message`), the back office its own words for the code, in
 * the page's language.
 */
export type UserIssueCode = 'username_invalid' | 'password_short' | 'password_long' | 'password_common' | 'no_tenant';

const ISSUE_TEXT: Record<UserIssueCode, string> = {
  username_invalid: 'must be 1 to 64 characters: letters, digits and . _ @ - (starting with a letter or digit)',
  password_short: `must be at least ${MIN_PASSWORD_LENGTH} characters`,
  password_long: `must be at most ${MAX_PASSWORD_LENGTH} characters`,
  password_common: 'is one of the most common passwords (easily guessed): choose another',
  no_tenant: 'no such tenant',
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
        ...issue('username', usernameIssue(username)),
        ...issue('password', passwordIssue(input.password)),
      ];
      if (issues.length > 0) throw errors.validation(issues);
      if (input.tenantId && !(await repos.tenants.find(input.tenantId))) {
        throw errors.validation([
          { field: 'tenant', code: 'no_tenant', message: `no tenant with id ${input.tenantId}` },
        ]);
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

    /**
     * A new password ends every open session of the user, but `keepSession` (the session id of
     * a user changing their own password, who stays signed in there).
     */
    async setPassword(rawUsername: string, password: string, opts: { keepSession?: string } = {}): Promise<AdminUser> {
      const username = normaliseUsername(rawUsername);
      const problems = issue('password', passwordIssue(password));
      if (problems.length > 0) throw errors.validation(problems);
      const row = await repos.adminUsers.setPassword(username, await hashPassword(password));
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
