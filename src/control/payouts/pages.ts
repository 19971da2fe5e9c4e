import type { Tenant } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { formatIsoDate } from '../../i18n/index.ts';
import type { MonthlyFeesRow, NotPaidOutRow, RemittanceLineRow, RemittanceRow } from '../../payouts/index.ts';
import { csrfField, formatAmount, formatDateTime, type PageContext, page, tenantChooser } from '../shell/index.ts';
import { PAYOUT_MESSAGES } from './words.ts';

/** What the Payouts page shows of a hotel. */
export interface PayoutsPageData {
  tenant: Tenant;
  /** For a superuser: every hotel, for the chooser. */
  tenants: readonly Tenant[];
  remittances: readonly RemittanceRow[];
  months: readonly MonthlyFeesRow[];
  notPaidOut: { rows: readonly NotPaidOutRow[]; count: number; since: string | null };
  delayDays: number;
  range: { from?: string; to?: string };
  /** A refused upload: why, and the status of the page (422, 413). */
  problem?: string;
}

const day = (ctx: PageContext, d: string) => formatIsoDate(d, ctx.m.locale);
const enc = encodeURIComponent;

function importForm(ctx: PageContext, tenant: Tenant, problem?: string): SafeHtml {
  const w = PAYOUT_MESSAGES[ctx.language];
  // A refusal first in its section, above the help: where the eye lands after the upload.
  return html`<section class="card" aria-labelledby="payouts-import-h"><h2 id="payouts-import-h">${w.importTitle}</h2>
${problem ? html`<p class="flash error" role="alert" id="payouts-problem">${problem}</p>` : html`<p>${w.importHelp}</p>`}
<form method="post" action="/control/payouts/import?tenant=${tenant.id}" enctype="multipart/form-data">${csrfField(ctx)}
<input type="hidden" name="tenant" value="${tenant.id}">
<label for="payouts-file">${w.fileLabel}</label>
<input id="payouts-file" name="report" type="file" accept=".csv,.txt,text/csv,text/plain" required${problem ? html` aria-describedby="payouts-problem"` : ''}>
<p><button type="submit">${w.importButton}</button></p></form>${problem ? html`<p>${w.importHelp}</p>` : ''}</section>`;
}

function notPaidOutSection(ctx: PageContext, data: PayoutsPageData): SafeHtml {
  const w = PAYOUT_MESSAGES[ctx.language];
  const { rows, count, since } = data.notPaidOut;
  const tz = data.tenant.timezone;
  const body =
    since === null
      ? html`<p>${w.notPaidOutBefore}</p>`
      : rows.length === 0
        ? html`<p>${w.noNotPaidOut}</p>`
        : html`<div class="table-wrap" tabindex="0"><table><caption>${w.notPaidOut}</caption>
<thead><tr><th scope="col">${ctx.m.when}</th><th scope="col">${ctx.m.reference}</th><th scope="col">${ctx.m.kind}</th><th scope="col" class="num">${ctx.m.amount}</th></tr></thead>
<tbody>${rows.map(
            (
              r,
            ) => html`<tr class="incident"><td data-label="${ctx.m.when}">${formatDateTime(r.created_at, ctx, tz)}</td>
<td data-label="${ctx.m.reference}">${r.reference ? html`<a href="/control/requests/${r.payment_request_id}">${r.reference}</a>` : html`<code>${r.payment_request_id}</code>`}</td>
<td data-label="${ctx.m.kind}">${w.kinds[r.kind] ?? r.kind}</td><td data-label="${ctx.m.amount}" class="num">${formatAmount(r.kind === 'refund' ? -r.amount : r.amount, r.currency, ctx)}</td></tr>`,
          )}</tbody></table></div>${count > rows.length ? html`<p>${w.notPaidOutMore(rows.length, count)}</p>` : ''}`;
  return html`<section class="card" aria-labelledby="payouts-missing-h"><h2 id="payouts-missing-h">${w.notPaidOut}</h2>
<p>${w.notPaidOutIntro(data.delayDays)}</p>${body}</section>`;
}

