import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { adminUsers, normaliseUsername, scryptParams, signInThrottle } from '../../admin-users/index.ts';
import { html } from '../../html/index.ts';
import {
  audit,
  csrfField,
  Form,
  isControlLanguage,
  LANGUAGE_COOKIE,
  page,
  pageContext,
  printable,
  renewCsrfSecret,
} from '../shell/index.ts';
import { beginPending, beginSession, homeTenant, mustEnrol } from './begin-session.ts';
import { SIGN_IN_MESSAGES } from './words.ts';

/**
 * The sign-in form. Bounds far past the form's own (64 and 1024 characters): a wrong name of any
 * sane length is refused and audited like any other; what fails here (a field sent twice, a
 * value no form sends) is read as empty, so it is refused the same way, never told apart.
 */
const SignInForm = Type.Object({
  username: Form.text(1024),
  password: Form.text(4096),
  _csrf: Form.csrf,
});

/** `expired=1`: the access hook sent the browser here because its session had ended. */
const SignInQuery = Type.Object({ expired: Type.Optional(Type.String()) });

/** The language switch: any text (an unknown language or an unsafe `back` falls back). */
const LanguageParams = Type.Object({ language: Type.String() });
const LanguageQuery = Type.Object({ back: Type.Optional(Type.String()) });

/** The page; `expired`: the access hook sent the browser here because its session ended. */
async function signInPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  problem?: string,
  expired = false,
) {
  const ctx = await pageContext(request, reply);
  const { m } = ctx;
  const s = SIGN_IN_MESSAGES[ctx.language];
  const notice = problem ?? (expired ? s.sessionExpired : undefined);
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      page(ctx, {
        title: s.signIn,
        body: html`<section class="card narrow" aria-labelledby="sign-in">
<h1 id="sign-in">${s.signIn}</h1>
${notice ? html`<p class="flash error" role="alert">${notice}</p>` : ''}
<form method="post" action="/control/sign-in">
${csrfField(ctx)}
<div class="field"><label for="username">${m.username}</label>
<input id="username" name="username" autocomplete="username" required maxlength="64" autocapitalize="off" spellcheck="false"></div>
<div class="field"><label for="password">${m.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024"></div>
<button type="submit">${s.signIn}</button>
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
  const users = adminUsers(app.payreq.repos, scryptParams(app.payreq.config.passwordHashCost));
  const throttle = signInThrottle(app.payreq.repos.signInThrottle);
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();

  typed.get('/sign-in', { schema: { querystring: SignInQuery } }, async (request, reply) => {
    if (request.controlUser) return reply.redirect('/control/requests', 303);
    return signInPage(request, reply, 200, undefined, request.query.expired === '1');
  });

  // Whatever a failed sign-in's username holds, it is refused like any wrong one and audited
  // (control characters escaped by audit()), so the text check is this route's own. The
  // throttle runs after the CSRF check (a forged post counts against nobody), in the database:
  // it holds with or without Redis, on every instance.
  const signInOptions = { schema: { body: SignInForm }, attachValidation: true, config: { checksOwnText: true } };
  typed.post('/sign-in', signInOptions, async (request, reply) => {
    const { username, password } = request.validationError ? { username: '', password: '' } : request.body;
    // Control characters escaped (a NUL cannot be stored in text), as the audit does.
    const name = printable(normaliseUsername(username)).slice(0, 64);
    const now = control.controlNow();
    const gate = await throttle.begin(name, request.ip, now);
    if (!gate.allowed) {
      const seconds = Math.max(1, Math.ceil((gate.retryAt.getTime() - now.getTime()) / 1000));
      await audit(request, {
        username: name,
        tenantId: null,
        action: 'sign_in',
        outcome: 'refused',
        detail: { reason: 'throttled', retry_after_seconds: seconds },
      });
      reply.header('retry-after', String(seconds));
      const ctx = await pageContext(request, reply);
      return signInPage(request, reply, 429, ctx.m.signInThrottled(seconds));
    }
    const found = await users.authenticate(username, password, {
      onMalformedHash: (who) =>
        request.log.error({ username: who }, 'stored password hash is malformed: sign-in refused'),
    });
    if (!found) {
      await audit(request, { username: name, tenantId: null, action: 'sign_in', outcome: 'refused' });
      const ctx = await pageContext(request, reply);
      return signInPage(request, reply, 401, SIGN_IN_MESSAGES[ctx.language].signInFailed);
    }
    await throttle.succeeded(name, request.ip, now);
    const standing = await app.payreq.repos.adminUsers.findForSession(found.id);
    const home = homeTenant(standing);
    // A second factor is on: the session only waits for the code (a new session id, so an id
    // planted before, session fixation, is worth nothing).
    if (standing?.two_factor_on) {
      await beginPending(request, reply, found.id, now);
      await audit(request, {
        username: found.username,
        tenantId: home,
        action: 'sign_in_password',
        outcome: 'ok',
      });
      return reply.redirect('/control/sign-in/code', 303);
    }
    await beginSession(request, reply, { id: found.id, username: found.username, tenantId: home }, now);
    await audit(request, {
      tenantId: home,
      action: 'sign_in',
      outcome: 'ok',
      detail: { second_factor: 'none' },
    });
    // Two factors required and none set up: enrolment before anything else.
    return reply.redirect(
      standing && mustEnrol(request, standing) ? '/control/account/two-factor' : '/control/requests',
      303,
    );
  });

  control.post('/sign-out', async (request, reply) => {
    if (request.controlUser) {
      await audit(request, { tenantId: request.controlUser.tenantId, action: 'sign_out', outcome: 'ok' });
    }
    await request.session.destroy();
    renewCsrfSecret(reply, app.payreq.config.production);
    return reply.redirect('/control/sign-in', 303);
  });

  // A preference, not an action: a plain link, no form needed. `back` must stay on /control/.
  // Its own text check: anything but a known language and a safe `back` falls back to defaults.
  const languageOptions = {
    schema: { params: LanguageParams, querystring: LanguageQuery },
    config: { checksOwnText: true },
  };
  typed.get('/language/:language', languageOptions, async (request, reply) => {
    const { language } = request.params;
    const back = request.query.back ?? '/control/';
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
