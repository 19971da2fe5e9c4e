import type { AttemptRow, DeliveryLogRow, EndpointSummaryRow, Tenant, WebhookEndpointRow } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { EVENT_TYPES, type WebhookProblem } from '../../webhooks/index.ts';
import { csrfField, formatDateTime, type PageContext, page, tenantChooser } from '../shell/index.ts';
import { sayWebhookProblem, WEBHOOK_MESSAGES } from './words.ts';

/** A secret just made, for the one page view that shows it. */
export interface FreshSecret {
  endpointId: string;
  secret: string;
  /** Created with the endpoint, or by a rotation (then the old one signs until this time). */
  rotatedUntil?: string;
}

/**
 * An event type in the staff's words: `payment_request.captured` is "Captured",
 * `payment_request.guarantee_failed` "Guarantee failed (the bank refused the hold)". Every type
 * has its words (test/control/front-desk.test.ts checks each one in each language).
 */
export function eventName(ctx: PageContext, type: string | null): string {
  if (type === null) return WEBHOOK_MESSAGES[ctx.language].eventGone;
  const status = type.replace(/^payment_request\./, '').toUpperCase();
  return (
    WEBHOOK_MESSAGES[ctx.language].eventNames[status] ??
    ctx.m.statuses[status as keyof typeof ctx.m.statuses] ??
    status.toLowerCase()
  );
}

/** An attempt's answer: the HTTP status, with the error when there is more to say, or the error. */
function result(ctx: PageContext, a: Pick<AttemptRow, 'status_code' | 'error'>): string {
  const w = WEBHOOK_MESSAGES[ctx.language];
  if (a.status_code === null) return a.error ?? '';
  const status = w.httpStatus(a.status_code);
  return a.error && a.error !== status ? a.error : status;
}

const enc = encodeURIComponent;

function secretCard(ctx: PageContext, e: WebhookEndpointRow, fresh: FreshSecret, tz: string): SafeHtml {
  const w = WEBHOOK_MESSAGES[ctx.language];
  const rotated = fresh.rotatedUntil !== undefined;
  return html`<section class="card" aria-labelledby="new-secret-h"><h2 id="new-secret-h">${rotated ? w.rotatedTitle : w.secretTitle}</h2>
<p>${rotated ? w.rotatedText(formatDateTime(fresh.rotatedUntil ?? null, ctx, tz)) : w.secretText}</p>
<label for="new-secret">${w.secretLabel(e.url)}</label>
<input id="new-secret" class="key" readonly value="${fresh.secret}">
<p><button type="button" class="secondary" data-copy="new-secret">${ctx.m.copy}</button></p></section>`;
}

function endpointRow(ctx: PageContext, e: EndpointSummaryRow, tz: string): SafeHtml {
  const w = WEBHOOK_MESSAGES[ctx.language];
  const when = (d: Date | null) => formatDateTime(d, ctx, tz);
  const post = (action: string, label: string, name: string) =>
    html`<form method="post" action="/control/webhooks/${e.id}/${action}">${csrfField(ctx)}<button type="submit" class="secondary" aria-label="${name}">${label}</button></form>`;
  const confirm = (action: string, label: string, name: string, danger = false) =>
    html`<form method="get" action="/control/webhooks/${e.id}/confirm-${action}"><button type="submit" class="${danger ? 'danger' : 'secondary'}" aria-label="${name}">${label}</button></form>`;
  const state =
    e.status === 'disabled'
      ? html`<span class="status failed">${w.states.disabled}</span><br><small>${w.disabledOn(when(e.disabled_at))}${e.disabled_reason ? html`: ${e.disabled_reason}` : ''}</small>`
      : html`<span class="status active">${w.states.enabled}</span>${e.failing_since ? html`<br><small>${w.failingSince(when(e.failing_since))}</small>` : ''}`;
  const last = e.last_attempt_at
    ? html`${when(e.last_attempt_at)}<br><small>${result(ctx, { status_code: e.last_status_code, error: e.last_error })}</small>`
    : html`${w.noAttemptYet}`;
  const grace =
    e.previous_secret_expires_at && new Date(e.previous_secret_expires_at).getTime() > Date.now()
      ? html`<br><small>${w.oldSecretUntil(when(e.previous_secret_expires_at))}</small>`
      : '';
  return html`<tr><td data-label="${w.url}" class="wide-text"><code>${e.url}</code>${grace}</td>
<td data-label="${w.events}">${e.events.length === 0 ? w.everyEvent : e.events.map((t) => eventName(ctx, t)).join(', ')}</td>
<td data-label="${w.state}">${state}</td><td data-label="${w.lastDelivery}">${last}</td><td data-label="${w.failures}">${w.failureCounts(e.failed_deliveries, e.pending_deliveries)}</td>
<td data-label="${ctx.m.actions}"><div class="buttons"><a href="/control/webhooks/${e.id}" aria-label="${w.logOf(e.url)}">${w.log}</a>
${e.status === 'enabled' ? confirm('disable', w.disable, w.disableOf(e.url), true) : post('enable', w.enable, w.enableOf(e.url))}
${confirm('rotate', w.rotate, w.rotateOf(e.url))}</div></td></tr>`;
}

