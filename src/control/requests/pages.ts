import type {
  BooksIncidentRow,
  ControlDetailRow,
  ControlListRow,
  HistoryRow,
  LedgerRow,
  ReminderHistoryRow,
  SearchMatch,
  Tenant,
} from '../../db/index.ts';
import {
  holdIsLive,
  isDeclineReason,
  isMoneyReason,
  MAX_REASON_NOTE,
  MONEY_REASONS,
  type MoveReason,
  REQUEST_TYPES,
  STATUSES,
  type Status,
  triggersOf,
} from '../../domain/index.ts';
import { noHoldWillBePlaced } from '../../holds/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import type { PostingRow } from '../../pms/index.ts';
import { requestIncidents } from '../books/index.ts';
import { requestPostingsSection } from '../pms/index.ts';
import {
  amountInWords,
  csrfField,
  formatAmount,
  formatDateTime,
  formatDay,
  leastRoleFor,
  mayUse,
  type PageContext,
  page,
} from '../shell/index.ts';
import { reminderHistoryRows } from '../today/index.ts';
import { AMOUNT_ACTIONS, allowedActions, fullAmount, type RequestAction } from './actions.ts';
import { guaranteeFilter, guaranteeNotice } from './guarantee-notice.ts';
import { holdChain } from './hold-chain.ts';
import { movedAmount, movesMoney } from './money-moved.ts';
import { REASON_MESSAGES } from './reason-words.ts';
import { refusalNotice } from './refusal-notice.ts';
import { REFUSAL_CONTROL_MESSAGES } from './refusal-words.ts';
import { type LinkedRequest, newLinkForm, replacementLinks } from './replacement-links.ts';
import { REQUESTS_MESSAGES } from './words.ts';

/** Whether the signed-in user's role reaches a route: buttons they could not use are not shown. */
const may = (ctx: PageContext, method: string, url: string, action?: string) =>
  mayUse(ctx.user?.standing ?? null, method, url, action);

/** The bulk buttons the user's role may use; none: no fieldset. */
function bulkButtons(ctx: PageContext): SafeHtml {
  const { m } = ctx;
  const w = REQUESTS_MESSAGES[ctx.language];
  const buttons = (
    [
      ['capture', w.bulkCapture],
      ['release', w.bulkRelease],
      ['refund', w.bulkRefund],
    ] as const
  ).filter(([action]) => may(ctx, 'POST', '/control/bulk', action));
  if (buttons.length === 0) return html``;
  return html`<fieldset class="buttons"><legend>${m.bulkActions}</legend>
${buttons.map(([action, label]) => html`<button type="submit" name="action" value="${action}" class="secondary">${label}</button>`)}
</fieldset>`;
}

export interface ListQuery {
  tenant?: string;
  status?: string;
  type?: string;
  q?: string;
  created_from?: string;
  created_to?: string;
  checkin_from?: string;
  checkin_to?: string;
  /** `failed`: only failed guarantees waiting for a new card. */
  guarantee?: string;
}

export type DetailRow = ControlDetailRow;

const statusBadge = (s: string, ctx: PageContext) =>
  html`<span class="status ${s}">${ctx.m.statuses[s as keyof typeof ctx.m.statuses] ?? s}</span>`;

/** A hold freed reads "Released", not "Cancelled": the move the transition table calls a release. */
const isRelease = (h: { from_status: string | null; to_status: string }) =>
  triggersOf(h.from_status as Status | null, h.to_status as Status).includes('release');
const releasedBadge = (ctx: PageContext) =>
  html`<span class="status CANCELLED">${REQUESTS_MESSAGES[ctx.language].released}</span>`;
/**
 * The list has no history: a CANCELLED request whose hold was placed can only have been freed
 * by a release (the table lets a placed hold end in CANCELLED by no other move).
 */
const listStatusBadge = (r: { status: string; hold_expires_at: Date | null }, ctx: PageContext) =>
  r.status === 'CANCELLED' && r.hold_expires_at !== null ? releasedBadge(ctx) : statusBadge(r.status, ctx);

function tenantPicker(ctx: PageContext, tenants: readonly Tenant[], selected: string | undefined): SafeHtml {
  if (!ctx.user || ctx.user.tenantId !== null) return html``;
  return html`<div class="field"><label for="f-tenant">${ctx.m.tenant}</label>
<select id="f-tenant" name="tenant"><option value="">${REQUESTS_MESSAGES[ctx.language].allTenants}</option>${tenants.map(
    (t) => html`<option value="${t.id}"${t.id === selected ? html` selected` : ''}>${t.name}</option>`,
  )}</select></div>`;
}

