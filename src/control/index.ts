import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toAppError } from '../api/index.ts';
import type { AppError } from '../domain/index.ts';
import { STATIC_SECURITY_HEADERS } from '../guest/index.ts';
import { accountRoutes, TWO_FACTOR_PATHS } from './account/index.ts';
import { adminRoutes } from './admin/index.ts';
import { booksRoutes } from './books/index.ts';
import { bulkRoutes } from './bulk/index.ts';
import { newRequestRoutes } from './new-request/index.ts';
import { payoutsRoutes } from './payouts/index.ts';
import { pmsRoutes } from './pms/index.ts';
import { EXPORT_MESSAGES, newLinkRoute, requestsRoutes } from './requests/index.ts';
import { configRoutes } from './settings/index.ts';
import type { ControlLanguage, ControlMessages } from './shell/index.ts';
import {
  allows,
  CONTROL_CSS,
  CONTROL_JS,
  CONTROL_SCRIPT_PATH,
  CONTROL_STYLESHEET_PATH,
  controlNotFound,
  firstQueryValues,
  messagePage,
  needOf,
  notFoundPage,
  type PageContext,
  pageContext,
  refuseUnacceptedText,
  registerSessions,
  routeKey,
  sessionAlive,
} from './shell/index.ts';
import { currentTenant, mustEnrol, signInCodeRoutes, signInRoutes } from './sign-in/index.ts';
import { invitationRoutes, joinRoutes, refuseForRole, teamRoutes, tenantSwitchRoutes } from './team/index.ts';
import { todayRoutes } from './today/index.ts';
import { webhookRoutes } from './webhooks/index.ts';

export { SIGN_IN_LIMITS } from '../admin-users/index.ts';
export { ABSOLUTE_MS, CSRF_COOKIE, IDLE_MS, SESSION_COOKIE } from './shell/index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The back office's clock (tests move it to expire a session without waiting). */
    controlNow: () => Date;
  }
}

// Scripts and styles only from our origin; forms only to us; never framed.
const CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** All a user may reach who must set up a second factor and has none yet (and sign out). */
const ENROL_PATHS = new Set([...TWO_FACTOR_PATHS, '/control/sign-out']);

function pathOf(request: FastifyRequest): string {
  return (request.url.split('?')[0] ?? '').replace(/\/+$/, '') || '/';
}

/**
 * Who is asking: a live session of an enabled user, or nobody. Reloaded from the database on
 * every request, so a disabled user or a changed tenant takes effect at once.
 */
async function identify(control: FastifyInstance, request: FastifyRequest): Promise<'ok' | 'none' | 'expired'> {
  const userId = request.session.get('userId');
  if (!userId) return 'none';
  const now = control.controlNow().getTime();
  const session = { signedInAt: request.session.get('signedInAt'), lastSeenAt: request.session.get('lastSeenAt') };
  const row = sessionAlive(session, now) ? await control.payreq.repos.adminUsers.findForSession(userId) : undefined;
  if (!row || row.disabled_at !== null) {
    await request.session.destroy();
    return 'expired';
  }
  request.session.set('lastSeenAt', now);
  if (request.session.get('ip') !== request.ip) request.session.set('ip', request.ip);
  // The tenant worked on is the session's, while the user still holds a role there.
  const current = currentTenant(row, request.session.get('tenantId'));
  if (current?.tenant_id !== request.session.get('tenantId')) request.session.set('tenantId', current?.tenant_id);
  request.controlUser = {
    id: row.id,
    username: row.username,
    superuser: row.superuser,
    tenantId: row.superuser ? null : (current?.tenant_id ?? null),
    standing: row.superuser ? 'superuser' : (current?.role ?? null),
    tenants: row.superuser ? [] : row.roles.map((r) => ({ id: r.tenant_id, name: r.tenant_name, role: r.role })),
    mustEnrol: mustEnrol(request, row),
  };
  return 'ok';
}

function hookList<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

const CSRF_CODES = new Set(['FST_CSRF_INVALID_TOKEN', 'FST_CSRF_MISSING_SECRET']);

/** The refusals of the back office's own edge checks, in the page's language. */
function localised(e: AppError, m: ControlMessages, language: ControlLanguage): string | undefined {
  if (e.code === 'invalid_text') return m.invalidText;
  if (e.code === 'invalid_upload') return m.invalidUpload;
  if (e.code === 'invalid_date') return m.invalidDate(String(e.extra.field ?? ''));
  if (e.code === 'invalid_csv_dialect') return m.invalidDialect;
  if (e.code === 'invalid_cursor') return m.invalidCursor;
  if (e.code === 'invalid_export') return m.invalidExport;
  if (e.code === 'choose_tenant') return EXPORT_MESSAGES[language].exportChooseHotel;
  return undefined;
}

