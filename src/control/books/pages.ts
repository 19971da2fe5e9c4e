import type { BooksIncidentRow, BooksRunSummary, InDoubtOperationRow, MisplacedMoneyRow } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { csrfField, formatAmount, formatDateTime, type PageContext, page } from '../shell/index.ts';
import { BOOKS_MESSAGES } from './words.ts';

export interface BooksPageData {
  incidents: readonly BooksIncidentRow[];
  inDoubt: readonly InDoubtOperationRow[];
  /** Operations undecided for longer than this are incidents a manager settles by hand. */
  escalateHours: number;
  misplaced: readonly MisplacedMoneyRow[];
  runs: readonly BooksRunSummary[];
}

const statusName = (ctx: PageContext, s: string | null) =>
  s === null ? BOOKS_MESSAGES[ctx.language].deleted : (ctx.m.statuses[s as keyof typeof ctx.m.statuses] ?? s);

/** The request's reference as a link to its page (a deleted one: its id, no link). */
function requestCell(row: { payment_request_id: string; reference: string | null }): SafeHtml {
  return row.reference
    ? html`<a href="/control/requests/${row.payment_request_id}">${row.reference}</a>`
    : html`<code>${row.payment_request_id}</code>`;
}

/** A tenant column for a superuser only: a tenant user sees nothing but theirs. */
const tenantHead = (ctx: PageContext) =>
  ctx.user?.tenantId === null ? html`<th scope="col">${ctx.m.tenant}</th>` : html``;
const tenantCell = (ctx: PageContext, row: { tenant_name: string | null; tenant_id: string }) =>
  ctx.user?.tenantId === null
    ? html`<td data-label="${ctx.m.tenant}">${row.tenant_name ?? row.tenant_id}</td>`
    : html``;

/** What an open disagreement asks of the hotel, one sentence per problem. */
export function incidentActions(ctx: PageContext, i: BooksIncidentRow): string[] {
  const b = BOOKS_MESSAGES[ctx.language];
  const actions: string[] = [];
  if (i.problems.includes('net_differs')) {
    const diff = formatAmount(Math.abs(i.provider_net - i.payreq_net), i.currency, ctx);
    actions.push(i.provider_net > i.payreq_net ? b.providerTookMore(diff) : b.providerHasLess(diff));
  }
  if (i.problems.includes('hold_missing')) actions.push(b.holdMissing(statusName(ctx, i.status)));
  if (i.problems.includes('hold_differs')) actions.push(b.holdDiffers);
  if (i.problems.includes('hold_open')) {
    actions.push(i.status === 'AUTHORISED_TO_VALIDATE' ? b.secondHold : b.holdOpen(statusName(ctx, i.status)));
  }
  if (i.problems.includes('capture_differs')) actions.push(b.captureDiffers);
  if (i.problems.includes('hand_settlement_contradicted')) actions.push(b.handContradicted);
  if (i.problems.includes('hold_lapsed')) actions.push(b.holdLapsed);
  if (i.problems.includes('disputed')) actions.push(b.disputed);
  return actions;
}

function incidentsTable(ctx: PageContext, rows: readonly BooksIncidentRow[]): SafeHtml {
  const { m } = ctx;
  const b = BOOKS_MESSAGES[ctx.language];
  if (rows.length === 0) return html`<p>${b.noIncidents}</p>`;
  return html`<div class="table-wrap" tabindex="0"><table><caption>${b.incidents}</caption>
<thead><tr><th scope="col">${m.reference}</th>${tenantHead(ctx)}<th scope="col">${m.status}</th>
<th scope="col" class="num">${b.providerNet}</th><th scope="col" class="num">${b.payreqNet}</th><th scope="col" class="num">${b.openHolds}</th>
<th scope="col">${b.since}</th><th scope="col">${m.books.need}</th></tr></thead>
<tbody>${rows.map(
    (
      i,
    ) => html`<tr class="incident"><td data-label="${m.reference}">${requestCell(i)}</td>${tenantCell(ctx, i)}<td data-label="${m.status}">${statusName(ctx, i.status)}</td>
<td data-label="${b.providerNet}" class="num">${formatAmount(i.provider_net, i.currency, ctx)}</td><td data-label="${b.payreqNet}" class="num">${formatAmount(i.payreq_net, i.currency, ctx)}</td>
<td data-label="${b.openHolds}" class="num">${String(i.open_holds)}</td><td data-label="${b.since}">${formatDateTime(i.opened_at, ctx)}<br><small>${b.lastSeen} ${formatDateTime(i.last_seen_at, ctx)}</small></td>
<td data-label="${m.books.need}">${incidentActions(ctx, i).map((a) => html`<p>${a}</p>`)}</td></tr>`,
  )}</tbody></table></div>`;
}