function filters(ctx: PageContext, q: ListQuery, tenants: readonly Tenant[]): SafeHtml {
  const { m } = ctx;
  const w = REQUESTS_MESSAGES[ctx.language];
  const input = (id: keyof ListQuery, label: string, type = 'date') =>
    html`<div class="field"><label for="f-${id}">${label}</label><input id="f-${id}" name="${id}" type="${type}" value="${q[id] ?? ''}"></div>`;
  // Folded on a phone unless a filter is in use (then what filters the list shows): the list
  // starts on the first screen. Open on a wide screen whatever (styles.ts, .fold).
  const inUse = Object.entries(q).some(([k, v]) => k !== 'after' && v);
  return html`<form method="get" action="/control/requests" class="card" aria-labelledby="filters-h">
<details class="fold"${inUse ? html` open` : ''}><summary><h2 id="filters-h">${w.filters}</h2></summary>
<div class="filters">
<div class="field wide"><label for="f-q">${w.search}</label>
<input id="f-q" name="q" type="search" value="${q.q ?? ''}" maxlength="100" aria-describedby="f-q-hint">
<p id="f-q-hint" class="hint">${w.searchHint}</p></div>
${tenantPicker(ctx, tenants, q.tenant)}
<div class="field"><label for="f-status">${m.status}</label><select id="f-status" name="status">
<option value="">${w.any}</option>${STATUSES.map((s) => html`<option value="${s}"${s === q.status ? html` selected` : ''}>${m.statuses[s]}</option>`)}
</select></div>
<div class="field"><label for="f-type">${m.type}</label><select id="f-type" name="type">
<option value="">${w.any}</option>${REQUEST_TYPES.map((s) => html`<option value="${s}"${s === q.type ? html` selected` : ''}>${m.types[s]}</option>`)}
</select></div>
${input('created_from', w.createdFrom)}${input('created_to', w.createdTo)}
${input('checkin_from', w.checkinFrom)}${input('checkin_to', w.checkinTo)}
${guaranteeFilter(ctx, q.guarantee)}
</div>
<div class="buttons"><button type="submit">${m.apply}</button> <a href="/control/requests">${w.reset}</a></div>
</details>
</form>`;
}

