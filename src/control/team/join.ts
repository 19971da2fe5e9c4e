import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { adminUsers, scryptParams } from '../../admin-users/index.ts';
import type { InvitationLinkRow } from '../../db/index.ts';
import { AppError } from '../../domain/index.ts';
import { html } from '../../html/index.ts';
import { issueText } from '../account/index.ts';
import { audit, csrfField, Form, flash, formatDateTime, messagePage, page, pageContext } from '../shell/index.ts';
import { ROLE_MESSAGES } from './words.ts';

/** The link's secret: 32 random bytes in base64url, nothing else reaches the lookup. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

const JoinParams = Type.Object({ token: Type.String({ maxLength: 64 }) });
/**
 * `accept`: a signed-in user takes the role; `create`: a new account with the username and
 * password typed. Anything else, or a field sent twice, is the page again.
 */
const JoinForm = Type.Object({
  answer: Form.choice(['accept', 'create'] as const),
  username: Form.optionalText(200),
  password: Form.optionalText(1024),
  _csrf: Form.csrf,
});

const send = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

/**
 * The page an invitation's e-mail links to (/control/join/<token>), before sign-in. What its
 * holder may learn: the hotel and the role they are invited to (the e-mail said as much), and,
 * choosing a username, only that a name is not available, never whether or where it exists;
 * a link that had NAMES_REFUSED_PER_LINK names refused is spent (docs/back-office.md).
 */
