import { html, type SafeHtml } from '../../html/index.ts';
import type { ConnectionRow, PostingRow } from '../../pms/index.ts';
import { csrfField, formatAmount, formatDateTime, mayUse, type PageContext } from '../shell/index.ts';
import { PMS_MESSAGES } from './words.ts';

/** What the settings page shows of the connection: the connection, its last posting, a refusal. */
export interface PmsSettingsView {
  connection: ConnectionRow | undefined;
  last: PostingRow | undefined;
  /** The connect form's refusal (a wrong secret, an unknown property), shown beside it. */
  problem?: string;
  /** What was typed, kept on a refusal (never the secret). */
  values?: { property_id?: string; client_id?: string; api_url?: string; identity_url?: string };
}

const RETRY_ROUTE = '/control/pms/postings/:id/retry';

function lastPostingLine(ctx: PageContext, last: PostingRow | undefined): string {
  const w = PMS_MESSAGES[ctx.language];
  if (!last) return w.noPostingYet;
  const amount = formatAmount(last.amount, last.currency, ctx);
  return last.state === 'posted'
    ? w.lastPosted(last.reference, amount, formatDateTime(last.posted_at, ctx))
    : w.lastRefused(last.reference, amount, last.reason ?? '');
}

/**
 * The settings page's Apaleo section (a manager's): "connected to property X" with the last
 * posting's result, the connect form (the secret is typed, never shown), disconnect, and the
 * rule for requests from new reservations.
 */
export function pmsSettingsSection(ctx: PageContext, tenantId: string, v: PmsSettingsView): SafeHtml {
  const w = PMS_MESSAGES[ctx.language];
  const c = v.connection;
  const hidden = html`${csrfField(ctx)}<input type="hidden" name="tenant" value="${tenantId}">`;
  const text = (name: keyof NonNullable<PmsSettingsView['values']>, label: string, value: string, required = false) =>
    html`<div class="field"><label for="pms-${name}">${label}</label>
<input id="pms-${name}" name="${name}" value="${value}" maxlength="${name.endsWith('url') ? 300 : 100}" autocomplete="off"${required ? html` required` : ''}></div>`;
  const problem = v.problem
    ? html`<p id="pms-problem" class="problem" role="alert">${w.refused(v.problem)}</p>`
    : html``;
  const rule = c?.reservation_rule ?? 'off';
  const ruleForm = c
    ? html`<h3 id="pms-rule-h">${w.ruleHeading}</h3><p class="hint">${w.ruleIntro}</p>
<form method="post" action="/control/settings/pms/reservations">${hidden}
<div class="field"><label for="pms-rule">${w.rule}</label><select id="pms-rule" name="rule">${[
        'off',
        'imprint',
        'deposit_percent',
        'deposit_nights',
      ].map(
        (r) => html`<option value="${r}"${r === rule ? html` selected` : ''}>${w.rules[r] ?? r}</option>`,
      )}</select></div>
<div class="field"><label for="pms-rule-value">${w.ruleValue}</label>
<input id="pms-rule-value" name="value" inputmode="numeric" maxlength="3" value="${c.reservation_rule_value ?? ''}"></div>
<button type="submit">${w.saveRule}</button></form>`
    : html``;
  return html`<section class="card" aria-labelledby="pms-h"><h2 id="pms-h">${w.heading}</h2>
<p>${w.intro}</p>
<p class="pms-state"><strong>${c ? w.connectedTo(`${c.property_id}${c.property_name ? ` (${c.property_name})` : ''}`) : w.notConnected}</strong></p>
${c ? html`<dl class="summary"><div><dt>${w.lastPosting}</dt><dd>${lastPostingLine(ctx, v.last)}</dd></div></dl>` : ''}
${
  c
    ? html`<form method="post" action="/control/settings/pms/disconnect">${hidden}<button type="submit" class="secondary">${w.disconnect}</button></form>`
    : ''
}
<h3 id="pms-connect-h">${c ? w.connectAgainHeading : w.connectHeading}</h3>
<p class="hint">${w.connectHint}</p>
${problem}
<form method="post" action="/control/settings/pms">${hidden}
${text('property_id', w.propertyId, v.values?.property_id ?? c?.property_id ?? '', true)}
${text('client_id', w.clientId, v.values?.client_id ?? '', true)}
<div class="field"><label for="pms-client_secret">${w.clientSecret}</label>
<input id="pms-client_secret" name="client_secret" type="password" maxlength="500" autocomplete="new-password" required></div>
${text('api_url', w.apiUrl, v.values?.api_url ?? (c && c.api_url !== 'https://api.apaleo.com' ? c.api_url : ''))}
${text('identity_url', w.identityUrl, v.values?.identity_url ?? (c && c.identity_url !== 'https://identity.apaleo.com' ? c.identity_url : ''))}
<button type="submit">${w.connect}</button></form>
${ruleForm}
</section>`;
}