export function listPage(
  pageCtx: PageContext,
  p: {
    query: ListQuery;
    rows: readonly ControlListRow[];
    /** How the search text was matched: said on the page when it was by its start. */
    match?: SearchMatch;
    next?: string;
    tenants: readonly Tenant[];
    firstPage: boolean;
    /** Names this form's bulk submission: sent twice, it is still one batch. */
    batchId: string;
    /** The filter's totals and export links (undefined totals: too many requests to sum). */
    totals: SafeHtml;
  },
): string {
  // One zone on the page: the hotel's, or the one a superuser filters on; else the user's (UTC).
  const chosen = p.query.tenant ? p.tenants.find((t) => t.id === p.query.tenant) : undefined;
  const ctx = chosen ? { ...pageCtx, timeZone: chosen.timezone } : pageCtx;
  const { m } = ctx;
  const w = REQUESTS_MESSAGES[ctx.language];
  const allTenants = ctx.user?.tenantId === null;
  const table =
    p.rows.length === 0
      ? html`<p>${w.noRequests}</p>`
      : html`<form method="post" action="/control/bulk">${csrfField(ctx)}<input type="hidden" name="batch" value="${p.batchId}">
<div class="table-wrap" tabindex="0"><table>
<caption>${m.navRequests}</caption>
<thead><tr><th scope="col"><input type="checkbox" id="select-all" aria-label="${w.select}"></th>
<th scope="col">${m.reference}</th>${allTenants ? html`<th scope="col">${m.tenant}</th>` : ''}<th scope="col">${m.status}</th><th scope="col">${m.guest}</th>
<th scope="col" class="num">${m.amount}</th><th scope="col">${m.reservation}</th><th scope="col">${m.checkin}</th><th scope="col">${m.created}</th></tr></thead>
<tbody>${p.rows.map(
          (r) => html`<tr>
<td data-label="${w.select}"><input type="checkbox" name="ids" value="${r.id}" aria-label="${w.selectRow(r.reference)}"></td>
<td data-label="${m.reference}"><a href="/control/requests/${r.id}">${r.reference}</a><br><small>${m.types[r.request_type]}</small></td>
${allTenants ? html`<td data-label="${m.tenant}">${r.tenant_name}</td>` : ''}
<td data-label="${m.status}">${listStatusBadge(r, ctx)}</td>
<td data-label="${m.guest}">${r.guest_first_name} ${r.guest_last_name}<br><small>${r.guest_email}</small></td>
<td data-label="${m.amount}" class="num">${formatAmount(r.amount, r.currency, ctx)}</td>
<td data-label="${m.reservation}">${r.reservation_ref}</td>
<td data-label="${m.checkin}">${formatDay(r.checkin, ctx)}</td>
<td data-label="${m.created}">${formatDateTime(r.created_at, ctx)}</td>
</tr>`,
        )}</tbody></table></div>
${bulkButtons(ctx)}
</form>`;
  return page(ctx, {
    title: m.navRequests,
    current: 'requests',
    times: true,
    body: html`<h1>${m.navRequests}</h1>
${may(ctx, 'GET', '/control/requests/new') ? html`<p><a class="button" href="/control/requests/new">${m.newRequest}</a></p>` : ''}
${filters(ctx, p.query, p.tenants)}
<section class="card">${p.match === 'prefix' && p.query.q ? html`<p class="hint" role="status">${w.searchPrefix(p.query.q.trim())}</p>` : ''}${table}
<nav class="pager" aria-label="${m.navRequests}">${p.firstPage ? '' : html`<a href="${firstPageUrl(p.query)}">${w.firstPage}</a>`}${p.next ? html`<a href="${p.next}" rel="next">${m.nextPage}</a>` : ''}</nav>
</section>
${p.totals}`,
  });
}

function firstPageUrl(q: ListQuery): string {
  const params = new URLSearchParams(Object.entries(q).filter(([, v]) => v) as [string, string][]);
  return `/control/requests${params.size > 0 ? `?${params}` : ''}`;
}

function actionForm(ctx: PageContext, row: DetailRow, action: RequestAction): SafeHtml {
  const { m } = ctx;
  const w = REQUESTS_MESSAGES[ctx.language];
  const label = {
    capture: m.capture,
    release: m.release,
    refund: m.refund,
    cancel: w.cancel,
    delete: w.delete,
    resend: w.resend,
  }[action];
  const id = `amount-${action}`;
  // GET: the form asks for a confirmation page; the action itself is the POST from that page.
  return html`<form method="get" action="/control/requests/${row.id}/confirm">
<input type="hidden" name="action" value="${action}">
${action === 'resend' ? html`<p class="hint">${w.resendGoesTo(row.guest_email)}</p>` : ''}
${
  AMOUNT_ACTIONS.has(action)
    ? html`<div class="field"><label for="${id}">${w.amountOptional}</label>
<input id="${id}" name="amount" inputmode="decimal" pattern="[0-9]+([.,][0-9]{1,2})?" size="10" aria-describedby="${id}-hint">
<p id="${id}-hint" class="hint">≤ ${formatAmount(fullAmount(action, row), row.currency, ctx)}</p></div>
${reasonFields(ctx, action)}`
    : ''
}
<button type="submit" class="${action === 'delete' || action === 'cancel' ? 'danger' : 'secondary'}">${label}</button>
</form>`;
}

/**
 * Why the money moves: the closed list (none given by default) and a free note. The one form of
 * a reason: a single move's question and the bulk confirmation both show it.
 */
export function reasonFields(ctx: PageContext, action: RequestAction): SafeHtml {
  const r = REASON_MESSAGES[ctx.language];
  return html`<div class="field"><label for="reason-${action}">${r.reason}</label>
<select id="reason-${action}" name="reason"><option value="">${r.noReason}</option>${MONEY_REASONS.map(
    (reason) => html`<option value="${reason}">${r.reasons[reason]}</option>`,
  )}</select></div>
<div class="field"><label for="note-${action}">${r.note}</label>
<input id="note-${action}" name="note" maxlength="${MAX_REASON_NOTE}" aria-describedby="note-${action}-hint">
<p id="note-${action}-hint" class="hint">${r.noteHint}</p></div>`;
}