function inDoubtTable(ctx: PageContext, rows: readonly InDoubtOperationRow[], escalateHours: number): SafeHtml {
  const { m } = ctx;
  const b = BOOKS_MESSAGES[ctx.language];
  if (rows.length === 0) return html`<p>${b.noInDoubt}</p>`;
  const escalated = (l: InDoubtOperationRow) => Date.now() - l.created_at.getTime() >= escalateHours * 3600_000;
  return html`<div class="table-wrap" tabindex="0"><table><caption>${b.inDoubt}</caption>
<thead><tr><th scope="col">${b.since}</th><th scope="col">${m.reference}</th>${tenantHead(ctx)}<th scope="col">${m.kind}</th>
<th scope="col" class="num">${m.amount}</th><th scope="col">${b.providerShows}</th><th scope="col">${m.books.need}</th></tr></thead>
<tbody>${rows.map(
    (
      l,
    ) => html`<tr${escalated(l) ? html` class="incident"` : ''}><td data-label="${b.since}">${formatDateTime(l.created_at, ctx)}</td><td data-label="${m.reference}">${requestCell(l)}</td>${tenantCell(ctx, l)}<td data-label="${m.kind}">${m.ledgerKinds[l.kind] ?? l.kind} <small>#${l.id}</small>${l.error ? html`<br><small><code>${l.error}</code></small>` : ''}</td>
<td data-label="${m.amount}" class="num">${formatAmount(l.amount, l.currency, ctx)}</td>
<td data-label="${b.providerShows}">${(l.answer_transaction_id ?? l.provider_transaction_id) ? html`<code>${l.answer_transaction_id ?? l.provider_transaction_id}</code>` : ''}${l.provider_status ? html`<br><small><code>${l.provider_status}</code></small>` : ''}</td>
<td data-label="${m.books.need}">${escalated(l) ? settleForm(ctx, l, escalateHours) : b.waitReconcile}</td></tr>`,
  )}</tbody></table></div>`;
}

/** An operation nobody could decide: the manager records what the provider's back office shows. */
function settleForm(ctx: PageContext, l: InDoubtOperationRow, escalateHours: number): SafeHtml {
  const b = BOOKS_MESSAGES[ctx.language];
  const id = `settle-${l.id}`;
  return html`<p>${b.undecided(escalateHours)}</p>
<form method="post" action="/control/books/settle" class="settle">${csrfField(ctx)}
<input type="hidden" name="operation" value="${l.id}">
<fieldset><legend>${b.settleAs}</legend>
<label><input type="radio" name="as" value="done" required> ${b.settleDone}</label>
<label><input type="radio" name="as" value="refused"> ${b.settleRefused}</label></fieldset>
<label for="${id}-reason">${b.settleReason}</label> <input id="${id}-reason" name="reason" required maxlength="500">
${l.kind === 'hold' || l.kind === 'refund' ? html`<label for="${id}-txn">${b.settleTransaction}</label> <input id="${id}-txn" name="transaction" maxlength="200">` : ''}
<button type="submit">${b.settle}</button></form>`;
}

function misplacedTable(ctx: PageContext, rows: readonly MisplacedMoneyRow[]): SafeHtml {
  const { m } = ctx;
  const b = BOOKS_MESSAGES[ctx.language];
  if (rows.length === 0) return html`<p>${b.noMisplaced}</p>`;
  return html`<div class="table-wrap" tabindex="0"><table><caption>${b.misplaced}</caption>
<thead><tr><th scope="col">${m.when}</th><th scope="col">${m.reference}</th>${tenantHead(ctx)}<th scope="col">${m.kind}</th>
<th scope="col" class="num">${m.amount}</th><th scope="col">${b.reason}</th><th scope="col">${m.books.need}</th></tr></thead>
<tbody>${rows.map(
    (
      l,
    ) => html`<tr class="incident"><td data-label="${m.when}">${formatDateTime(l.created_at, ctx)}</td><td data-label="${m.reference}">${requestCell(l)}</td>${tenantCell(ctx, l)}<td data-label="${m.kind}">${m.ledgerKinds[l.kind] ?? l.kind}</td>
<td data-label="${m.amount}" class="num">${formatAmount(l.amount, l.currency, ctx)}</td><td data-label="${b.reason}"><code>${l.incident}</code></td><td data-label="${m.books.need}">${b.giveBack}</td></tr>`,
  )}</tbody></table></div>`;
}

function runsList(
  ctx: PageContext,
  runs: readonly BooksRunSummary[],
  tenantNames: ReadonlyMap<string, string>,
): SafeHtml {
  const b = BOOKS_MESSAGES[ctx.language];
  if (runs.length === 0) return html`<p>${b.noCheck}</p>`;
  return html`<ul>${runs.map(
    (r) =>
      html`<li><strong>${r.scope === 'all' ? b.everyTenant : (tenantNames.get(r.scope) ?? r.scope)}</strong>, ${formatDateTime(r.finished_at, ctx)}: ${b.checkSummary(formatDateTime(r.since, ctx), r.orders, r.agree, r.disagree, r.in_doubt)}</li>`,
  )}</ul>`;
}