function retryForm(ctx: PageContext, p: PostingRow, back: string): SafeHtml {
  const w = PMS_MESSAGES[ctx.language];
  if (p.state !== 'failed' || !mayUse(ctx.user?.standing ?? null, 'POST', RETRY_ROUTE)) return html``;
  return html`<form method="post" action="/control/pms/postings/${p.id}/retry">${csrfField(ctx)}<input type="hidden" name="back" value="${back}">
<button type="submit" class="secondary">${w.retry}</button></form>`;
}

/** A table of postings: each with its state, Apaleo's reason, and "Post again" when refused. */
function postingsTable(
  ctx: PageContext,
  caption: string,
  rows: readonly PostingRow[],
  opts: { reference: boolean; back: (p: PostingRow) => string },
): SafeHtml {
  const w = PMS_MESSAGES[ctx.language];
  const { m } = ctx;
  return html`<div class="table-wrap" tabindex="0"><table><caption>${caption}</caption>
<thead><tr>${opts.reference ? html`<th scope="col">${m.reference}</th>` : ''}<th scope="col">${w.kind}</th><th scope="col" class="num">${m.amount}</th>
<th scope="col">${w.state}</th><th scope="col">${w.reason}</th><th scope="col">${w.when}</th><th scope="col">${m.actions}</th></tr></thead>
<tbody>${rows.map(
    (
      p,
    ) => html`<tr>${opts.reference ? html`<td data-label="${m.reference}"><a href="/control/requests/${p.payment_request_id}">${p.reference}</a></td>` : ''}
<td data-label="${w.kind}">${w.kinds[p.kind] ?? p.kind}</td><td data-label="${m.amount}" class="num">${formatAmount(p.amount, p.currency, ctx)}</td>
<td data-label="${w.state}"><span class="posting ${p.state}">${w.states[p.state] ?? p.state}</span></td>
<td data-label="${w.reason}">${p.state === 'posted' ? (p.apaleo_id ?? '') : (p.reason ?? '')}</td>
<td data-label="${w.when}">${formatDateTime(p.posted_at ?? p.created_at, ctx)}</td>
<td data-label="${m.actions}">${retryForm(ctx, p, opts.back(p))}</td></tr>`,
  )}</tbody></table></div>`;
}

/** A request's postings on its Apaleo folio (none: not shown, unless there are some). */
export function requestPostingsSection(ctx: PageContext, rows: readonly PostingRow[]): SafeHtml {
  const w = PMS_MESSAGES[ctx.language];
  if (rows.length === 0) return html``;
  return html`<section class="card" aria-labelledby="pms-postings-h"><h2 id="pms-postings-h">${w.postingsHeading}</h2>
${postingsTable(ctx, w.postingsCaption, rows, { reference: false, back: (p) => p.payment_request_id })}</section>`;
}

/** Today's postings Apaleo refused for good, with its reason and "Post again" (only for a connected hotel). */
export function failedPostingsSection(ctx: PageContext, rows: readonly PostingRow[] | undefined): SafeHtml {
  const w = PMS_MESSAGES[ctx.language];
  if (rows === undefined) return html``;
  return html`<section class="card" aria-labelledby="pms-failed-h"><h2 id="pms-failed-h">${w.failedHeading}</h2>
${
  rows.length === 0
    ? html`<p>${w.noFailed}</p>`
    : html`<p>${w.failedIntro}</p>${postingsTable(ctx, w.failedHeading, rows, { reference: true, back: () => 'today' })}`
}</section>`;
}

/** The new-request page's "from an Apaleo reservation" (a GET form: it only fills the form below). */
export function prefillSection(ctx: PageContext, p: { reservation?: string; tenant?: string }): SafeHtml {
  const w = PMS_MESSAGES[ctx.language];
  return html`<section class="card narrow" aria-labelledby="pms-prefill-h"><h2 id="pms-prefill-h">${w.prefillHeading}</h2>
<p class="hint">${w.prefillHint}</p>
<form method="get" action="/control/requests/new">${p.tenant ? html`<input type="hidden" name="tenant" value="${p.tenant}">` : ''}
<div class="field"><label for="apaleo-reservation">${w.reservationId}</label>
<input id="apaleo-reservation" name="apaleo_reservation" maxlength="100" autocomplete="off" value="${p.reservation ?? ''}" required></div>
<button type="submit" class="secondary">${w.prefill}</button></form></section>`;
}