export async function joinRoutes(control: FastifyInstance): Promise<void> {
  const { repos, config } = control.payreq;
  const users = adminUsers(repos, scryptParams(config.passwordHashCost));
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();

  const gone = async (request: FastifyRequest, reply: FastifyReply) => {
    const ctx = await pageContext(request, reply);
    const r = ROLE_MESSAGES[ctx.language];
    return send(reply, messagePage(ctx, r.linkGoneTitle, r.linkGone, '/control/sign-in'), 404);
  };

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    link: InvitationLinkRow,
    token: string,
    p: { issues?: readonly string[]; username?: string } = {},
    status = 200,
  ) => {
    const ctx = await pageContext(request, reply);
    const r = ROLE_MESSAGES[ctx.language];
    const me = request.controlUser;
    const role = r.roleNames[link.role];
    const action = `/control/join/${token}`;
    const mine = me
      ? html`<section class="card" aria-labelledby="join-as-h"><h2 id="join-as-h">${r.joinAsTitle}</h2>
<form method="post" action="${action}">${csrfField(ctx)}<button type="submit" name="answer" value="accept">${r.joinAs(me.username)}</button></form></section>`
      : html`<section class="card" aria-labelledby="join-as-h"><h2 id="join-as-h">${r.joinAsTitle}</h2>
<p>${r.joinSignIn}</p><p><a href="/control/sign-in">${r.signInLink}</a></p></section>`;
    const problems = p.issues?.length
      ? html`<div class="flash error" role="alert">${p.issues.map((x) => html`<p>${x}</p>`)}</div>`
      : html``;
    return send(
      reply,
      page(ctx, {
        title: r.joinTitle(link.tenant_name),
        body: html`<h1>${r.joinTitle(link.tenant_name)}</h1>
<p>${r.joinIntro(link.tenant_name, role, link.invited_by ?? link.tenant_name)}</p>
<p>${r.joinExpires(formatDateTime(link.expires_at, ctx))}</p>${problems}
${mine}
<section class="card narrow" aria-labelledby="join-new-h"><h2 id="join-new-h">${r.joinNewTitle}</h2>
<form method="post" action="${action}">${csrfField(ctx)}<input type="hidden" name="answer" value="create">
<div class="field"><label for="join-name">${r.username}</label><input id="join-name" name="username" required maxlength="64" autocomplete="username" autocapitalize="off" spellcheck="false" value="${p.username ?? ''}"></div>
<div class="field"><label for="join-pw">${r.password}</label><input id="join-pw" name="password" type="password" required minlength="12" maxlength="1024" autocomplete="new-password"></div>
<button type="submit">${r.joinCreate}</button></form></section>`,
      }),
      status,
    );
  };

  typed.get('/join/:token', { schema: { params: JoinParams }, attachValidation: true }, async (request, reply) => {
    const { token } = request.params;
    if (request.validationError || !TOKEN.test(token)) return gone(request, reply);
    const link = await repos.invitationLinks.open(tokenHash(token), control.controlNow());
    if (!link) return gone(request, reply);
    return show(request, reply, link, token);
  });

  const post = { schema: { params: JoinParams, body: JoinForm }, attachValidation: true };
  typed.post('/join/:token', post, async (request, reply) => {
    const { token } = request.params;
    if (!TOKEN.test(token ?? '')) return gone(request, reply);
    const hash = tokenHash(token);
    const now = control.controlNow();
    const ctx = await pageContext(request, reply);
    const r = ROLE_MESSAGES[ctx.language];
    const open = await repos.invitationLinks.open(hash, now);
    if (!open) return gone(request, reply);
    if (request.validationError) return show(request, reply, open, token, { issues: [ctx.m.invalid] }, 400);
    const me = request.controlUser;

    if (request.body.answer === 'accept') {
      if (!me) return show(request, reply, open, token, { issues: [r.joinSignIn] }, 401);
      if (me.superuser) return show(request, reply, open, token, { issues: [r.joinSuperuser] }, 409);
      const held = await repos.adminUsers.roles({ userId: me.id, tenantId: open.tenant_id });
      if (held.length > 0) return show(request, reply, open, token, { issues: [r.joinAlready(open.tenant_name)] }, 409);
      // One use: of two answers at once, one takes the link.
      const link = await repos.invitationLinks.claim(hash, now);
      if (!link) return gone(request, reply);
      await repos.adminUsers.setRole(me.id, link.tenant_id, link.role, { keepLastManager: false });
      await repos.invitationLinks.usedBy(link.id, me.id);
      await audit(request, {
        tenantId: link.tenant_id,
        action: 'invitation_accepted',
        target: me.username,
        outcome: 'ok',
        detail: { role: link.role, by: 'email' },
      });
      flash(request, 'ok', r.accepted(link.tenant_name, r.roleNames[link.role]));
      return reply.redirect('/control/invitations', 303);
    }

    const link = await repos.invitationLinks.claim(hash, now);
    if (!link) return gone(request, reply);
    const username = request.body.username ?? '';
    try {
      const created = await users.create({
        username,
        password: request.body.password ?? '',
        grants: [{ tenantId: link.tenant_id, role: link.role }],
      });
      await repos.invitationLinks.usedBy(link.id, created.id);
      for (const action of ['user_created', 'invitation_accepted'])
        await audit(request, {
          username: created.username,
          tenantId: link.tenant_id,
          action,
          target: created.username,
          outcome: 'ok',
          detail: { role: link.role, by: 'email' },
        });
      flash(request, 'ok', r.joinDone(link.tenant_name, r.roleNames[link.role]));
      return reply.redirect('/control/sign-in', 303);
    } catch (err) {
      if (!(err instanceof AppError) || err.httpStatus >= 500) {
        await repos.invitationLinks.release(link.id, false);
        throw err;
      }
      const taken = err.code === 'username_taken';
      // A taken name counts against the link: a few, and it is spent (no lookup of names).
      if (!(await repos.invitationLinks.release(link.id, taken))) return gone(request, reply);
      const details = (err.extra.details as { code?: string }[] | undefined) ?? [];
      const issues = taken ? [r.nameUnavailable] : details.map((d) => issueText(ctx.language, d.code ?? ''));
      return show(request, reply, link, token, { issues, username: username.slice(0, 64) }, 422);
    }
  });
}
