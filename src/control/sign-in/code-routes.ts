import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { signInThrottle, twoFactor } from '../../admin-users/index.ts';
import { html } from '../../html/index.ts';
import { ACCOUNT_MESSAGES } from '../account/index.ts';
import { audit, csrfField, Form, flash, languageOf, page, pageContext } from '../shell/index.ts';
import { beginSession, homeTenant, pendingUser } from './begin-session.ts';
import { SIGN_IN_MESSAGES } from './words.ts';

type Step = 'code' | 'recovery';

const STEP_PATH: Record<Step, string> = { code: '/control/sign-in/code', recovery: '/control/sign-in/recovery' };

/**
 * The code typed (an app's code, or a recovery code). What fails the schema (a field sent twice,
 * a value far past the form's length) is read as empty: a wrong code, throttled and audited.
 */
const CodeForm = Type.Object({
  code: Form.optionalText(100),
  recovery_code: Form.optionalText(100),
  _csrf: Form.csrf,
});

/** The second step of the sign-in: a code from the app, or a recovery code. One narrow card. */
async function stepPage(request: FastifyRequest, reply: FastifyReply, step: Step, status: number, problem?: string) {
  const ctx = await pageContext(request, reply);
  const a = ACCOUNT_MESSAGES[ctx.language];
  const input =
    step === 'code'
      ? html`<div class="field"><label for="code">${a.code}</label>
<input id="code" name="code" required inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,8}" maxlength="8" autofocus></div>`
      : html`<div class="field"><label for="recovery_code">${a.recoveryCode}</label>
<input id="recovery_code" name="recovery_code" required autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="40" autofocus></div>`;
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      page(ctx, {
        title: step === 'code' ? a.signInCode : a.recoveryCode,
        body: html`<section class="card narrow" aria-labelledby="second-step">
<h1 id="second-step">${step === 'code' ? a.signInCode : a.recoveryCode}</h1>
${problem ? html`<p class="flash error" role="alert">${problem}</p>` : ''}
<p>${step === 'code' ? a.signInCodeIntro : a.recoveryIntro}</p>
<form method="post" action="${STEP_PATH[step]}">
${csrfField(ctx)}
${input}
<button type="submit">${SIGN_IN_MESSAGES[ctx.language].signIn}</button>
</form>
<p><a href="${STEP_PATH[step === 'code' ? 'recovery' : 'code']}">${step === 'code' ? a.useRecovery : a.useApp}</a></p>
</section>`,
      }),
    );
}

/**
 * /control/sign-in/code and /control/sign-in/recovery: after a right password, for a user whose
 * second factor is on. Throttled like the password, on a count of its own per username (a right
 * password never clears it) and the address's shared count; every attempt is audited.
 */
export async function signInCodeRoutes(control: FastifyInstance): Promise<void> {
  const { repos, secretKeys } = control.payreq;
  const throttle = signInThrottle(repos.signInThrottle, 'code');
  const factor = twoFactor(repos, secretKeys);
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();

  for (const step of ['code', 'recovery'] as const) {
    const path = STEP_PATH[step].replace('/control', '');

    control.get(path, async (request, reply) => {
      if (request.controlUser) return reply.redirect('/control/requests', 303);
      if (!pendingUser(request, control.controlNow())) return reply.redirect('/control/sign-in?expired=1', 303);
      return stepPage(request, reply, step, 200);
    });

    typed.post(path, { schema: { body: CodeForm }, attachValidation: true }, async (request, reply) => {
      if (request.controlUser) return reply.redirect('/control/requests', 303);
      const now = control.controlNow();
      const userId = pendingUser(request, now);
      const user = userId ? await repos.adminUsers.findForSession(userId) : undefined;
      if (!user || user.disabled_at !== null || !user.two_factor_on) {
        await request.session.destroy();
        return reply.redirect('/control/sign-in?expired=1', 303);
      }
      const who = { username: user.username, tenantId: homeTenant(user) };
      const action = step === 'code' ? 'sign_in_code' : 'sign_in_recovery_code';
      const gate = await throttle.begin(user.username, request.ip, now);
      if (!gate.allowed) {
        const seconds = Math.max(1, Math.ceil((gate.retryAt.getTime() - now.getTime()) / 1000));
        await audit(request, {
          ...who,
          action,
          outcome: 'refused',
          detail: { reason: 'throttled', retry_after_seconds: seconds },
        });
        reply.header('retry-after', String(seconds));
        const ctx = await pageContext(request, reply);
        return stepPage(request, reply, step, 429, ctx.m.signInThrottled(seconds));
      }
      const given = request.validationError ? undefined : request.body[step === 'code' ? 'code' : 'recovery_code'];
      const entered = given ?? '';
      const outcome =
        step === 'code'
          ? await factor.verify(user.id, entered, now)
          : (await factor.useRecoveryCode(user.id, entered))
            ? 'ok'
            : 'wrong';
      if (outcome === 'unreadable') {
        request.log.error(
          { username: user.username },
          "the TOTP key cannot be opened with the configured SECRET_KEY(s): reset the user's second factor",
        );
      }
      if (outcome !== 'ok') {
        await audit(request, {
          ...who,
          action,
          outcome: 'refused',
          detail: { reason: outcome === 'unreadable' ? 'unreadable_key' : `${outcome}_code` },
        });
        const ctx = await pageContext(request, reply);
        return stepPage(
          request,
          reply,
          step,
          401,
          step === 'code' ? ACCOUNT_MESSAGES[ctx.language].codeWrong : ACCOUNT_MESSAGES[ctx.language].recoveryWrong,
        );
      }
      await throttle.succeeded(user.username, request.ip, now);
      await beginSession(request, reply, { id: user.id, ...who }, now);
      await audit(request, {
        tenantId: who.tenantId,
        action: 'sign_in',
        outcome: 'ok',
        detail: { second_factor: step === 'code' ? 'totp' : 'recovery_code' },
      });
      if (step === 'recovery') {
        const left = (await factor.state(user.id)).recoveryCodesLeft;
        flash(request, left > 2 ? 'ok' : 'doubt', ACCOUNT_MESSAGES[languageOf(request)].recoveryUsed(left));
      }
      return reply.redirect('/control/requests', 303);
    });
  }
}
