import { type DayPlan, isGuaranteed } from '../../day-plan/index.ts';
import type { BooksIncidentRow, DayPlanRow, InDoubtOperationRow, Tenant } from '../../db/index.ts';
import { isDeclineReason } from '../../domain/index.ts';
import { decisionDate } from '../../holds/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { colon, formatIsoDate } from '../../i18n/index.ts';
import type { PostingRow } from '../../pms/index.ts';
import { incidentActions } from '../books/index.ts';
import { failedPostingsSection } from '../pms/index.ts';
import { formatAmount, formatDateTime, type PageContext, page, tenantChooser } from '../shell/index.ts';
import { TODAY_MESSAGES } from './words.ts';

const day = (ctx: PageContext, d: string | null) => (d ? formatIsoDate(d, ctx.m.locale) : '—');

function referenceCell(r: { id?: string; payment_request_id?: string; reference: string | null }): SafeHtml {
  const id = r.id ?? r.payment_request_id ?? '';
  return r.reference ? html`<a href="/control/requests/${id}">${r.reference}</a>` : html`<code>${id}</code>`;
}

/**
 * The guarantee in words: guaranteed or not, then how things stand, after the language's colon
 * ("Not guaranteed: card refused, waiting for another"), as the digest says it.
 */
function guarantee(ctx: PageContext, r: DayPlanRow): SafeHtml {
  const t = TODAY_MESSAGES[ctx.language];
  const ok = isGuaranteed(r.status);
  return html`<span class="status ${r.status}">${ok ? t.guaranteed : t.notGuaranteed}</span>${colon(ctx.language)} ${t.statuses[r.status] ?? r.status}`;
}

/**
 * A table of requests: reference, guest, amount, then the columns the list is about. Every
 * list says so when it is empty (an empty table reads as a page that failed).
 */
function requestTable(
  ctx: PageContext,
  caption: string,
  rows: readonly DayPlanRow[],
  empty: string,
  extra: { head: string; cell: (r: DayPlanRow) => SafeHtml | string }[],
): SafeHtml {
  const { m } = ctx;
  if (rows.length === 0) return html`<p>${empty}</p>`;
  return html`<div class="table-wrap" tabindex="0"><table><caption>${caption}</caption>
<thead><tr><th scope="col">${m.reference}</th><th scope="col">${TODAY_MESSAGES[ctx.language].guest}</th><th scope="col" class="num">${m.amount}</th>${extra.map(
    (e) => html`<th scope="col">${e.head}</th>`,
  )}</tr></thead>
<tbody>${rows.map(
    (r) =>
      html`<tr><td data-label="${m.reference}">${referenceCell(r)}</td><td data-label="${TODAY_MESSAGES[ctx.language].guest}">${r.guest_first_name} ${r.guest_last_name}</td><td data-label="${m.amount}" class="num">${formatAmount(r.amount, r.currency, ctx)}</td>${extra.map(
        (e) => html`<td data-label="${e.head}">${e.cell(r)}</td>`,
      )}</tr>`,
  )}</tbody></table></div>`;
}

function incidentsTable(ctx: PageContext, rows: readonly BooksIncidentRow[]): SafeHtml {
  const { m } = ctx;
  const t = TODAY_MESSAGES[ctx.language];
  if (rows.length === 0) return html`<p>${t.noIncidents}</p>`;
  return html`<p>${t.allBooks} <a href="/control/books">${m.navBooks}</a></p>
<div class="table-wrap" tabindex="0"><table><caption>${t.incidents}</caption>
<thead><tr><th scope="col">${m.reference}</th><th scope="col">${t.when}</th><th scope="col">${m.books.need}</th></tr></thead>
<tbody>${rows.map(
    (i) =>
      html`<tr class="incident"><td data-label="${m.reference}">${referenceCell(i)}</td><td data-label="${t.when}">${formatDateTime(i.opened_at, ctx)}</td><td data-label="${m.books.need}">${incidentActions(ctx, i).map((a) => html`<p>${a}</p>`)}</td></tr>`,
  )}</tbody></table></div>`;
}

function inDoubtTable(ctx: PageContext, rows: readonly InDoubtOperationRow[]): SafeHtml {
  const { m } = ctx;
  const t = TODAY_MESSAGES[ctx.language];
  if (rows.length === 0) return html`<p>${t.noInDoubt}</p>`;
  return html`<p>${t.inDoubtNeed}</p>
<div class="table-wrap" tabindex="0"><table><caption>${t.inDoubt}</caption>
<thead><tr><th scope="col">${m.reference}</th><th scope="col">${m.kind}</th><th scope="col" class="num">${m.amount}</th><th scope="col">${t.when}</th></tr></thead>
<tbody>${rows.map(
    (l) =>
      html`<tr><td data-label="${m.reference}">${referenceCell(l)}</td><td data-label="${m.kind}">${m.ledgerKinds[l.kind] ?? l.kind}</td><td data-label="${m.amount}" class="num">${formatAmount(l.amount, l.currency, ctx)}</td><td data-label="${t.when}">${formatDateTime(l.updated_at, ctx)}</td></tr>`,
  )}</tbody></table></div>`;
}