/** A capture's or refund's reason and note, under its history row (its detail keeps what was given). */
function moveReasonLine(ctx: PageContext, h: HistoryRow): SafeHtml | '' {
  const reason = h.detail?.reason;
  const note = typeof h.detail?.note === 'string' ? h.detail.note : '';
  if (!isMoneyReason(reason) && !note) return '';
  const r = REASON_MESSAGES[ctx.language];
  const said = isMoneyReason(reason) ? r.reasons[reason] : r.noReason;
  return html`<br><small class="reason">${r.because(said)}${note ? html` · ${note}` : ''}</small>`;
}

function summary(ctx: PageContext, row: DetailRow, released: boolean): SafeHtml {
  const { m } = ctx;
  const w = REQUESTS_MESSAGES[ctx.language];
  const item = (label: string, value: unknown) =>
    html`<div><dt>${label}</dt><dd>${value === null || value === undefined || value === '' ? '—' : String(value)}</dd></div>`;
  const money = (c: number) => formatAmount(c, row.currency, ctx);
  return html`<dl class="summary">
${item(m.reference, row.reference)}${item(m.type, m.types[row.request_type])}
${html`<div><dt>${m.status}</dt><dd>${released ? releasedBadge(ctx) : statusBadge(row.status, ctx)}</dd></div>`}
${item(m.tenant, row.tenant_name)}
${item(m.amount, money(row.amount))}${item(w.captured, money(row.amount_captured))}${item(w.refunded, money(row.amount_refunded))}
${item(m.guest, `${row.guest_first_name} ${row.guest_last_name}`)}${item(m.email, row.guest_email)}${item(m.phone, row.guest_phone)}
${item(m.guestLanguage, languageName(ctx, row.language))}${item(m.reservation, row.reservation_ref)}${item(m.checkin, formatDay(row.checkin, ctx))}
${item(w.card, row.masked_pan ? `${row.masked_pan}${row.card_expiry_month ? ` (${String(row.card_expiry_month).padStart(2, '0')}/${row.card_expiry_year})` : ''}` : '')}
${item(w.holdExpires, row.hold_expires_at && holdIsLive(row.status) ? formatDateTime(row.hold_expires_at, ctx) : '')}
${item(w.linkExpires, formatDateTime(row.link_expires_at, ctx))}
${item(m.created, formatDateTime(row.created_at, ctx))}
</dl>`;
}

/** A language by its name in the reader's language: "English", "anglais", "Englisch", not "en". */
function languageName(ctx: PageContext, code: string): string {
  return new Intl.DisplayNames([ctx.m.locale], { type: 'language' }).of(code) ?? code;
}

function reservationData(ctx: PageContext, data: Record<string, unknown>): SafeHtml {
  const entries = Object.entries(data ?? {});
  if (entries.length === 0) return html`<p>${REQUESTS_MESSAGES[ctx.language].nothing}</p>`;
  // Readable: one line per key; nested values as indented JSON. Escaped like any other text.
  return html`<dl class="summary">${entries.map(
    ([k, v]) =>
      html`<div><dt>${REQUESTS_MESSAGES[ctx.language].reservationKeys[k] ?? k}</dt><dd>${typeof v === 'object' && v !== null ? html`<pre>${JSON.stringify(v, null, 2)}</pre>` : typeof v === 'string' ? formatDay(v, ctx) : String(v)}</dd></div>`,
  )}</dl>`;
}

/**
 * Why an operation did not go through, for staff: a refused hold's reason in their language
 * (its history row keeps it). The provider's own message (English, or a code) only where there
 * are no words, or the words are "other", which say nothing more.
 */
function ledgerError(ctx: PageContext, l: LedgerRow, history: readonly HistoryRow[]): SafeHtml | '' {
  if (!l.error) return '';
  const reason = history.find((h) => h.ledger_id === l.id)?.detail?.decline_reason;
  if (!isDeclineReason(reason)) return html`<br><small><code>${l.error}</code></small>`;
  const words = REQUESTS_MESSAGES[ctx.language].declineReasons[reason];
  return html`<br><small>${words}${reason === 'other' ? html` (<code>${l.error}</code>)` : ''}</small>`;
}

/**
 * Who made a change, in words: a person by name; a job or the provider by what it is ("Holds
 * before arrival", "Lyra"), never its code; nobody more for the PMS (the source says "PMS (API)";
 * its key's prefix is a code) or the guest.
 */
