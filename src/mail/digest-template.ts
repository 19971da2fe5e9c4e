import { DAY_PLAN_WORDS, type DayPlanWords, type DigestPayload, isGuaranteed, LIST_LIMIT } from '../day-plan/index.ts';
import type { DayPlanRow, TenantMailRow } from '../db/index.ts';
import { formatMoney, isDeclineReason } from '../domain/index.ts';
import { decisionDate } from '../holds/index.ts';
import { html, type SafeHtml } from '../html/index.ts';
import { formatInstant, formatIsoDate } from '../i18n/index.ts';
import { oneLine } from './escape.ts';
import type { RenderedMail } from './templates.ts';

interface Section {
  title: string;
  intro?: string;
  empty: string;
  lines: string[];
  /** More rows than the list holds: the back office has them all. */
  capped: boolean;
}

/** One request in a line: reference, guest, amount, guarantee, and what the list is about. */
function requestLine(w: DayPlanWords, r: DayPlanRow, extra: string[]): string {
  const state = w.pair(isGuaranteed(r.status) ? w.guaranteed : w.notGuaranteed, w.statuses[r.status] ?? r.status);
  const parts = [
    r.reference,
    oneLine(`${r.guest_first_name} ${r.guest_last_name}`),
    formatMoney(r.amount, r.currency, w.locale),
    state,
    ...extra,
  ];
  return parts.join(' · ');
}

function sections(p: DigestPayload, w: DayPlanWords): Section[] {
  const { plan, totals } = p;
  const tz = plan.timeZone;
  const at = (d: Date | string | null) => (d ? formatInstant(new Date(d), w.locale, tz) : '');
  const day = (d: string) => formatIsoDate(d, w.locale);
  const decision = (r: DayPlanRow) => {
    const date = decisionDate(r.checkin, r.checkout);
    return date ? w.checkout(day(date)) : w.noDecisionDate;
  };
  const capped = (n: number) => n >= LIST_LIMIT;
  const money = (rows: { currency: string; cents: number }[]) =>
    rows.map((m) => formatMoney(m.cents, m.currency as never, w.locale)).join(', ');
  const yesterday: string[] = [w.created(totals.created), w.completed(totals.completed)];
  if (totals.taken.length > 0) yesterday.push(w.pair(w.taken, money(totals.taken)));
  if (totals.refunded.length > 0) yesterday.push(w.pair(w.refunded, money(totals.refunded)));
  if (totals.taken.length === 0 && totals.refunded.length === 0) yesterday.push(w.nothingMoved);
  return [
    {
      title: w.failedGuarantees,
      intro: plan.failedGuarantees.length > 0 ? w.failedGuaranteesIntro : undefined,
      empty: w.noFailedGuarantees,
      lines: plan.failedGuarantees.map((r) =>
        requestLine(w, r, [...(r.checkin ? [day(r.checkin)] : []), w.failedOn(at(r.changed_at))]),
      ),
      capped: capped(plan.failedGuarantees.length),
    },
    {
      title: w.declinedHolds,
      intro: (plan.declinedHolds ?? []).length > 0 ? w.declinedHoldsIntro : undefined,
      empty: w.noDeclinedHolds,
      lines: (plan.declinedHolds ?? []).map((r) =>
        requestLine(w, r, [
          ...(r.checkin ? [day(r.checkin)] : []),
          w.declinedBecause[isDeclineReason(r.hold_decline_reason) ? r.hold_decline_reason : 'other'],
          ...(r.checkin ? [w.finalOn(day(r.checkin))] : []),
        ]),
      ),
      capped: capped((plan.declinedHolds ?? []).length),
    },
    {
      title: w.lapsingHolds,
      intro: plan.lapsingHolds.length > 0 ? w.lapsingHoldsIntro : undefined,
      empty: w.noLapsingHolds,
      lines: plan.lapsingHolds.map((r) => requestLine(w, r, [w.holdEnds(at(r.hold_expires_at)), decision(r)])),
      capped: capped(plan.lapsingHolds.length),
    },
    {
      title: w.incidents,
      intro: plan.incidents.length > 0 ? w.incidentNeed : undefined,
      empty: w.noIncidents,
      lines: plan.incidents.map((i) => `${i.reference ?? i.payment_request_id} · ${at(i.opened_at)}`),
      capped: capped(plan.incidents.length),
    },
    {
      title: w.inDoubt,
      intro: plan.inDoubt.length > 0 ? w.inDoubtNeed : undefined,
      empty: w.noInDoubt,
      lines: plan.inDoubt.map(
        (l) =>
          `${l.reference ?? l.payment_request_id} · ${l.kind} · ${formatMoney(l.amount, l.currency as never, w.locale)} · ${at(l.updated_at)}`,
      ),
      capped: capped(plan.inDoubt.length),
    },
    {
      title: w.arrivalsToday(day(plan.today)),
      empty: w.noArrivals,
      lines: plan.arrivalsToday.map((r) => requestLine(w, r, [])),
      capped: capped(plan.arrivalsToday.length),
    },
    {
      title: w.arrivalsTomorrow(day(plan.tomorrow)),
      empty: w.noArrivals,
      lines: plan.arrivalsTomorrow.map((r) => requestLine(w, r, [])),
      capped: capped(plan.arrivalsTomorrow.length),
    },
    ...(p.notPaidOut
      ? [
          {
            title: w.notPaidOut,
            intro: p.notPaidOut.rows.length > 0 ? w.notPaidOutIntro(p.notPaidOut.delayDays) : undefined,
            empty: w.noNotPaidOut,
            lines: p.notPaidOut.rows.map(
              (r) =>
                `${r.reference ?? r.payment_request_id} · ${w.movements[r.kind] ?? r.kind} · ${formatMoney(r.kind === 'refund' ? -r.amount : r.amount, r.currency as never, w.locale)} · ${at(r.created_at)}`,
            ),
            capped: p.notPaidOut.count > p.notPaidOut.rows.length,
          },
        ]
      : []),
    { title: w.yesterday(day(p.yesterday)), empty: '', lines: yesterday, capped: false },
  ];
}