const section = (id: string, title: string, body: SafeHtml, intro?: string) =>
  html`<section class="card" aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${intro ? html`<p>${intro}</p>` : ''}${body}</section>`;

/**
 * The Today page (docs/back-office.md): what needs someone at the hotel today, in its zone:
 * failed guarantees, holds about to lapse, incidents and operations in doubt, today's and
 * tomorrow's arrivals with their guarantee. The daily digest e-mails the same lists.
 */
export function todayPage(
  ctx: PageContext,
  p: {
    plan: DayPlan;
    tenant: Tenant;
    tenants: readonly Tenant[];
    /** Postings Apaleo refused for good (undefined: a hotel not connected, with none). */
    postings?: readonly PostingRow[];
  },
): string {
  const { m } = ctx;
  const t = TODAY_MESSAGES[ctx.language];
  const { plan } = p;
  const c = { ...ctx, timeZone: plan.timeZone };
  const arrivalColumns = [
    { head: m.type, cell: (r: DayPlanRow) => m.types[r.request_type] ?? r.request_type },
    { head: t.guarantee, cell: (r: DayPlanRow) => guarantee(c, r) },
  ];
  return page(c, {
    title: t.title,
    current: 'today',
    times: true,
    body: html`<h1>${t.title} · ${p.tenant.name}</h1>
${tenantChooser(c, '/control/today', p.tenants, p.tenant.id)}
<p>${t.intro(day(c, plan.today), plan.timeZone)}</p>
${section(
  'today-failed-h',
  t.failedGuarantees,
  requestTable(c, t.failedGuarantees, plan.failedGuarantees, t.noFailedGuarantees, [
    { head: t.checkin, cell: (r) => day(c, r.checkin) },
    { head: t.when, cell: (r) => formatDateTime(r.changed_at, c) },
    { head: t.guarantee, cell: (r) => guarantee(c, r) },
  ]),
  plan.failedGuarantees.length > 0 ? t.failedGuaranteesIntro : undefined,
)}
${section(
  'today-declined-h',
  t.declinedHolds,
  requestTable(c, t.declinedHolds, plan.declinedHolds ?? [], t.noDeclinedHolds, [
    { head: t.checkin, cell: (r) => day(c, r.checkin) },
    {
      head: t.bankAnswer,
      cell: (r) => t.declinedBecause[isDeclineReason(r.hold_decline_reason) ? r.hold_decline_reason : 'other'],
    },
    { head: t.next, cell: (r) => (r.checkin ? t.finalOn(day(c, r.checkin)) : '—') },
  ]),
  (plan.declinedHolds ?? []).length > 0 ? t.declinedHoldsIntro : undefined,
)}
${section(
  'today-lapsing-h',
  t.lapsingHolds,
  requestTable(c, t.lapsingHolds, plan.lapsingHolds, t.noLapsingHolds, [
    { head: t.when, cell: (r) => t.holdEnds(formatDateTime(r.hold_expires_at, c)) },
    {
      head: t.checkin,
      cell: (r) => {
        const decision = decisionDate(r.checkin, r.checkout);
        return decision ? `${day(c, r.checkin)} · ${t.checkout(day(c, decision))}` : t.noDecisionDate;
      },
    },
  ]),
  plan.lapsingHolds.length > 0 ? t.lapsingHoldsIntro : undefined,
)}
${section('today-incidents-h', t.incidents, incidentsTable(c, plan.incidents))}
${section('today-doubt-h', t.inDoubt, inDoubtTable(c, plan.inDoubt))}
${failedPostingsSection(c, p.postings)}
${section(
  'today-arrivals-h',
  t.arrivalsToday(day(c, plan.today)),
  requestTable(c, t.arrivalsToday(day(c, plan.today)), plan.arrivalsToday, t.noArrivals, arrivalColumns),
)}
${section(
  'today-tomorrow-h',
  t.arrivalsTomorrow(day(c, plan.tomorrow)),
  requestTable(c, t.arrivalsTomorrow(day(c, plan.tomorrow)), plan.arrivalsTomorrow, t.noArrivals, arrivalColumns),
)}`,
  });
}