function actorWords(ctx: PageContext, source: string, actor: string | null): string {
  if (!actor || source === 'api' || source === 'guest') return '';
  if (source === 'admin') return actor;
  return REQUESTS_MESSAGES[ctx.language].actors[actor] ?? (/^[a-z][a-z0-9_:-]*$/.test(actor) ? '' : actor);
}

/** The provider by its name. */
function providerName(ctx: PageContext, provider: string): string {
  return REQUESTS_MESSAGES[ctx.language].actors[provider] ?? provider;
}

function ledgerTable(
  ctx: PageContext,
  row: DetailRow,
  ledger: readonly LedgerRow[],
  history: readonly HistoryRow[],
): SafeHtml {
  const { m } = ctx;
  const w = REQUESTS_MESSAGES[ctx.language];
  if (ledger.length === 0 && row.status === 'REFUSED') {
    return html`<p>${REFUSAL_CONTROL_MESSAGES[ctx.language].noMoneyMoved}</p>`;
  }
  if (ledger.length === 0) return html`<p>${w.noLedger}</p>`;
  return html`<div class="table-wrap" tabindex="0"><table><caption>${w.ledger}</caption>
<thead><tr><th scope="col">${m.when}</th><th scope="col">${m.kind}</th><th scope="col" class="num">${m.amount}</th><th scope="col">${w.state}</th>
<th scope="col">${w.providerColumn}</th><th scope="col">${m.who}</th><th scope="col">${w.incident}</th></tr></thead>
<tbody>${ledger.map(
    (
      l,
    ) => html`<tr${l.incident ? html` class="incident"` : ''}><td data-label="${m.when}">${formatDateTime(l.created_at, ctx)}</td><td data-label="${m.kind}">${m.ledgerKinds[l.kind] ?? l.kind}</td>
<td data-label="${m.amount}" class="num">${formatAmount(movedAmount(l, ledger, row.amount), l.currency || row.currency, ctx)}</td><td data-label="${w.state}"><span class="status ${l.state}">${w.ledgerStates[l.state] ?? l.state}</span>${ledgerError(ctx, l, history)}</td>
<td data-label="${w.providerColumn}">${providerName(ctx, l.provider)}</td><td data-label="${m.who}">${w.sources[l.source] ?? l.source}${actorWords(ctx, l.source, l.actor) ? ` · ${actorWords(ctx, l.source, l.actor)}` : ''}</td><td data-label="${w.incident}">${l.incident ? html`<strong>${w.incident}</strong><br><small><code>${l.incident}</code></small>` : ''}</td></tr>`,
  )}</tbody></table></div>`;
}

function historyTable(
  ctx: PageContext,
  row: DetailRow,
  history: readonly HistoryRow[],
  ledger: readonly LedgerRow[],
  reminders: readonly ReminderHistoryRow[],
): SafeHtml {
  const { m } = ctx;
  const w = REQUESTS_MESSAGES[ctx.language];
  // Reminders (e-mails) take their place among the status changes, by time.
  const changes = history.map((h) => ({ at: new Date(h.created_at), row: historyRow(ctx, h, row, ledger) }));
  const labels = { when: m.when, from: w.from, to: w.to, money: w.moneyMoved, source: w.source, who: m.who };
  const rows = [...changes, ...reminderHistoryRows(ctx, reminders, ctx.timeZone, labels)].sort(
    (a, b) => a.at.getTime() - b.at.getTime(),
  );
  return html`<div class="table-wrap" tabindex="0"><table><caption>${w.history}</caption>
<thead><tr><th scope="col">${m.when}</th><th scope="col">${w.from}</th><th scope="col">${w.to}</th><th scope="col" class="num">${w.moneyMoved}</th><th scope="col">${w.source}</th><th scope="col">${m.who}</th></tr></thead>
<tbody>${rows.map((r) => r.row)}</tbody></table></div>`;
}

/** A refused hold's reason and the provider's code, under its history row; a soft one is tried again. */
function declined(ctx: PageContext, h: HistoryRow): SafeHtml | '' {
  const reason = h.detail?.decline_reason;
  if (!isDeclineReason(reason)) return '';
  const w = REQUESTS_MESSAGES[ctx.language];
  const code = typeof h.detail?.decline_code === 'string' ? h.detail.decline_code : null;
  const again = h.from_status === h.to_status ? html` · ${w.triedAgain}` : '';
  // The code only after "other": the words say all the others do.
  return html`<br><small>${w.declineReasons[reason]}${code && reason === 'other' ? html` (<code>${code}</code>)` : ''}${again}</small>`;
}

