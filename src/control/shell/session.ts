import { createHmac } from 'node:crypto';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import session from '@fastify/session';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdminSessionsRepository } from '../../db/index.ts';
import type { SecretKeyRing } from '../../secrets/index.ts';

/**
 * Sessions of the back office: @fastify/session (a maintained plugin: signed cookie, id
 * regeneration at sign-in, destroy at sign-out) over a store of our own in PostgreSQL, so a
 * session is one row every instance sees and that sign-out, disabling a user or a new password
 * deletes at once. @fastify/secure-session was set aside: it needs sodium-native, a native
 * add-on; everything here is JavaScript.
 *
 * The cookie: HttpOnly, SameSite=Lax, Secure in production, scoped to /control, no Max-Age (it
 * ends with the browser). Expiry is decided server-side: IDLE_MS without a request, or
 * ABSOLUTE_MS after sign-in, whichever comes first. A row exists only once a user has signed
 * in (saveUninitialized: false, and nothing before sign-in writes to the session).
 *
 * CSRF: a signed double-submit cookie (CSRF_COOKIE holds a random secret, signed with a key of
 * its own; each form carries a token made from it), so a visitor who has not signed in costs
 * the server no row. The secret is replaced at sign-in and at sign-out: a token from before
 * either is stale.
 */
export const SESSION_COOKIE = 'payreq_control';
export const CSRF_COOKIE = 'payreq_control_csrf';
export const IDLE_MS = 30 * 60 * 1000;
export const ABSOLUTE_MS = 12 * 60 * 60 * 1000;

declare module 'fastify' {
  interface Session {
    userId?: string;
    /** Epoch ms of the sign-in and of the last request, by the app's clock. */
    signedInAt?: number;
    lastSeenAt?: number;
    language?: string;
    /** The tenant a user with roles on several works on now (the header's switch); never a URL's. */
    tenantId?: string;
    /** A message shown once on the next page (after a redirect). */
    flash?: { kind: 'ok' | 'error' | 'doubt'; text: string };
    /** The full key just created: shown once on the keys page, then dropped. */
    newKey?: { prefix: string; key: string };
    /**
     * After a right password, before the second factor: whose password it was, and when (epoch
     * ms). Such a session is not signed in; only the code step reads it.
     */
    pendingUserId?: string;
    pendingAt?: number;
    /** The browser it was signed in from, and the address of its last request (the sessions page). */
    userAgent?: string;
    ip?: string;
  }
}

/** Adapts the repository to the store interface @fastify/session expects (callbacks). */
function pgStore(sessions: AdminSessionsRepository) {
  return {
    get(id: string, cb: (err: Error | null, s?: never) => void) {
      sessions.get(id).then((data) => cb(null, (data ?? undefined) as never), cb);
    },
    set(id: string, data: unknown, cb: (err?: Error | null) => void) {
      const s = data as { signedInAt?: number; lastSeenAt?: number; userId?: string; pendingUserId?: string };
      // Rows outlive their use by little: the row expires when the session would.
      const now = Date.now();
      const expiresAt = new Date(Math.min(now + IDLE_MS, (s.signedInAt ?? now) + ABSOLUTE_MS, now + ABSOLUTE_MS));
      // A session that belongs to someone was created empty by regenerate() at its sign-in and
      // is only ever updated after: once ended (deleted), a request still under way cannot
      // bring it back by saving it.
      const create = s.userId === undefined && s.pendingUserId === undefined;
      sessions.set(id, data as Record<string, unknown>, expiresAt, { create }).then(() => cb(null), cb);
    },
    destroy(id: string, cb: (err?: Error | null) => void) {
      sessions.destroy(id).then(() => cb(null), cb);
    },
  };
}

/** A signing key of its own, derived from SECRET_KEY: the card-token key is never reused. */
function sessionSecret(secretKey: string): string {
  return createHmac('sha256', secretKey).update('payreq control session cookie v1').digest('hex');
}

/** The CSRF cookie's signing key, derived apart from the session's. */
function csrfCookieSecret(secretKey: string): string {
  return createHmac('sha256', secretKey).update('payreq control csrf cookie v1').digest('hex');
}

function csrfCookieOptions(production: boolean) {
  return { path: '/control', httpOnly: true, sameSite: 'lax', secure: production } as const;
}

/** Drops the CSRF secret: the next page makes a new one (at sign-in and sign-out). */
export function renewCsrfSecret(reply: FastifyReply, production: boolean): void {
  reply.clearCookie(CSRF_COOKIE, csrfCookieOptions(production));
}

export async function registerSessions(
  app: FastifyInstance,
  opts: { secretKeys: SecretKeyRing; production: boolean; sessions: AdminSessionsRepository },
): Promise<void> {
  const keys = [opts.secretKeys.current, ...opts.secretKeys.old];
  // Signed cookies (the CSRF secret): the current key signs, retired keys still verify.
  await app.register(cookie, { secret: keys.map((k) => csrfCookieSecret(k.key)) });
  await app.register(session, {
    // The current key signs; retired keys (SECRET_KEYS_OLD) still verify, so rotating the key
    // signs nobody out while the old key stays listed (a session lasts ABSOLUTE_MS at most).
    secret: keys.map((k) => sessionSecret(k.key)),
    cookieName: SESSION_COOKIE,
    cookie: { path: '/control', httpOnly: true, sameSite: 'lax', secure: opts.production },
    store: pgStore(opts.sessions),
    saveUninitialized: false,
  });
  // The CSRF secret lives in a signed cookie, not in the session (which would need a row for
  // every visitor); every state-changing form carries a token made from it.
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: CSRF_COOKIE,
    cookieOpts: { ...csrfCookieOptions(opts.production), signed: true },
    getToken: (req: FastifyRequest) => (req.body as { _csrf?: unknown } | undefined)?._csrf as string | undefined,
  });
}

/** Whether a signed-in session is still within its idle and absolute limits at `now`. */
export function sessionAlive(s: { signedInAt?: number; lastSeenAt?: number }, now: number): boolean {
  if (s.signedInAt === undefined || s.lastSeenAt === undefined) return false;
  return now - s.lastSeenAt <= IDLE_MS && now - s.signedInAt <= ABSOLUTE_MS;
}
