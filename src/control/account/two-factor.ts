import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { type Static, Type } from 'typebox';
import { totpUri, twoFactor } from '../../admin-users/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { audit, csrfField, Form, flash, type PageContext, page, pageContext, user } from '../shell/index.ts';
import { checkOwnPassword } from './reauth.ts';
import { ACCOUNT_MESSAGES } from './words.ts';

/** Every path of the enrolment: all a user who must set up a second factor may reach. */
export const TWO_FACTOR_PATHS = [
  '/control/account/two-factor',
  '/control/account/two-factor/start',
  '/control/account/two-factor/confirm',
] as const;

/**
 * The enrolment's code, and the password asked again before new recovery codes or turning the
 * second factor off. What fails the schema (sent twice, far too long) is read as empty: a wrong
 * code or password, refused and audited as one.
 */
const CodeForm = Type.Object({ code: Form.optionalText(100), _csrf: Form.csrf });
const PasswordForm = Type.Object({ password: Form.optionalText(4096), _csrf: Form.csrf });

const send = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

/**
 * The QR code of the otpauth:// URI, drawn on the server as SVG (`qrcode`, MIT, pure
 * JavaScript: no canvas, no native build) and shown as a data: image, which the pages' CSP
 * allows (img-src 'self' data:); no script draws it and the secret never leaves this page.
 */