/**
 * The money a status change moved, from its ledger row: "Refund: €40.00" on a partial refund
 * (which keeps CAPTURED), the hold freed by a release, what a partial capture left on the card.
 */
function moneyOfChange(ctx: PageContext, h: HistoryRow, row: DetailRow, ledger: readonly LedgerRow[]): SafeHtml | '' {
  const l = h.ledger_id === null ? undefined : ledger.find((x) => x.id === h.ledger_id);
  if (!l || !movesMoney(l)) return '';
  const { m } = ctx;
  const w = REQUESTS_MESSAGES[ctx.language];
  const currency = l.currency || row.currency;
  const cents = movedAmount(l, ledger, row.amount);
  const state = l.state === 'succeeded' ? '' : html`<br><small>${w.ledgerStates[l.state] ?? l.state}</small>`;
  const rest =
    l.kind === 'capture' && l.state === 'succeeded' && row.request_type === 'IMPRINT' && cents < row.amount
      ? html`<br><small>${w.restFreed(formatAmount(row.amount - cents, currency, ctx))}</small>`
      : '';
  return html`${w.moved(m.ledgerKinds[l.kind] ?? l.kind, formatAmount(cents, currency, ctx))}${state}${rest}`;
}

function historyRow(ctx: PageContext, h: HistoryRow, row: DetailRow, ledger: readonly LedgerRow[]): SafeHtml {
  const w = REQUESTS_MESSAGES[ctx.language];
  return html`<tr${h.to_status === 'INCIDENT' ? html` class="incident"` : ''}><td data-label="${ctx.m.when}">${formatDateTime(h.created_at, ctx)}</td>
<td data-label="${w.from}">${h.from_status ? statusBadge(h.from_status, ctx) : '—'}</td><td data-label="${w.to}">${h.to_status === 'INCIDENT' ? html`<strong>${w.incident}</strong>${typeof h.detail?.incident === 'string' ? html`<br><small><code>${h.detail.incident}</code></small>` : ''}` : isRelease(h) ? releasedBadge(ctx) : html`${statusBadge(h.to_status, ctx)}${declined(ctx, h)}${moveReasonLine(ctx, h)}`}</td>
<td data-label="${w.moneyMoved}" class="num">${moneyOfChange(ctx, h, row, ledger)}</td>
<td data-label="${w.source}">${w.sources[h.source] ?? h.source}</td><td data-label="${ctx.m.who}">${actorWords(ctx, h.source, h.actor)}</td></tr>`;
}

/**
 * What the status allows that the user's role does not, said by the role that could: a front
 * desk on a captured deposit reads that a manager could refund it, not that nothing is possible.
 */
function higherRoles(ctx: PageContext, shown: readonly RequestAction[], withheld: readonly RequestAction[]): SafeHtml {
  if (withheld.length === 0) return html``;
  const w = REQUESTS_MESSAGES[ctx.language];
  const byRole = new Map<string, RequestAction[]>();
  for (const a of withheld) {
    const role = leastRoleFor('POST', '/control/requests/:id/:action', a) ?? 'superuser';
    byRole.set(role, [...(byRole.get(role) ?? []), a]);
  }
  const list = new Intl.ListFormat(ctx.m.locale, { type: 'disjunction' });
  const roleName = (r: string) => ctx.m.roleNames[r as 'manager'] ?? r;
  const mine = roleName(ctx.user?.standing ?? 'viewer');
  const lines = [...byRole].map(([role, actions]) =>
    w.higherRoleCould(roleName(role), list.format(actions.map((a) => w.actionPhrases[a]))),
  );
  return html`${shown.length === 0 ? html`<p>${w.notForYourRole(mine)}</p>` : ''}${lines.map(
    (l) => html`<p class="hint">${l}</p>`,
  )}`;
}