function remittancesTable(ctx: PageContext, data: PayoutsPageData): SafeHtml {
  const w = PAYOUT_MESSAGES[ctx.language];
  const { tenant, range } = data;
  const filter = html`<form method="get" action="/control/payouts" class="buttons">
<input type="hidden" name="tenant" value="${tenant.id}">
<label for="payouts-from">${w.from}</label> <input id="payouts-from" name="from" type="date" value="${range.from ?? ''}">
<label for="payouts-to">${w.to}</label> <input id="payouts-to" name="to" type="date" value="${range.to ?? ''}">
<button type="submit" class="secondary">${w.show}</button></form>`;
  const exportQuery = `tenant=${tenant.id}${range.from ? `&from=${enc(range.from)}` : ''}${range.to ? `&to=${enc(range.to)}` : ''}`;
  const table =
    data.remittances.length === 0
      ? html`<p>${w.noRemittances}</p>`
      : html`<div class="table-wrap" tabindex="0"><table><caption>${w.remittances}</caption>
<thead><tr><th scope="col">${w.date}</th><th scope="col">${w.remittance}</th><th scope="col" class="num">${w.gross}</th>
<th scope="col" class="num">${w.fees}</th><th scope="col" class="num">${w.net}</th><th scope="col" class="num">${w.lines}</th>
<th scope="col" class="num">${w.unmatched}</th></tr></thead>
<tbody>${data.remittances.map((r) => {
          const unmatched = r.line_count - r.matched_count;
          return html`<tr${unmatched > 0 ? html` class="incident"` : ''}><td data-label="${w.date}">${day(ctx, r.remittance_date)}</td>
<td data-label="${w.remittance}"><a href="/control/payouts/${r.id}" aria-label="${w.open(r.remittance_nb)}">${r.remittance_nb}</a></td>
<td data-label="${w.gross}" class="num">${formatAmount(r.gross, r.currency, ctx)}</td><td data-label="${w.fees}" class="num">${formatAmount(r.fees, r.currency, ctx)}</td>
<td data-label="${w.net}" class="num">${formatAmount(r.net, r.currency, ctx)}</td><td data-label="${w.lines}" class="num">${String(r.line_count)}</td>
<td data-label="${w.unmatched}" class="num">${String(unmatched)}</td></tr>`;
        })}</tbody></table></div>
<p><a href="/control/payouts/export?${exportQuery}">${w.download}</a></p>`;
  return html`<section class="card" aria-labelledby="payouts-list-h"><h2 id="payouts-list-h">${w.remittances}</h2>${filter}${table}</section>`;
}

function feesTable(ctx: PageContext, months: readonly MonthlyFeesRow[]): SafeHtml {
  const w = PAYOUT_MESSAGES[ctx.language];
  if (months.length === 0) return html``;
  return html`<section class="card" aria-labelledby="payouts-fees-h"><h2 id="payouts-fees-h">${w.feesTitle}</h2>
<div class="table-wrap" tabindex="0"><table><caption>${w.feesTitle}</caption>
<thead><tr><th scope="col">${w.month}</th><th scope="col" class="num">${w.count}</th><th scope="col" class="num">${w.gross}</th>
<th scope="col" class="num">${w.fees}</th><th scope="col" class="num">${w.net}</th></tr></thead>
<tbody>${months.map(
    (
      m,
    ) => html`<tr><td data-label="${w.month}">${monthName(ctx, m.month)}</td><td data-label="${w.count}" class="num">${String(m.remittances)}</td>
<td data-label="${w.gross}" class="num">${formatAmount(m.gross, m.currency, ctx)}</td><td data-label="${w.fees}" class="num">${formatAmount(m.fees, m.currency, ctx)}</td>
<td data-label="${w.net}" class="num">${formatAmount(m.net, m.currency, ctx)}</td></tr>`,
  )}</tbody></table></div></section>`;
}

/** `2026-11` as "November 2026" in the page's language. */
function monthName(ctx: PageContext, month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Intl.DateTimeFormat(ctx.m.locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(Date.UTC(y, m - 1, 1)),
  );
}

/**
 * The Payouts page: what was paid out, what never was, the fees, and the import of a report.
 * The import form closes the page, except when it comes back with a refusal: then it comes first,
 * where the eye lands after the upload, not below tables a phone scrolls through for screens.
 */