/**
 * The hotel's daily digest, in the tenant's digest language: what needs someone today (the
 * Today page's lists, as the job saw them at its moment) and yesterday's totals, every date
 * and time in the hotel's zone.
 */
export function renderDailyDigest(p: DigestPayload, tenant: TenantMailRow, publicBaseUrl: string): RenderedMail {
  const w = DAY_PLAN_WORDS[tenant.digest_language] ?? DAY_PLAN_WORDS.en;
  const hotel = oneLine(tenant.name);
  const date = formatIsoDate(p.plan.today, w.locale);
  const url = `${publicBaseUrl}/control/today`;
  const all = sections(p, w);
  const text = [
    w.digestIntro(hotel, date, p.plan.timeZone),
    '',
    ...all.flatMap((s) => [
      s.title,
      ...(s.intro ? [s.intro] : []),
      ...(s.lines.length === 0 ? [`  ${s.empty}`] : s.lines.map((l) => `  - ${l}`)),
      ...(s.capped ? [`  ${w.more}`] : []),
      '',
    ]),
    w.pair(w.openToday, url),
    '',
  ].join('\n');
  const sectionHtml = (s: Section): SafeHtml => html`<h2 style="font-size:16px;margin:20px 0 8px">${s.title}</h2>
${s.intro ? html`<p style="margin:0 0 8px;color:#52525b">${s.intro}</p>` : ''}
${s.lines.length === 0 ? html`<p style="margin:0">${s.empty}</p>` : html`<ul style="margin:0;padding-left:20px">${s.lines.map((l) => html`<li>${l}</li>`)}</ul>`}
${s.capped ? html`<p style="margin:4px 0 0">${w.more}</p>` : ''}`;
  const body = html`<!doctype html>
<html lang="${tenant.digest_language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${w.digestSubject(hotel, date)}</title></head>
<body style="margin:0;padding:24px;background:#f4f4f5;font-family:Arial,Helvetica,sans-serif;color:#18181b">
<main style="display:block;max-width:640px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px">
<h1 style="font-size:18px;margin:0 0 16px">${hotel}</h1>
<p>${w.digestIntro(hotel, date, p.plan.timeZone)}</p>
${all.map(sectionHtml)}
<p style="margin:24px 0 0"><a href="${url}" style="color:#1d4ed8">${w.openToday}</a></p>
</main>
</body>
</html>`;
  return { subject: oneLine(w.digestSubject(hotel, date)), text, html: body.value };
}