async function qrDataUri(uri: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** The key in groups of four, as people type it into an app (apps ignore the spaces). */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

function passwordField(ctx: PageContext, id: string): SafeHtml {
  return html`<div class="field"><label for="${id}">${ACCOUNT_MESSAGES[ctx.language].passwordToConfirm}</label>
<input id="${id}" name="password" type="password" autocomplete="current-password" required maxlength="1024"></div>`;
}

interface TwoFactorView {
  state: 'off' | 'pending' | 'on';
  required: boolean;
  mustEnrol: boolean;
  recoveryCodesLeft: number;
  /** While enrolling: the key and its QR code. */
  enrolment?: { secret: string; qr: string };
  problem?: string;
}

function twoFactorPage(ctx: PageContext, v: TwoFactorView): string {
  const a = ACCOUNT_MESSAGES[ctx.language];
  const problem = v.problem ? html`<p class="flash error" role="alert">${v.problem}</p>` : '';
  let body: SafeHtml;
  if (v.state === 'on') {
    body = html`<p>${a.twoFactorOn} ${a.recoveryLeft(v.recoveryCodesLeft)}</p>${problem}
<form method="post" action="/control/account/two-factor/recovery-codes">${csrfField(ctx)}
<h2>${a.newRecoveryCodes}</h2><p class="hint">${a.newRecoveryHint}</p>
${passwordField(ctx, 'pw-codes')}<button type="submit" class="secondary">${a.newRecoveryCodes}</button></form>
${
  v.required
    ? html`<p>${a.cannotTurnOff}</p>`
    : html`<form method="post" action="/control/account/two-factor/disable">${csrfField(ctx)}
<h2>${a.turnOff}</h2>${passwordField(ctx, 'pw-off')}<button type="submit" class="danger">${a.turnOff}</button></form>`
}`;
  } else if (v.enrolment) {
    body = html`${problem}<p>${a.scan}</p>
<img class="qr" src="${v.enrolment.qr}" alt="${a.qrAlt}" width="192" height="192">
<p>${a.key}: <code class="secret" id="totp-secret">${grouped(v.enrolment.secret)}</code></p>
<form method="post" action="/control/account/two-factor/confirm">${csrfField(ctx)}
<div class="field"><label for="code">${a.code}</label>
<input id="code" name="code" required inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,8}" maxlength="8"></div>
<button type="submit">${a.confirm}</button></form>`;
  } else {
    body = html`<p>${a.twoFactorOff}</p>${problem}
<form method="post" action="/control/account/two-factor/start">${csrfField(ctx)}<button type="submit">${a.setUp}</button></form>`;
  }
  return page(ctx, {
    title: a.twoFactor,
    current: 'account',
    body: html`<h1>${a.twoFactor}</h1>
${v.mustEnrol ? html`<p class="flash doubt" role="status">${a.twoFactorRequired}</p>` : ''}
<section class="card"><p>${a.twoFactorIntro}</p>${body}</section>
${v.mustEnrol ? '' : html`<p><a href="/control/account">${ctx.m.back}</a></p>`}`,
  });
}

/** The recovery codes, shown once: the answer to the form that made them, never stored but as hashes. */
function recoveryCodesPage(ctx: PageContext, codes: readonly string[]): string {
  const a = ACCOUNT_MESSAGES[ctx.language];
  return page(ctx, {
    title: a.recoveryTitle,
    current: 'account',
    body: html`<section class="card" aria-labelledby="codes-h"><h1 id="codes-h">${a.recoveryTitle}</h1>
<p>${a.recoveryText}</p>
<ol class="codes" id="recovery-codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ol>
<p><a class="button" href="/control/requests">${a.continue}</a></p></section>`,
  });
}

/** /control/account/two-factor: set up (QR code, key, confirm), new recovery codes, turn off. */
export async function twoFactorRoutes(control: FastifyInstance): Promise<void> {
  const { repos, secretKeys, config } = control.payreq;
  const factor = twoFactor(repos, secretKeys);
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();

  async function view(request: FastifyRequest, problem?: string): Promise<TwoFactorView> {
    const me = user(request);
    const { state, recoveryCodesLeft } = await factor.state(me.id);
    const standing = await repos.adminUsers.findForSession(me.id);
    const secret = state === 'pending' ? await factor.pendingSecret(me.id) : undefined;
    return {
      state,
      required: config.controlRequire2fa || standing?.tenant_requires_2fa === true,
      mustEnrol: me.mustEnrol === true,
      recoveryCodesLeft,
      enrolment: secret ? { secret, qr: await qrDataUri(totpUri(secret, me.username)) } : undefined,
      problem,
    };
  }

  const show = async (request: FastifyRequest, reply: FastifyReply, status = 200, problem?: string) =>
    send(reply, twoFactorPage(await pageContext(request, reply), await view(request, problem)), status);

  control.get('/account/two-factor', async (request, reply) => show(request, reply));

  control.post('/account/two-factor/start', async (request, reply) => {
    const me = user(request);
    if (await factor.begin(me.id)) {
      await audit(request, { tenantId: me.tenantId, action: 'two_factor_setup', outcome: 'ok' });
    }
    return reply.redirect('/control/account/two-factor', 303);
  });

  const withCode = { schema: { body: CodeForm }, attachValidation: true };
  typed.post('/account/two-factor/confirm', withCode, async (request, reply) => {
    const me = user(request);
    const code = (request.validationError ? undefined : request.body.code) ?? '';
    const codes = await factor.confirm(me.id, code, control.controlNow());
    const ctx = await pageContext(request, reply);
    if (!codes) {
      await audit(request, {
        tenantId: me.tenantId,
        action: 'two_factor_enabled',
        outcome: 'refused',
        detail: { reason: 'wrong_code' },
      });
      return show(request, reply, 422, ACCOUNT_MESSAGES[ctx.language].codeWrong);
    }
    await audit(request, { tenantId: me.tenantId, action: 'two_factor_enabled', outcome: 'ok' });
    return send(reply, recoveryCodesPage({ ...ctx, user: { ...me, mustEnrol: false } }, codes));
  });

  /** The password asked again; a refusal answers the page with why. */
  async function confirmed(
    request: FastifyRequest,
    reply: FastifyReply,
    action: string,
    password: string,
  ): Promise<boolean> {
    const me = user(request);
    const check = await checkOwnPassword(request, password);
    if (check.ok) return true;
    const ctx = await pageContext(request, reply);
    const reason = check.retryAfterSeconds ? 'throttled' : 'wrong_password';
    await audit(request, { tenantId: me.tenantId, action, outcome: 'refused', detail: { reason } });
    if (check.retryAfterSeconds) reply.header('retry-after', String(check.retryAfterSeconds));
    await show(
      request,
      reply,
      check.retryAfterSeconds ? 429 : 403,
      check.retryAfterSeconds
        ? ctx.m.signInThrottled(check.retryAfterSeconds)
        : ACCOUNT_MESSAGES[ctx.language].wrongPassword,
    );
    return false;
  }

  const withPassword = { schema: { body: PasswordForm }, attachValidation: true };
  const passwordOf = (request: FastifyRequest, body: Static<typeof PasswordForm>) =>
    (request.validationError ? undefined : body.password) ?? '';
  typed.post('/account/two-factor/recovery-codes', withPassword, async (request, reply) => {
    const me = user(request);
    if (!(await confirmed(request, reply, 'recovery_codes_replaced', passwordOf(request, request.body)))) return reply;
    const codes = await factor.replaceRecoveryCodes(me.id);
    if (!codes) return reply.redirect('/control/account/two-factor', 303);
    await audit(request, { tenantId: me.tenantId, action: 'recovery_codes_replaced', outcome: 'ok' });
    return send(reply, recoveryCodesPage(await pageContext(request, reply), codes));
  });

  typed.post('/account/two-factor/disable', withPassword, async (request, reply) => {
    const me = user(request);
    const v = await view(request);
    if (v.required) {
      await audit(request, {
        tenantId: me.tenantId,
        action: 'two_factor_disabled',
        outcome: 'refused',
        detail: { reason: 'required' },
      });
      return show(request, reply, 403, ACCOUNT_MESSAGES[(await pageContext(request, reply)).language].cannotTurnOff);
    }
    if (!(await confirmed(request, reply, 'two_factor_disabled', passwordOf(request, request.body)))) return reply;
    const ctx = await pageContext(request, reply);
    if (await factor.turnOff(me.id)) {
      await audit(request, { tenantId: me.tenantId, action: 'two_factor_disabled', outcome: 'ok' });
      flash(request, 'ok', ACCOUNT_MESSAGES[ctx.language].turnedOff);
    }
    return reply.redirect('/control/account/two-factor', 303);
  });
}
