import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditEntry } from '../../db/index.ts';
import { AppError, isUuid as isUuidText } from '../../domain/index.ts';
import { printable } from './input-guard.ts';
import { type ControlLanguage, isControlLanguage, languageFromHeader } from './language.ts';
import type { ControlUser, PageContext } from './layout.ts';
import { CONTROL_MESSAGES } from './words.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in back-office user; set by the access hook on every page but sign-in. */
    controlUser?: ControlUser;
  }
}

export const LANGUAGE_COOKIE = 'payreq_control_lang';

/** "Not here, or not yours": the same 404 for both, so a guessed id tells nothing. */
export const controlNotFound = () => new AppError('not_found', 404, 'Not found');

/** A form or query value that is a UUID (the one check of domain/, for values of any type). */
export function isUuid(v: unknown): v is string {
  return typeof v === 'string' && isUuidText(v);
}

export function languageOf(request: FastifyRequest): ControlLanguage {
  const chosen = request.cookies?.[LANGUAGE_COOKIE];
  return isControlLanguage(chosen) ? chosen : languageFromHeader(request.headers['accept-language']);
}

/** What a page needs: language, user, a fresh CSRF token, and the one-time message if any. */
export async function pageContext(request: FastifyRequest, reply: FastifyReply): Promise<PageContext> {
  const language = languageOf(request);
  const flash = request.session.get('flash');
  if (flash) request.session.set('flash', undefined);
  const tenantId = request.controlUser?.tenantId;
  const tenant = tenantId ? await request.server.payreq.repos.tenants.find(tenantId) : undefined;
  return {
    language,
    m: CONTROL_MESSAGES[language],
    user: request.controlUser,
    csrf: await reply.generateCsrf(),
    flash,
    here: request.url,
    timeZone: tenant?.timezone ?? 'UTC',
  };
}

export function user(request: FastifyRequest): ControlUser {
  const u = request.controlUser;
  if (!u) throw new AppError('unauthorized', 401, 'Unauthorized');
  return u;
}

/** The tenant a user's reads are limited to: their current one; undefined for a superuser (all). */
export function ownScope(request: FastifyRequest): string | undefined {
  return tenantScope(request, undefined);
}

/**
 * The tenant a request may act on. A tenant user: always theirs; naming another is a 404.
 * A superuser: the one named, or undefined (every tenant) when none is.
 */
export function tenantScope(request: FastifyRequest, requested: unknown): string | undefined {
  const u = user(request);
  const named = requested === undefined || requested === '' ? undefined : requested;
  if (named !== undefined && !isUuid(named)) throw controlNotFound();
  // No role anywhere: no tenant at all (route-roles.ts refuses them first; this is the floor).
  if (!u.superuser && u.tenantId === null) throw controlNotFound();
  if (u.tenantId !== null) {
    if (named !== undefined && named.toLowerCase() !== u.tenantId) throw controlNotFound();
    return u.tenantId;
  }
  return named?.toLowerCase();
}

/**
 * Records one back-office action with who and from where. Its text is made printable first
 * (input-guard.ts): a refused sign-in is recorded whatever its username holds.
 */
export async function audit(
  request: FastifyRequest,
  e: Omit<AuditEntry, 'username' | 'ip'> & { username?: string | null },
): Promise<void> {
  const username = e.username ?? request.controlUser?.username ?? null;
  await request.server.payreq.repos.audit.record({
    ...e,
    username: username === null ? null : printable(username),
    target: e.target == null ? e.target : printable(e.target),
    detail: e.detail && JSON.parse(JSON.stringify(e.detail, (_k, v) => (typeof v === 'string' ? printable(v) : v))),
    ip: request.ip,
  });
}

export function flash(request: FastifyRequest, kind: 'ok' | 'error' | 'doubt', text: string): void {
  request.session.set('flash', { kind, text });
}

/** A form field as one string (formbody gives arrays for repeated names). */
export function field(body: unknown, name: string): string | undefined {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : undefined;
  return typeof v === 'string' ? v : undefined;
}