function addForm(ctx: PageContext, tenant: Tenant, given?: { url: string; events: string[] }): SafeHtml {
  const w = WEBHOOK_MESSAGES[ctx.language];
  return html`<section class="card" aria-labelledby="add-webhook-h"><h2 id="add-webhook-h">${w.addTitle}</h2>
<form method="post" action="/control/webhooks">${csrfField(ctx)}<input type="hidden" name="tenant" value="${tenant.id}">
<div class="field"><label for="webhook-url">${w.url}</label>
<input id="webhook-url" class="key" name="url" type="url" required maxlength="2000" inputmode="url" aria-describedby="webhook-url-hint" value="${given?.url ?? ''}">
<p id="webhook-url-hint" class="hint">${w.urlHint}</p></div>
<fieldset><legend>${w.eventsLegend}</legend>
<p class="hint">${w.eventsHint}</p>
${EVENT_TYPES.map(
  (t, i) =>
    html`<div class="field check"><label for="webhook-event-${i}"><input id="webhook-event-${i}" type="checkbox" name="events" value="${t}"${given?.events.includes(t) ? html` checked` : ''}> ${eventName(ctx, t)} <small><code>${t}</code></small></label></div>`,
)}
</fieldset>
<button type="submit">${w.add}</button></form></section>`;
}

/** /control/webhooks: the tenant's endpoints, a secret just made (once), and the form to add one. */
export function webhooksPage(
  ctx: PageContext,
  p: {
    tenant: Tenant;
    tenants: readonly Tenant[];
    endpoints: readonly EndpointSummaryRow[];
    fresh?: FreshSecret;
    /** The form again after a refusal: what was given, and why (shown at the top). */
    given?: { url: string; events: string[] };
    problem?: WebhookProblem;
  },
): string {
  const { m } = ctx;
  const w = WEBHOOK_MESSAGES[ctx.language];
  const tz = p.tenant.timezone;
  const freshOf = p.fresh && p.endpoints.find((e) => e.id === p.fresh?.endpointId);
  return page(
    { ...ctx, timeZone: tz },
    {
      title: w.title,
      current: 'webhooks',
      times: true,
      body: html`<h1>${w.title} · ${p.tenant.name}</h1>
${tenantChooser(ctx, '/control/webhooks', p.tenants, p.tenant.id)}
${p.problem ? html`<p class="flash error" role="alert">${sayWebhookProblem(w, p.problem)}</p>` : ''}
<p>${w.intro}</p>
${freshOf && p.fresh ? secretCard(ctx, freshOf, p.fresh, tz) : ''}
<section class="card" aria-labelledby="webhooks-h"><h2 id="webhooks-h">${w.endpoints}</h2>
${
  p.endpoints.length === 0
    ? html`<p>${w.noEndpoints}</p>`
    : html`<div class="table-wrap" tabindex="0"><table><caption>${w.endpoints}</caption>
<thead><tr><th scope="col">${w.url}</th><th scope="col">${w.events}</th><th scope="col">${w.state}</th>
<th scope="col">${w.lastDelivery}</th><th scope="col">${w.failures}</th><th scope="col">${m.actions}</th></tr></thead>
<tbody>${p.endpoints.map((e) => endpointRow(ctx, e, tz))}</tbody></table></div>`
}</section>
${addForm(ctx, p.tenant, p.given)}`,
    },
  );
}