export function detailPage(
  pageCtx: PageContext,
  p: {
    row: DetailRow;
    history: readonly HistoryRow[];
    ledger: readonly LedgerRow[];
    /** Its books incidents (a disagreement with the provider found by a books check). */
    incidents?: readonly BooksIncidentRow[];
    /** The guest's payment page, while the link can still be paid: to copy into a message. */
    paymentLink?: string;
    /** Its reminders (docs/e-mail.md, "Reminders"), shown in its history. */
    reminders?: readonly ReminderHistoryRow[];
    /** Its postings on the reservation's Apaleo folio (docs/apaleo.md). */
    postings?: readonly PostingRow[];
    /** The request it replaces and the one that replaced it ("Send a new link"). */
    links?: { replaces?: LinkedRequest; replacedBy?: LinkedRequest };
  },
): string {
  const { row } = p;
  // One zone on the page, the hotel's (a superuser's too): the details, ledger, history, books.
  const ctx = { ...pageCtx, timeZone: row.tenant_timezone };
  const { m } = ctx;
  const w = REQUESTS_MESSAGES[ctx.language];
  // What the status allows and the user's role may do (route-roles.ts); the route refuses the rest.
  const possible = allowedActions(row);
  const actions = possible.filter((a) => may(ctx, 'POST', '/control/requests/:id/:action', a));
  const withheld = possible.filter((a) => !actions.includes(a));
  return page(ctx, {
    title: row.reference,
    current: 'requests',
    times: true,
    body: html`<p><a href="/control/requests">${m.back}</a></p>
<h1>${row.reference}</h1>
${noHoldWillBePlaced(row) ? html`<p class="flash error" role="status">${w.noHoldWillBePlaced}</p>` : ''}
${guaranteeNotice(ctx, row, p.ledger)}
${refusalNotice(ctx, row, p.history)}
<section class="card" aria-labelledby="details-h"><h2 id="details-h">${m.details}</h2>${summary(ctx, row, p.history.some(isRelease))}${replacementLinks(ctx, p.links ?? {})}</section>
${
  p.paymentLink
    ? html`<section class="card" aria-labelledby="link-h"><h2 id="link-h">${w.paymentLinkLabel}</h2>
<p><input id="payment-link" class="key" readonly value="${p.paymentLink}" aria-labelledby="link-h"></p>
<p><button type="button" class="secondary" data-copy="payment-link">${m.copy}</button></p></section>`
    : ''
}
<section class="card" aria-labelledby="actions-h"><h2 id="actions-h">${m.actions}</h2>
${newLinkForm(ctx, row)}
${possible.length === 0 ? html`<p>${w.noActions}</p>` : ''}${actions.length > 0 ? html`<div class="actions">${actions.map((a) => actionForm(ctx, row, a))}</div>` : ''}
${higherRoles(ctx, actions, withheld)}
</section>
<section class="card" aria-labelledby="data-h"><h2 id="data-h">${w.reservationData}</h2>${reservationData(ctx, row.reservation_data)}</section>
${requestIncidents(ctx, p.incidents ?? [])}
${requestPostingsSection(ctx, p.postings ?? [])}
${holdChain(ctx, row, p.ledger)}
<section class="card" aria-labelledby="ledger-h"><h2 id="ledger-h">${w.ledger}</h2>${ledgerTable(ctx, row, p.ledger, p.history)}</section>
<section class="card" aria-labelledby="history-h"><h2 id="history-h">${w.history}</h2>${historyTable(ctx, row, p.history, p.ledger, p.reminders ?? [])}</section>`,
  });
}

/** The reason the confirmation will record, as chosen (or that none is given). */
function confirmReason(ctx: PageContext, why: MoveReason | undefined): SafeHtml {
  const r = REASON_MESSAGES[ctx.language];
  const said = why?.reason ? r.reasons[why.reason] : r.noReason;
  return html`<p class="reason">${r.because(said)}${why?.note ? html` · ${why.note}` : ''}</p>`;
}

/**
 * What a money action's question rests on, before it: whose money, what is held or captured,
 * what moves now and what is left (a partial capture frees the rest of the hold on the card).
 */