export function payoutsPage(ctx: PageContext, data: PayoutsPageData): string {
  const w = PAYOUT_MESSAGES[ctx.language];
  return page(ctx, {
    title: w.title,
    current: 'payouts',
    body: html`<h1>${w.title}</h1>
${data.problem ? importForm(ctx, data.tenant, data.problem) : ''}
${tenantChooser(ctx, '/control/payouts', data.tenants, data.tenant.id)}
<p>${w.intro}</p>
${notPaidOutSection(ctx, data)}
${remittancesTable(ctx, data)}
${feesTable(ctx, data.months)}
${data.problem ? '' : importForm(ctx, data.tenant)}`,
  });
}

/** A line's state: matched to what, or why not and what payreq has. */
function lineState(ctx: PageContext, l: RemittanceLineRow): SafeHtml {
  const w = PAYOUT_MESSAGES[ctx.language];
  if (l.ledger_id)
    return html`<span class="status active">${w.matchedTo(w.kinds[l.ledger_kind ?? ''] ?? l.ledger_kind ?? '')}</span>`;
  const reason = l.unmatched_reason ? w.reasons[l.unmatched_reason] : '';
  const expected =
    l.expected_amount !== null
      ? html`<br><small>${w.expected(formatAmount(l.expected_amount, l.currency, ctx))}</small>`
      : '';
  return html`<span class="status failed">${w.unmatched}</span><br><small>${reason}</small>${expected}`;
}

/** One remittance: its totals and its lines, those matched to nothing first. */
export function remittancePage(
  ctx: PageContext,
  data: { tenant: Tenant; remittance: RemittanceRow; lines: readonly RemittanceLineRow[] },
): string {
  const w = PAYOUT_MESSAGES[ctx.language];
  const { remittance: r, lines, tenant } = data;
  const title = w.remittanceTitle(r.remittance_nb, day(ctx, r.remittance_date));
  const unmatched = r.line_count - r.matched_count;
  return page(ctx, {
    title,
    current: 'payouts',
    body: html`<p><a href="/control/payouts?tenant=${tenant.id}">${w.back}</a></p>
<h1>${title}</h1>
<section class="card" aria-labelledby="remittance-totals-h"><h2 id="remittance-totals-h">${tenant.name}</h2>
<dl class="summary"><dt>${w.gross}</dt><dd>${formatAmount(r.gross, r.currency, ctx)}</dd>
<dt>${w.fees}</dt><dd>${formatAmount(r.fees, r.currency, ctx)}</dd>
<dt>${w.net}</dt><dd><strong>${formatAmount(r.net, r.currency, ctx)}</strong></dd></dl>
<p>${w.totals(r.line_count, r.matched_count)}</p>
${unmatched > 0 ? html`<p>${w.unmatchedNeed}</p>` : ''}</section>
<section class="card" aria-labelledby="remittance-lines-h"><h2 id="remittance-lines-h">${w.lines}</h2>
<div class="table-wrap" tabindex="0"><table><caption>${w.open(r.remittance_nb)}</caption>
<thead><tr><th scope="col">${w.status}</th><th scope="col">${w.request}</th><th scope="col">${w.direction}</th>
<th scope="col">${w.transaction}</th><th scope="col">${w.paymentDate}</th><th scope="col" class="num">${w.amount}</th>
<th scope="col" class="num">${w.fees}</th><th scope="col" class="num">${w.net}</th></tr></thead>
<tbody>${lines.map(
      (
        l,
      ) => html`<tr${l.ledger_id ? '' : html` class="incident"`}><td data-label="${w.status}">${lineState(ctx, l)}</td>
<td data-label="${w.request}">${l.reference && l.payment_request_id ? html`<a href="/control/requests/${l.payment_request_id}">${l.reference}</a>` : html`<small>${w.order}</small> <code>${l.order_id || '—'}</code>`}</td>
<td data-label="${w.direction}">${w.directions[l.direction] ?? l.direction}</td><td data-label="${w.transaction}"><code>${l.transaction_id}</code></td>
<td data-label="${w.paymentDate}">${l.payment_date ? day(ctx, l.payment_date) : ''}</td>
<td data-label="${w.amount}" class="num">${formatAmount(l.direction === 'debit' ? l.amount : -l.amount, l.currency, ctx)}</td>
<td data-label="${w.fees}" class="num">${formatAmount(l.fee, l.currency, ctx)}</td><td data-label="${w.net}" class="num">${formatAmount(l.net, l.currency, ctx)}</td></tr>`,
    )}</tbody></table></div></section>`,
  });
}
