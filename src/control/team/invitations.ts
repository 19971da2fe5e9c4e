import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { InvitationRow } from '../../db/index.ts';
import { html } from '../../html/index.ts';
import { audit, csrfField, flash, formatDateTime, type PageContext, page, pageContext, user } from '../shell/index.ts';
import { ROLE_MESSAGES } from './words.ts';

const AnswerForm = Type.Object({
  tenant: Type.String({ format: 'uuid' }),
  answer: Type.Union([Type.Literal('accept'), Type.Literal('decline')]),
  _csrf: Type.Optional(Type.String()),
});

const HomeForm = Type.Object({
  // Empty: the hotel of the user's oldest role.
  tenant: Type.Union([Type.Literal(''), Type.String({ format: 'uuid' })]),
  _csrf: Type.Optional(Type.String()),
});

function invitationsPage(ctx: PageContext, invitations: readonly InvitationRow[], home: string | null): string {
  const r = ROLE_MESSAGES[ctx.language];
  const me = ctx.user;
  const list = invitations.length
    ? html`<ul class="invitations">${invitations.map(
        (
          i,
        ) => html`<li><strong>${r.invitedAs(i.tenant_name, r.roleNames[i.role])}</strong><br><small>${r.invitedBy(i.invited_by ?? '?', formatDateTime(i.created_at, ctx))}</small>
<form method="post" action="/control/invitations/answer" class="buttons">${csrfField(ctx)}<input type="hidden" name="tenant" value="${i.tenant_id}">
<button type="submit" name="answer" value="accept">${r.accept}</button> <button type="submit" name="answer" value="decline" class="secondary">${r.decline}</button></form></li>`,
      )}</ul>`
    : html`<p>${r.noInvitations}</p>`;
  const hotels = me?.tenants ?? [];
  const homeForm =
    hotels.length > 1
      ? html`<section class="card" aria-labelledby="home-h"><h2 id="home-h">${r.homeTitle}</h2><p>${r.homeIntro}</p>
<form method="post" action="/control/account/home">${csrfField(ctx)}
<div class="field"><label for="home">${r.homeTitle}</label><select id="home" name="tenant">
<option value=""${home ? '' : html` selected`}>${r.homeOldest}</option>${hotels.map(
          (t) => html`<option value="${t.id}"${t.id === home ? html` selected` : ''}>${t.name}</option>`,
        )}</select></div>
<button type="submit" class="secondary">${r.homeSave}</button></form></section>`
      : html``;
  return page(ctx, {
    title: r.invitationsTitle,
    body: html`<h1>${r.invitationsTitle}</h1><p>${r.invitationsIntro}</p><section class="card">${list}</section>${homeForm}`,
  });
}

/**
 * A user's invitations to other hotels, which they alone accept or decline, and their home
 * hotel (where they land after signing in), which they alone choose.
 */
export async function invitationRoutes(control: FastifyInstance): Promise<void> {
  const { repos } = control.payreq;
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();

  typed.get('/invitations', async (request, reply) => {
    const me = user(request);
    const [invitations, row] = await Promise.all([
      repos.teamInvitations.forUser(me.id),
      repos.adminUsers.findForSession(me.id),
    ]);
    const ctx = await pageContext(request, reply);
    return reply.type('text/html; charset=utf-8').send(invitationsPage(ctx, invitations, row?.home_tenant_id ?? null));
  });

  typed.post(
    '/invitations/answer',
    { schema: { body: AnswerForm }, attachValidation: true },
    async (request, reply) => {
      const me = user(request);
      const r = ROLE_MESSAGES[(await pageContext(request, reply)).language];
      if (request.validationError) {
        flash(request, 'error', r.noSuchInvitation);
        return reply.redirect('/control/invitations', 303);
      }
      const tenantId = request.body.tenant.toLowerCase();
      const accept = request.body.answer === 'accept';
      const waiting = (await repos.teamInvitations.forUser(me.id)).find((i) => i.tenant_id === tenantId);
      const role = waiting ? await repos.teamInvitations.answer(me.id, tenantId, accept) : undefined;
      if (!waiting || !role) {
        flash(request, 'error', r.noSuchInvitation);
        return reply.redirect('/control/invitations', 303);
      }
      // Filed under the inviting hotel: its managers see the answer to their invitation.
      await audit(request, {
        tenantId,
        action: accept ? 'invitation_accepted' : 'invitation_declined',
        target: me.username,
        outcome: 'ok',
        detail: { role },
      });
      flash(
        request,
        'ok',
        accept ? r.accepted(waiting.tenant_name, r.roleNames[role]) : r.declined(waiting.tenant_name),
      );
      return reply.redirect('/control/invitations', 303);
    },
  );

  typed.post('/account/home', { schema: { body: HomeForm }, attachValidation: true }, async (request, reply) => {
    const me = user(request);
    const ctx = await pageContext(request, reply);
    const r = ROLE_MESSAGES[ctx.language];
    const chosen = request.validationError ? undefined : request.body.tenant.toLowerCase() || null;
    if (chosen === undefined || !(await repos.teamInvitations.setHome(me.id, chosen))) {
      flash(request, 'error', ctx.m.invalid);
    } else {
      flash(request, 'ok', r.homeSaved);
    }
    return reply.redirect('/control/invitations', 303);
  });
}