function moneyFacts(ctx: PageContext, row: DetailRow, action: RequestAction, cents: number): SafeHtml | '' {
  const w = REQUESTS_MESSAGES[ctx.language];
  const money = (c: number) => formatAmount(c, row.currency, ctx);
  const guest = html`<div><dt>${ctx.m.guest}</dt><dd>${row.guest_first_name} ${row.guest_last_name}<br><small>${row.guest_email}</small></dd></div>`;
  const item = (label: string, value: string) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`;
  if (action === 'capture') {
    const rest = row.amount - cents;
    return html`<dl class="summary facts">${guest}${item(w.factHeld, money(row.amount))}${item(w.factCaptureNow, money(cents))}
${item(w.factRest, rest > 0 ? w.restOfHoldFreed(money(rest)) : w.noRest)}</dl>`;
  }
  if (action === 'release') {
    return html`<dl class="summary facts">${guest}${item(w.factHeld, money(cents))}${item(w.factCharged, money(0))}</dl>`;
  }
  if (action === 'refund') {
    const left = row.amount_captured - row.amount_refunded - cents;
    return html`<dl class="summary facts">${guest}${item(w.captured, money(row.amount_captured))}${item(w.refunded, money(row.amount_refunded))}
${item(w.factRefundNow, money(cents))}${item(w.factLeft, money(left))}</dl>`;
  }
  return '';
}

/**
 * A resend's first line is where the link goes; the address can be corrected in the same form
 * (a typo the guest pointed out), checked as the API checks it.
 */
function resendFields(ctx: PageContext, row: DetailRow, given?: { email: string; problem?: string }): SafeHtml {
  const w = REQUESTS_MESSAGES[ctx.language];
  const problem = given?.problem;
  return html`<div class="field"><label for="guest-email">${w.guestEmailLabel}</label>
<input id="guest-email" name="guest_email" type="email" required maxlength="254" autocomplete="off" value="${given?.email ?? row.guest_email}" aria-describedby="guest-email-hint${problem ? ' guest-email-problem' : ''}"${problem ? html` aria-invalid="true"` : ''}>
<p id="guest-email-hint" class="hint">${w.guestEmailHint}</p>
${problem ? html`<p id="guest-email-problem" class="problem">${problem}</p>` : ''}</div>`;
}

/** The question before any action, with the amount in words: a slipped digit reads differently. */
export function confirmPage(
  ctx: PageContext,
  p: {
    row: DetailRow;
    action: RequestAction;
    cents?: number;
    nonce: string;
    /** A resend's address as given, and why it was refused: the page again, the problem beside it. */
    email?: { email: string; problem?: string };
    why?: MoveReason;
  },
): string {
  const { m } = ctx;
  const w = REQUESTS_MESSAGES[ctx.language];
  const { row, action } = p;
  const cents = p.cents ?? fullAmount(action, row);
  const words = `${amountInWords(cents, row.currency, ctx.language, m.money)} (${formatAmount(cents, row.currency, ctx)})`;
  const question = {
    capture: w.confirmCapture(words, row.reference),
    release: w.confirmRelease(words, row.reference),
    refund: w.confirmRefund(words, row.reference),
    cancel: w.confirmCancel(row.reference),
    delete: w.confirmDelete(row.reference),
    resend: w.confirmResend(row.reference),
  }[action];
  return page(ctx, {
    title: m.confirmTitle,
    current: 'requests',
    body: html`<section class="card narrow" aria-labelledby="confirm-h"><h1 id="confirm-h">${m.confirmTitle}</h1>
${action === 'resend' ? html`<p class="confirm">${w.resendGoesTo(row.guest_email)}</p>` : ''}
${AMOUNT_ACTIONS.has(action) || action === 'release' ? moneyFacts(ctx, row, action, cents) : ''}
<p class="confirm">${question}</p>
${AMOUNT_ACTIONS.has(action) ? confirmReason(ctx, p.why) : ''}
<form method="post" action="/control/requests/${row.id}/${action}">
${csrfField(ctx)}
${action === 'resend' ? resendFields(ctx, row, p.email) : ''}
${p.cents !== undefined ? html`<input type="hidden" name="amount" value="${(p.cents / 100).toFixed(2)}">` : ''}
${p.why?.reason ? html`<input type="hidden" name="reason" value="${p.why.reason}">` : ''}
${p.why?.note ? html`<input type="hidden" name="note" value="${p.why.note}">` : ''}
<input type="hidden" name="nonce" value="${p.nonce}">
<div class="buttons"><button type="submit"${action === 'resend' ? '' : html` class="${action === 'release' ? 'secondary' : 'danger'}"`}>${w.confirm}</button>
<a href="/control/requests/${row.id}">${m.back}</a></div>
</form></section>`,
  });
}