/**
 * The Books page: where payreq's books and the provider's differ (open incidents of the books
 * check), operations whose outcome is unknown, and money to give back; each with what the
 * hotel should do about it.
 */
export function booksPage(ctx: PageContext, data: BooksPageData, tenantNames: ReadonlyMap<string, string>): string {
  const b = BOOKS_MESSAGES[ctx.language];
  return page(ctx, {
    title: b.title,
    current: 'books',
    times: true,
    body: html`<h1>${b.title}</h1>
<p>${b.intro}</p>
<section class="card" aria-labelledby="books-runs-h"><h2 id="books-runs-h">${b.lastCheck}</h2>${runsList(ctx, data.runs, tenantNames)}</section>
<section class="card" aria-labelledby="books-incidents-h"><h2 id="books-incidents-h">${b.incidents}</h2>${incidentsTable(ctx, data.incidents)}</section>
<section class="card" aria-labelledby="books-doubt-h"><h2 id="books-doubt-h">${b.inDoubt}</h2>${inDoubtTable(ctx, data.inDoubt, data.escalateHours)}</section>
<section class="card" aria-labelledby="books-misplaced-h"><h2 id="books-misplaced-h">${b.misplaced}</h2>${misplacedTable(ctx, data.misplaced)}</section>`,
  });
}

/** A request's own books incidents, open and resolved, for its detail page. */
export function requestIncidents(ctx: PageContext, rows: readonly BooksIncidentRow[]): SafeHtml {
  const { m } = ctx;
  const b = BOOKS_MESSAGES[ctx.language];
  if (rows.length === 0) return html``;
  return html`<section class="card" aria-labelledby="books-h"><h2 id="books-h">${b.title}</h2>
<div class="table-wrap" tabindex="0"><table><caption>${b.incidents}</caption>
<thead><tr><th scope="col">${b.since}</th><th scope="col">${m.status}</th><th scope="col" class="num">${b.providerNet}</th>
<th scope="col" class="num">${b.payreqNet}</th><th scope="col" class="num">${b.openHolds}</th><th scope="col">${m.books.need}</th></tr></thead>
<tbody>${rows.map(
    (
      i,
    ) => html`<tr${i.resolved_at ? '' : html` class="incident"`}><td data-label="${b.since}">${formatDateTime(i.opened_at, ctx)}${i.resolved_at ? html`<br><small>${b.resolved} ${formatDateTime(i.resolved_at, ctx)}</small>` : ''}</td>
<td data-label="${m.status}">${statusName(ctx, i.status)}</td><td data-label="${b.providerNet}" class="num">${formatAmount(i.provider_net, i.currency, ctx)}</td>
<td data-label="${b.payreqNet}" class="num">${formatAmount(i.payreq_net, i.currency, ctx)}</td><td data-label="${b.openHolds}" class="num">${String(i.open_holds)}</td>
<td data-label="${m.books.need}">${i.resolved_at ? b.agreesAgain : incidentActions(ctx, i).map((a) => html`<p>${a}</p>`)}</td></tr>`,
  )}</tbody></table></div></section>`;
}

/** What the settlement form sent, to send it again once confirmed. */
export interface SettleAttempt {
  operation: string;
  as: 'done' | 'refused';
  reason: string;
  transaction?: string;
}

/**
 * A hand settlement the service refused because it is too young or the provider shows
 * otherwise: why, what the provider shows, and the same decision again with `force`.
 */
export function settleConfirmPage(
  ctx: PageContext,
  attempt: SettleAttempt,
  why: 'young' | 'contradicts' | 'unchecked',
  providerShows: string,
  escalateHours: number,
): string {
  const b = BOOKS_MESSAGES[ctx.language];
  return page(ctx, {
    title: b.confirmTitle,
    current: 'books',
    body: html`<h1>${b.confirmTitle}</h1>
<section class="card" aria-labelledby="confirm-h"><h2 id="confirm-h">#${attempt.operation}: ${attempt.as === 'done' ? b.settleDone : b.settleRefused}</h2>
<p>${b.confirmWhy[why](escalateHours)}</p>
<p>${b.confirmShows}: <code>${providerShows}</code></p>
<form method="post" action="/control/books/settle">${csrfField(ctx)}
<input type="hidden" name="operation" value="${attempt.operation}">
<input type="hidden" name="as" value="${attempt.as}">
<input type="hidden" name="reason" value="${attempt.reason}">
${attempt.transaction ? html`<input type="hidden" name="transaction" value="${attempt.transaction}">` : ''}
<input type="hidden" name="force" value="on">
<button type="submit">${b.confirm}</button> <a href="/control/books">${b.cancel}</a></form></section>`,
  });
}
