import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { adminUsers, normaliseUsername } from '../admin-users/index.js';
import { AppError } from '../domain/index.js';
import { html } from '../html/index.js';
import { audit, field, LANGUAGE_COOKIE, pageContext } from './control-context.js';
import { csrfField, page } from './layout.js';
import { isControlLanguage } from './messages.js';

/** Sign-in throttling: per address, and per username whatever the address (a spread attack). */
export const SIGN_IN_LIMITS = { perIp: 20, perUsername: 10, windowMs: 15 * 60 * 1000 };

async function signInPage(request: FastifyRequest, reply: FastifyReply, status: number, problem?: string) {
  const ctx = await pageContext(request, reply);
  const { m } = ctx;
  const expired = (request.query as { expired?: string }).expired === '1';
  const notice = problem ?? (expired ? m.sessionExpired : undefined);
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      page(ctx, {
        title: m.signIn,
        body: html`<section class="card narrow" aria-labelledby="sign-in">
<h1 id="sign-in">${m.signIn}</h1>
${notice ? html`<p class="flash error" role="alert">${notice}</p>` : ''}
<form method="post" action="/control/sign-in">
${csrfField(ctx)}
<div class="field"><label for="username">${m.username}</label>
<input id="username" name="username" autocomplete="username" required maxlength="64" autocapitalize="off" spellcheck="false"></div>
<div class="field"><label for="password">${m.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024"></div>
<button type="submit">${m.signIn}</button>
</form>
</section>`,
      }),
    );
}

/**
 * Where the language switch may send the browser back to: a path under /control/ in visible
 * ASCII, no backslash (browsers read it as a slash). Anything else, a control character above
 * all (it cannot be written in a Location header), goes to /control/.
 */
const BACK_TARGET = /^\/control\/[!-[\]-~]*$/;
function isBackTarget(back: string): boolean {
  return BACK_TARGET.test(back);
}

export async function signInRoutes(control: FastifyInstance): Promise<void> {
  const app = control;
  const users = adminUsers(app.payreq.repos);
  // Two counters on one route: @fastify/rate-limit runs one limiter hook per request, so both
  // are asked here (createRateLimit) and the first exceeded answers 429 with Retry-After.
  const limiters = [
    app.createRateLimit({
      max: SIGN_IN_LIMITS.perIp,
      timeWindow: SIGN_IN_LIMITS.windowMs,
      keyGenerator: (req) => `control-sign-in-ip:${req.ip}`,
    }),
    app.createRateLimit({
      max: SIGN_IN_LIMITS.perUsername,
      timeWindow: SIGN_IN_LIMITS.windowMs,
      keyGenerator: (req) =>
        `control-sign-in-user:${normaliseUsername(field(req.body, 'username') ?? '').slice(0, 64)}`,
    }),
  ];
  const throttle = async (request: FastifyRequest, reply: FastifyReply) => {
    for (const limiter of limiters) {
      const r = await limiter(request);
      if (!r.isAllowed && r.isExceeded) {
        reply.header('retry-after', String(Math.max(1, Math.ceil(r.ttl / 1000))));
        throw new AppError('rate_limited', 429, 'Too many sign-in attempts');
      }
    }
  };

  control.get('/sign-in', async (request, reply) => {
    if (request.controlUser) return reply.redirect('/control/requests', 303);
    return signInPage(request, reply, 200);
  });

  // Whatever a failed sign-in's username holds, it is refused like any wrong one and audited
  // (control characters escaped by audit()), so the text check is this route's own.
  control.post('/sign-in', { preHandler: throttle, config: { checksOwnText: true } }, async (request, reply) => {
    const username = field(request.body, 'username') ?? '';
    const password = field(request.body, 'password') ?? '';
    const found = await users.authenticate(username, password);
    if (!found) {
      await audit(request, {
        username: normaliseUsername(username).slice(0, 64),
        tenantId: null,
        action: 'sign_in',
        outcome: 'refused',
      });
      const ctx = await pageContext(request, reply);
      return signInPage(request, reply, 401, ctx.m.signInFailed);
    }
    // A new session id at sign-in: an id planted before (session fixation) is worth nothing.
    await request.session.regenerate();
    const now = control.controlNow().getTime();
    request.session.set('userId', found.id);
    request.session.set('signedInAt', now);
    request.session.set('lastSeenAt', now);
    request.controlUser = { id: found.id, username: found.username, tenantId: found.tenantId };
    await audit(request, { tenantId: found.tenantId, action: 'sign_in', outcome: 'ok' });
    return reply.redirect('/control/requests', 303);
  });

  control.post('/sign-out', async (request, reply) => {
    if (request.controlUser) {
      await audit(request, { tenantId: request.controlUser.tenantId, action: 'sign_out', outcome: 'ok' });
    }
    await request.session.destroy();
    return reply.redirect('/control/sign-in', 303);
  });

  // A preference, not an action: a plain link, no form needed. `back` must stay on /control/.
  // Its own text check: anything but a known language and a safe `back` falls back to defaults.
  control.get('/language/:language', { config: { checksOwnText: true } }, async (request, reply) => {
    const { language } = request.params as { language: string };
    const back = (request.query as { back?: string }).back ?? '/control/';
    const target = isBackTarget(back) ? back : '/control/';
    if (isControlLanguage(language)) {
      reply.setCookie(LANGUAGE_COOKIE, language, {
        path: '/control',
        httpOnly: true,
        sameSite: 'lax',
        secure: app.payreq.config.production,
        maxAge: 365 * 24 * 3600,
      });
    }
    return reply.redirect(target, 303);
  });
}
