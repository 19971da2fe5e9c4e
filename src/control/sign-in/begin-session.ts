import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUserRow } from '../../db/index.ts';
import type { ControlUser } from '../shell/index.ts';
import { flash, languageOf, renewCsrfSecret } from '../shell/index.ts';
import { ROLE_MESSAGES } from '../team/index.ts';

/** How long the code step waits after a right password before the password is asked again. */
export const PENDING_MS = 5 * 60 * 1000;

/** What is kept of a browser's User-Agent (the sessions page summarises it). */
const MAX_USER_AGENT = 512;

/** A new session id and CSRF secret whenever who the session is changes (session fixation). */
async function freshSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await request.session.regenerate();
  renewCsrfSecret(reply, request.server.payreq.config.production);
}

/** Signed in: from here on the session is the user's. */
export async function beginSession(
  request: FastifyRequest,
  reply: FastifyReply,
  user: Pick<ControlUser, 'id' | 'username' | 'tenantId'>,
  now: Date,
): Promise<void> {
  await freshSession(request, reply);
  request.session.set('userId', user.id);
  request.session.set('signedInAt', now.getTime());
  request.session.set('lastSeenAt', now.getTime());
  request.session.set('userAgent', (request.headers['user-agent'] ?? '').slice(0, MAX_USER_AGENT));
  request.session.set('ip', request.ip);
  // The first tenant the user works on (by name); the header's switch changes it.
  request.session.set('tenantId', user.tenantId ?? undefined);
  // Enough for the sign-in's audit; the next request loads the user whole.
  request.controlUser = { ...user, superuser: false, standing: null, tenants: [] };
  // Hotels that invite the user: said once, at sign-in; the user alone answers them.
  const waiting = (await request.server.payreq.repos.teamInvitations.forUser(user.id)).length;
  if (waiting > 0) flash(request, 'ok', ROLE_MESSAGES[languageOf(request)].waitingInvitations(waiting));
}

/** The password was right and a second factor is on: the session waits for the code. */
export async function beginPending(
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  now: Date,
): Promise<void> {
  await freshSession(request, reply);
  request.session.set('pendingUserId', userId);
  request.session.set('pendingAt', now.getTime());
}

/** The user whose password was right within PENDING_MS, waiting for their code; or undefined. */
export function pendingUser(request: FastifyRequest, now: Date): string | undefined {
  const userId = request.session.get('pendingUserId');
  const at = request.session.get('pendingAt');
  if (!userId || at === undefined || now.getTime() - at > PENDING_MS || now.getTime() < at) return undefined;
  return userId;
}

/**
 * Two factors are required of this user (CONTROL_REQUIRE_2FA, or their tenant's require_2fa)
 * and they have none confirmed: they may only set one up.
 */
/**
 * The tenant a new session starts on (its sign-in is filed under it in the audit): the one the
 * user chose, while they hold a role there; otherwise the hotel of their oldest role (the one
 * they were created for). A role given or accepted later never moves it, so no other hotel can
 * pull a user's sign-ins into its audit.
 */
export function homeTenant(row: Pick<SessionUserRow, 'roles' | 'home_tenant_id'> | undefined): string | null {
  if (!row) return null;
  if (row.home_tenant_id && row.roles.some((r) => r.tenant_id === row.home_tenant_id)) return row.home_tenant_id;
  const oldest = [...row.roles].sort((a, b) => Date.parse(a.granted_at) - Date.parse(b.granted_at))[0];
  return oldest?.tenant_id ?? null;
}

export function mustEnrol(request: FastifyRequest, row: SessionUserRow): boolean {
  return !row.two_factor_on && (request.server.payreq.config.controlRequire2fa || row.tenant_requires_2fa);
}

type RoleOf = SessionUserRow['roles'][number];

/**
 * The tenant a user works on: the session's while they hold a role there, else their first
 * (by name); undefined for a superuser or a user with no role.
 */
export function currentTenant(row: Pick<SessionUserRow, 'roles'>, chosen: string | undefined): RoleOf | undefined {
  return row.roles.find((r) => r.tenant_id === chosen) ?? row.roles[0];
}