/** The confirmation before disabling an endpoint or rotating its secret. */
export function confirmPage(ctx: PageContext, e: WebhookEndpointRow, action: 'disable' | 'rotate'): string {
  const { m } = ctx;
  const w = WEBHOOK_MESSAGES[ctx.language];
  return page(ctx, {
    title: m.confirmTitle,
    current: 'webhooks',
    body: html`<section class="card narrow" aria-labelledby="confirm-h"><h1 id="confirm-h">${m.confirmTitle}</h1>
<p class="confirm">${action === 'disable' ? w.confirmDisable(e.url) : w.confirmRotate(e.url)}</p>
<form method="post" action="/control/webhooks/${e.id}/${action}">${csrfField(ctx)}
<div class="buttons"><button type="submit" class="${action === 'disable' ? 'danger' : 'secondary'}">${action === 'disable' ? w.disable : w.rotate}</button>
<a href="/control/webhooks?tenant=${e.tenant_id}">${m.back}</a></div></form></section>`,
  });
}

function deliveryRow(ctx: PageContext, e: WebhookEndpointRow, d: DeliveryLogRow, tz: string): SafeHtml {
  const w = WEBHOOK_MESSAGES[ctx.language];
  const when = (x: Date | string) => formatDateTime(x, ctx, tz);
  const stateClass = d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'failed' : '';
  const tries = d.tries.length
    ? html`<ul>${d.tries.map((a) => html`<li>${w.attemptLine(a.attempt, when(a.started_at), result(ctx, a), a.duration_ms)}</li>`)}</ul>`
    : html`<p>${w.notTriedYet}</p>`;
  const next = d.status === 'pending' ? html`<p><small>${w.nextAttempt(when(d.next_attempt_at))}</small></p>` : '';
  const canResend = e.status === 'enabled' && d.status !== 'pending' && d.type !== null;
  return html`<tr><td data-label="${w.event}">${eventName(ctx, d.type)}<br><small>#${d.event_id}</small></td>
<td data-label="${w.delivery}"><span class="status ${stateClass}">${w.deliveryStates[d.status] ?? d.status}</span></td>
<td data-label="${w.attempts}">${tries}${next}</td>
<td data-label="${ctx.m.actions}">${
    canResend
      ? html`<form method="post" action="/control/webhooks/${e.id}/deliveries/${d.id}/resend">${csrfField(ctx)}<button type="submit" class="secondary" aria-label="${w.resendOf(d.event_id)}">${w.resend}</button></form>`
      : ''
  }</td></tr>`;
}

/** /control/webhooks/:id: the endpoint's deliveries, newest first, each with its attempts. */
export function deliveryLogPage(
  ctx: PageContext,
  p: {
    tenant: Tenant;
    endpoint: WebhookEndpointRow;
    deliveries: readonly DeliveryLogRow[];
    older?: string;
    paged: boolean;
  },
): string {
  const { m } = ctx;
  const w = WEBHOOK_MESSAGES[ctx.language];
  const e = p.endpoint;
  return page(
    { ...ctx, timeZone: p.tenant.timezone },
    {
      title: w.log,
      current: 'webhooks',
      times: true,
      body: html`<h1>${w.log} · ${p.tenant.name}</h1>
<section class="card"><dl class="summary"><div><dt>${w.endpoint}</dt><dd><code>${e.url}</code></dd></div>
<div><dt>${w.state}</dt><dd>${w.states[e.status] ?? e.status}</dd></div></dl>
<p>${w.logIntro}</p></section>
<section class="card" aria-labelledby="log-h"><h2 id="log-h">${w.log}</h2>
${
  p.deliveries.length === 0
    ? html`<p>${w.noDeliveries}</p>`
    : html`<div class="table-wrap" tabindex="0"><table><caption>${w.logOf(e.url)}</caption>
<thead><tr><th scope="col">${w.event}</th><th scope="col">${w.delivery}</th><th scope="col">${w.attempts}</th><th scope="col">${m.actions}</th></tr></thead>
<tbody>${p.deliveries.map((d) => deliveryRow(ctx, e, d, p.tenant.timezone))}</tbody></table></div>`
}
<p class="pager">${p.paged ? html`<a href="/control/webhooks/${e.id}">${w.newest}</a> ` : ''}${
        p.older ? html`<a href="/control/webhooks/${e.id}?before=${enc(p.older)}">${w.older}</a>` : ''
      }</p></section>
<p><a href="/control/webhooks?tenant=${e.tenant_id}">${w.backToList}</a></p>`,
    },
  );
}
