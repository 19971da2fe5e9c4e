import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  adminUsers,
  MIN_PASSWORD_LENGTH,
  passwordIssue,
  scryptParams,
  type TwoFactorState,
  twoFactor,
} from '../../admin-users/index.ts';
import { html } from '../../html/index.ts';
import {
  audit,
  csrfField,
  Form,
  flash,
  invalidFields,
  type PageContext,
  page,
  pageContext,
  user,
} from '../shell/index.ts';
import { issueText } from './issues.ts';
import { checkOwnPassword } from './reauth.ts';
import { userSessions } from './sessions.ts';
import { ACCOUNT_MESSAGES } from './words.ts';

/**
 * The new-password form, bounded as its inputs are (1024 characters, the longest password
 * accepted). Absent fields are empty, refused by the checks that follow as before.
 */
const PasswordForm = Type.Object({
  current_password: Form.optionalText(1024),
  new_password: Form.optionalText(1024),
  new_password_again: Form.optionalText(1024),
  _csrf: Form.csrf,
});

function accountPage(
  ctx: PageContext,
  p: { twoFactor: TwoFactorState; recoveryCodesLeft: number; sessions: number; problem?: string },
): string {
  const a = ACCOUNT_MESSAGES[ctx.language];
  return page(ctx, {
    title: a.title,
    current: 'account',
    body: html`<h1>${a.title}</h1>
<p>${a.intro}</p>
<section class="card" aria-labelledby="pw-h"><h2 id="pw-h">${a.changePassword}</h2>
${p.problem ? html`<p class="flash error" role="alert">${p.problem}</p>` : ''}
<form method="post" action="/control/account/password">${csrfField(ctx)}
<input type="text" name="username" value="${ctx.user?.username ?? ''}" autocomplete="username" hidden>
<div class="field"><label for="pw-current">${a.currentPassword}</label>
<input id="pw-current" name="current_password" type="password" autocomplete="current-password" required maxlength="1024"></div>
<div class="field"><label for="pw-new">${a.newPassword}</label>
<input id="pw-new" name="new_password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="1024" aria-describedby="pw-hint">
<p id="pw-hint" class="hint">${a.passwordHint(MIN_PASSWORD_LENGTH)}</p></div>
<div class="field"><label for="pw-again">${a.repeatPassword}</label>
<input id="pw-again" name="new_password_again" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="1024"></div>
<button type="submit">${a.changePasswordButton}</button></form></section>
<section class="card" aria-labelledby="tf-h"><h2 id="tf-h">${a.twoFactor}</h2>
<p>${p.twoFactor === 'on' ? html`${a.twoFactorOn} ${a.recoveryLeft(p.recoveryCodesLeft)}` : a.twoFactorOff}</p>
<p><a href="/control/account/two-factor">${a.twoFactor}</a></p></section>
<section class="card" aria-labelledby="sessions-h"><h2 id="sessions-h">${a.sessions}</h2>
<p>${a.sessionsIntro}</p>
<p><a href="/control/account/sessions">${a.sessions} (${p.sessions})</a></p>
<p><a href="/control/invitations">${ctx.m.invitationsTitle}</a> · ${ctx.m.homeTitle}</p></section>`,
  });
}

/** /control/account: the overview, and a new password (the current one asked first). */
export async function passwordRoutes(control: FastifyInstance): Promise<void> {
  const { repos, secretKeys, config } = control.payreq;
  const users = adminUsers(repos, scryptParams(config.passwordHashCost));

  async function show(request: FastifyRequest, reply: FastifyReply, status = 200, problem?: string) {
    const me = user(request);
    const state = await twoFactor(repos, secretKeys).state(me.id);
    const sessions = await userSessions(repos, me.id, control.controlNow(), request.session.sessionId);
    const ctx = await pageContext(request, reply);
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(
        accountPage(ctx, {
          twoFactor: state.state,
          recoveryCodesLeft: state.recoveryCodesLeft,
          sessions: sessions.length,
          problem,
        }),
      );
  }

  control.get('/account', async (request, reply) => show(request, reply));

  const typed = control.withTypeProvider<TypeBoxTypeProvider>();
  const passwordForm = { schema: { body: PasswordForm }, attachValidation: true };
  typed.post('/account/password', passwordForm, async (request, reply) => {
    const me = user(request);
    const ctx = await pageContext(request, reply);
    const a = ACCOUNT_MESSAGES[ctx.language];
    const refuse = async (status: number, reason: string, problem: string) => {
      await audit(request, {
        tenantId: me.tenantId,
        action: 'password_changed',
        outcome: 'refused',
        detail: { reason },
      });
      return show(request, reply, status, problem);
    };
    // Refused by the schema: a new password too long says so, as passwordIssue would; a field
    // sent twice (no browser does) is a form not valid; a current password past any real one
    // is a wrong one.
    const invalid = invalidFields(request);
    const tooLong = request.validationError?.validation.some(
      (issue: { keyword: string; instancePath: string }) =>
        issue.keyword === 'maxLength' && issue.instancePath.startsWith('/new_password'),
    );
    if (tooLong) return refuse(422, 'password_long', issueText(ctx.language, 'password_long'));
    if (invalid.has('new_password') || invalid.has('new_password_again')) return refuse(422, 'invalid', ctx.m.invalid);
    if (request.validationError) return refuse(403, 'wrong_password', a.wrongPassword);
    const next = request.body.new_password ?? '';
    if (next !== (request.body.new_password_again ?? '')) {
      return refuse(422, 'passwords_differ', a.passwordsDiffer);
    }
    const problem = passwordIssue(next);
    if (problem) return refuse(422, problem, issueText(ctx.language, problem));
    const check = await checkOwnPassword(request, request.body.current_password ?? '');
    if (!check.ok) {
      if (check.retryAfterSeconds === undefined) return refuse(403, 'wrong_password', a.wrongPassword);
      reply.header('retry-after', String(check.retryAfterSeconds));
      return refuse(429, 'throttled', ctx.m.signInThrottled(check.retryAfterSeconds));
    }
    // Every other session of the user ends; this one goes on.
    await users.setPassword(me.username, next, { keepSession: request.session.sessionId });
    await audit(request, { tenantId: me.tenantId, action: 'password_changed', outcome: 'ok' });
    flash(request, 'ok', a.passwordChanged);
    return reply.redirect('/control/account', 303);
  });
}
