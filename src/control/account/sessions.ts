import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type Repositories, sessionIdHash } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import {
  audit,
  csrfField,
  Form,
  flash,
  formatDateTime,
  type PageContext,
  page,
  pageContext,
  sessionAlive,
  user,
} from '../shell/index.ts';
import { deviceSummary } from './device.ts';
import { ACCOUNT_MESSAGES } from './words.ts';

/** The session to sign out, by its row's id hash (64 hex digits); anything else ends none. */
const EndForm = Type.Object({ session: Form.optionalText(200), _csrf: Form.csrf });

/** One open session of a user, as a page shows it. */
export interface SessionView {
  /** The row's id hash: what a sign-out form names (never the session id itself). */
  idHash: string;
  userAgent: string | undefined;
  ip: string | undefined;
  signedInAt: Date | undefined;
  lastSeenAt: Date | undefined;
  current: boolean;
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * The user's signed-in sessions still within their idle and absolute limits at `now`: the
 * current one (`currentSessionId`) first, then the most recently seen.
 */
export async function userSessions(
  repos: Repositories,
  userId: string,
  now: Date,
  currentSessionId?: string,
): Promise<SessionView[]> {
  const current = currentSessionId === undefined ? undefined : sessionIdHash(currentSessionId);
  const rows = await repos.adminSessions.listForUser(userId);
  return rows
    .filter((r) =>
      sessionAlive({ signedInAt: num(r.data.signedInAt), lastSeenAt: num(r.data.lastSeenAt) }, now.getTime()),
    )
    .map((r) => {
      const signedIn = num(r.data.signedInAt);
      const lastSeen = num(r.data.lastSeenAt);
      return {
        idHash: r.id_hash,
        userAgent: text(r.data.userAgent),
        ip: text(r.data.ip),
        signedInAt: signedIn === undefined ? undefined : new Date(signedIn),
        lastSeenAt: lastSeen === undefined ? undefined : new Date(lastSeen),
        current: r.id_hash === current,
      };
    })
    .sort(
      (a, b) =>
        Number(b.current) - Number(a.current) || (b.lastSeenAt?.getTime() ?? 0) - (a.lastSeenAt?.getTime() ?? 0),
    );
}

/** The sessions as a table; with `signOut`, each session but the current one has its button. */
export function sessionsTable(ctx: PageContext, sessions: readonly SessionView[], signOut: boolean): SafeHtml {
  const a = ACCOUNT_MESSAGES[ctx.language];
  if (sessions.length === 0) return html`<p>${a.noSessions}</p>`;
  const when = (d: Date | undefined) => (d ? formatDateTime(d, ctx) : '—');
  return html`<div class="table-wrap" tabindex="0"><table><caption>${a.sessions}</caption>
<thead><tr><th scope="col">${a.device}</th><th scope="col">${a.address}</th><th scope="col">${a.signedInAt}</th><th scope="col">${a.lastSeen}</th>${
    signOut ? html`<th scope="col">${ctx.m.actions}</th>` : ''
  }</tr></thead>
<tbody>${sessions.map((s) => {
    const device = deviceSummary(s.userAgent, ctx.language);
    return html`<tr><td data-label="${a.device}">${device}${s.current ? html` <span class="status active">${a.thisSession}</span>` : ''}</td>
<td data-label="${a.address}">${s.ip ?? '—'}</td><td data-label="${a.signedInAt}">${when(s.signedInAt)}</td><td data-label="${a.lastSeen}">${when(s.lastSeenAt)}</td>${
      signOut
        ? html`<td data-label="${ctx.m.actions}">${
            s.current
              ? ''
              : html`<form method="post" action="/control/account/sessions/end">${csrfField(ctx)}<input type="hidden" name="session" value="${s.idHash}">
<button type="submit" class="secondary" aria-label="${a.signOutSessionOf(device)}">${a.signOutSession}</button></form>`
          }</td>`
        : ''
    }</tr>`;
  })}</tbody></table></div>`;
}

function sessionsPage(ctx: PageContext, sessions: readonly SessionView[]): string {
  const a = ACCOUNT_MESSAGES[ctx.language];
  const others = sessions.some((s) => !s.current);
  return page(ctx, {
    title: a.sessions,
    current: 'account',
    times: true,
    body: html`<h1>${a.sessions}</h1>
<section class="card"><p>${a.sessionsIntro}</p>
${sessionsTable(ctx, sessions, true)}
${
  others
    ? html`<form method="post" action="/control/account/sessions/end-others">${csrfField(ctx)}
<button type="submit" class="secondary">${a.signOutOthers}</button></form>`
    : html`<p>${a.noOtherSessions}</p>`
}</section>
<p><a href="/control/account">${ctx.m.back}</a></p>`,
  });
}

/** /control/account/sessions: the user's own sessions; sign out one, or every other. */
export async function sessionsRoutes(control: FastifyInstance): Promise<void> {
  const { repos } = control.payreq;
  const mine = (request: FastifyRequest) =>
    userSessions(repos, user(request).id, control.controlNow(), request.session.sessionId);

  control.get('/account/sessions', async (request, reply) => {
    const ctx = await pageContext(request, reply);
    return reply.type('text/html; charset=utf-8').send(sessionsPage(ctx, await mine(request)));
  });

  const typed = control.withTypeProvider<TypeBoxTypeProvider>();
  typed.post('/account/sessions/end', { schema: { body: EndForm }, attachValidation: true }, async (request, reply) => {
    const me = user(request);
    // Refused by the schema (sent twice, too long): no session of the user's, so none ends.
    const target = (request.validationError ? undefined : request.body.session) ?? '';
    const ctx = await pageContext(request, reply);
    // Not this session (the header's sign-out is for that), and only one of the user's own.
    const ended =
      target !== sessionIdHash(request.session.sessionId) && (await repos.adminSessions.destroyOfUser(me.id, target));
    await audit(request, { tenantId: me.tenantId, action: 'session_ended', outcome: ended ? 'ok' : 'refused' });
    if (ended) flash(request, 'ok', ACCOUNT_MESSAGES[ctx.language].sessionEnded);
    return reply.redirect('/control/account/sessions', 303);
  });

  control.post('/account/sessions/end-others', async (request, reply) => {
    const me = user(request);
    const ctx = await pageContext(request, reply);
    const count = await repos.adminSessions.destroyForUser(me.id, request.session.sessionId);
    await audit(request, { tenantId: me.tenantId, action: 'sessions_ended', outcome: 'ok', detail: { count } });
    flash(request, 'ok', ACCOUNT_MESSAGES[ctx.language].othersEnded(count));
    return reply.redirect('/control/account/sessions', 303);
  });
}