/** Errors as pages; statuses from the one mapping of the service (toAppError). */
async function renderError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const e = toAppError(err);
  if (e.httpStatus >= 500) request.log.error({ err }, 'control page failed');
  const send = (status: number, body: string) => reply.code(status).type('text/html; charset=utf-8').send(body);
  let ctx: PageContext;
  try {
    ctx = await pageContext(request, reply);
  } catch {
    return reply
      .code(e.httpStatus)
      .type('text/plain; charset=utf-8')
      .send(e.httpStatus >= 500 ? 'Internal error' : e.message);
  }
  const { m } = ctx;
  // A refused CSRF token: nothing was changed; the user is told so and goes back to the form.
  if (CSRF_CODES.has(err.code))
    return send(
      403,
      messagePage(ctx, m.formExpired, '', request.controlUser ? '/control/requests' : '/control/sign-in'),
    );
  if (e.httpStatus === 404) return send(404, notFoundPage(ctx));
  if (e.httpStatus === 429) {
    const wait = Number(reply.getHeader('retry-after')) || 60;
    return send(429, messagePage(ctx, m.signInThrottled(wait), '', '/control/sign-in'));
  }
  return send(
    e.httpStatus,
    messagePage(ctx, e.httpStatus >= 500 ? m.error : (localised(e, m, ctx.language) ?? e.message), ''),
  );
}

/** The back office under /control/: sessions, CSRF, headers, and its pages. */
export async function controlPlugin(app: FastifyInstance, opts: { now?: () => Date }): Promise<void> {
  app.decorate('controlNow', opts.now ?? (() => new Date()));
  await app.register(
    async (control) => {
      // Forms post urlencoded; only here (the API still takes JSON alone).
      await control.register(formbody);
      await registerSessions(control, {
        secretKeys: app.payreq.secretKeys,
        production: app.payreq.config.production,
        sessions: app.payreq.repos.adminSessions,
      });
      // By construction, not by memory: every route refuses control characters in what it
      // reads (after the body is parsed, multipart included), and every state-changing route
      // checks the CSRF token; both before the route's schema, so nothing is validated (nor
      // answered with a field's message) for a request the back office refuses anyway.
      control.addHook('onRoute', (route) => {
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        const changes = methods.some((m) => m !== 'GET' && m !== 'HEAD');
        route.preValidation = [
          ...hookList(route.preValidation),
          ...(route.config?.checksOwnText ? [] : [refuseUnacceptedText]),
          ...(changes ? [control.csrfProtection] : []),
        ];
      });
      control.addHook('preValidation', firstQueryValues);
      control.addHook('onRequest', async (_request, reply) => {
        reply.headers(STATIC_SECURITY_HEADERS);
        reply.header('cache-control', 'no-store');
        reply.header('content-security-policy', CSP);
      });
      // Who may ask comes first of all (before the route's schema and its own checks): a
      // signed-out visitor or a role too low is sent away whatever the form holds.
      control.addHook('preValidation', async (request, reply) => {
        const path = pathOf(request);
        // A route's line in route-roles.ts; no route at all (a 404) asks to be signed in first.
        const key =
          request.routeOptions.url === undefined ? undefined : routeKey(request.method, request.routeOptions.url);
        const need = key === undefined ? 'signed_in' : needOf(key, request);
        const who = await identify(control, request);
        if (need === 'public') return;
        if (who !== 'ok') {
          // Not signed in: nothing runs; a page asks to sign in, a form is refused the same way.
          return reply.redirect(`/control/sign-in${who === 'expired' ? '?expired=1' : ''}`, 303);
        }
        // Two factors required and none yet: setting one up comes before anything else.
        if (request.controlUser?.mustEnrol && !ENROL_PATHS.has(path))
          return reply.redirect('/control/account/two-factor', 303);
        if (need === 'unknown_action') throw controlNotFound();
        if (need === 'unlisted' || !allows(request.controlUser?.standing ?? null, need))
          return refuseForRole(request, reply, need, key ?? path);
      });
      control.setErrorHandler(renderError);
      control.setNotFoundHandler(async (request, reply) => {
        const ctx = await pageContext(request, reply);
        return reply.code(404).type('text/html; charset=utf-8').send(notFoundPage(ctx));
      });

      control.get(CONTROL_STYLESHEET_PATH.replace('/control', ''), async (_request, reply) =>
        reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(CONTROL_CSS),
      );
      control.get(CONTROL_SCRIPT_PATH.replace('/control', ''), async (_request, reply) =>
        reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(CONTROL_JS),
      );
      // A user with no role anywhere has only their account to open.
      control.get('/', async (request, reply) =>
        reply.redirect(request.controlUser?.standing === null ? '/control/account' : '/control/requests', 303),
      );
      await control.register(signInRoutes);
      await control.register(newRequestRoutes);
      await control.register(signInCodeRoutes);
      await control.register(accountRoutes);
      await control.register(requestsRoutes);
      await control.register(newLinkRoute);
      await control.register(bulkRoutes);
      await control.register(configRoutes);
      await control.register(adminRoutes);
      await control.register(booksRoutes);
      await control.register(payoutsRoutes);
      await control.register(todayRoutes);
      await control.register(teamRoutes);
      await control.register(tenantSwitchRoutes);
      await control.register(invitationRoutes);
      await control.register(joinRoutes);
      await control.register(webhookRoutes);
      await control.register(pmsRoutes);
    },
    { prefix: '/control' },
  );
}
