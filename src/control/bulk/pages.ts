import type { BulkJobRow } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { type DetailRow, reasonFields } from '../requests/index.ts';
import { amountInWords, csrfField, formatAmount, type PageContext, page } from '../shell/index.ts';
import { BULK_MESSAGES } from './words.ts';

export type BulkAction = 'capture' | 'release' | 'refund';

/** One selected request as the confirmation shows it: what will move, or why it is left out. */
export interface BulkPlanRow {
  row: Pick<DetailRow, 'id' | 'reference' | 'status' | 'currency' | 'guest_first_name' | 'guest_last_name'>;
  /** Minor units that will move (a release: the amount held, freed); undefined: left out. */
  cents?: number;
}

/** Sums per currency, in the order the currencies first appear. */
function totals(items: readonly { cents: number; currency: string }[]): [string, number][] {
  const sums = new Map<string, number>();
  for (const i of items) sums.set(i.currency, (sums.get(i.currency) ?? 0) + i.cents);
  return [...sums];
}

function totalLine(ctx: PageContext, label: string, sums: [string, number][]): SafeHtml {
  if (sums.length === 0) return html``;
  return html`<p class="confirm"><strong>${label}:</strong> ${sums.map(
    ([currency, cents], i) =>
      html`${i > 0 ? ' + ' : ''}${amountInWords(cents, currency, ctx.language, ctx.m.money)} (${formatAmount(cents, currency, ctx)})`,
  )}</p>`;
}

/**
 * The question before a bulk action: every selected request, the amount that will move for
 * each, the total per currency in words and digits. The form carries the amounts shown: the
 * jobs move exactly those, and the batch id makes a second submission the same batch.
 */
export function bulkConfirmPage(
  ctx: PageContext,
  p: { action: BulkAction; batchId: string; plan: readonly BulkPlanRow[] },
): string {
  const { m } = ctx;
  const w = BULK_MESSAGES[ctx.language];
  const going = p.plan.filter((x): x is BulkPlanRow & { cents: number } => x.cents !== undefined);
  const label = { capture: m.capture, release: m.release, refund: m.refund }[p.action];
  const sums = totals(going.map((x) => ({ cents: x.cents, currency: x.row.currency })));
  return page(ctx, {
    title: w.bulkConfirmTitle,
    current: 'requests',
    body: html`<h1>${w.bulkConfirmTitle}</h1>
<section class="card" aria-labelledby="bulk-h"><h2 id="bulk-h">${label}</h2>
${going.length === 0 ? html`<p class="flash error" role="status">${w.bulkNoneEligible}</p>` : html`<p>${w.bulkConfirmIntro(going.length)}</p>`}
<div class="table-wrap" tabindex="0"><table><caption>${label}</caption>
<thead><tr><th scope="col">${m.reference}</th><th scope="col">${m.guest}</th><th scope="col">${m.status}</th><th scope="col" class="num">${m.amount}</th></tr></thead>
<tbody>${p.plan.map(
      (
        x,
      ) => html`<tr${x.cents === undefined ? html` class="left-out"` : ''}><td data-label="${m.reference}"><a href="/control/requests/${x.row.id}">${x.row.reference}</a></td>
<td data-label="${m.guest}">${x.row.guest_first_name} ${x.row.guest_last_name}</td><td data-label="${m.status}">${m.statuses[x.row.status] ?? x.row.status}</td>
<td data-label="${m.amount}" class="num">${
        x.cents === undefined
          ? w.bulkLeftOut(m.statuses[x.row.status] ?? x.row.status)
          : html`${formatAmount(x.cents, x.row.currency, ctx)}${p.action === 'release' ? html`<br><small>${w.bulkReleaseNothing}</small>` : ''}`
      }</td></tr>`,
    )}</tbody></table></div>
${totalLine(ctx, w.bulkTotal, sums)}
<form method="post" action="/control/bulk">
${csrfField(ctx)}<input type="hidden" name="batch" value="${p.batchId}"><input type="hidden" name="action" value="${p.action}">
<input type="hidden" name="confirmed" value="yes">
${going.length > 0 && p.action !== 'release' ? reasonFields(ctx, p.action) : ''}
${going.map((x) => html`<input type="hidden" name="ids" value="${x.row.id}"><input type="hidden" name="amount_${x.row.id}" value="${String(x.cents)}">`)}
<div class="buttons">${going.length > 0 ? html`<button type="submit" class="${p.action === 'release' ? 'secondary' : 'danger'}">${w.bulkConfirmButton[p.action]}</button>` : ''}
<a href="/control/requests">${m.back}</a></div>
</form></section>`,
  });
}

/** The batch's progress: each row's action, amount and outcome, and the totals. */
export function bulkPage(ctx: PageContext, jobs: readonly (BulkJobRow & { reference: string | null })[]): string {
  const { m } = ctx;
  const w = BULK_MESSAGES[ctx.language];
  const pending = jobs.some((j) => j.state === 'queued' || j.state === 'running');
  const label: Record<string, string> = {
    queued: '…',
    running: '…',
    done: m.done,
    refused: m.refused,
    in_doubt: m.inDoubt.split(':')[0] ?? 'in doubt',
    failed: m.error,
  };
  const actionLabel = { capture: m.capture, release: m.release, refund: m.refund };
  const moving = jobs.flatMap((j) =>
    j.amount !== null && j.currency ? [{ ...j, cents: j.amount, currency: j.currency }] : [],
  );
  return page(ctx, {
    title: m.bulkActions,
    current: 'requests',
    // While rows are pending the page reloads itself every 2 s: progress without any script.
    refreshSeconds: pending ? 2 : undefined,
    body: html`<h1>${m.bulkActions}</h1>
<section class="card"><div class="table-wrap" tabindex="0"><table><caption>${m.bulkActions}</caption>
<thead><tr><th scope="col">${m.reference}</th><th scope="col">${m.action}</th><th scope="col" class="num">${m.amount}</th><th scope="col">${m.outcome}</th><th scope="col">${m.details}</th></tr></thead>
<tbody>${jobs.map(
      (
        j,
      ) => html`<tr><td data-label="${m.reference}"><a href="/control/requests/${j.payment_request_id}">${j.reference ?? j.payment_request_id}</a></td><td data-label="${m.action}">${actionLabel[j.action]}</td>
<td data-label="${m.amount}" class="num">${j.amount !== null && j.currency ? formatAmount(j.amount, j.currency, ctx) : '—'}</td>
<td data-label="${m.outcome}"><span class="status ${j.state}" data-state="${j.state}">${label[j.state] ?? j.state}</span></td><td data-label="${m.details}">${(j.reason_code && w.bulkReasons[j.reason_code]) ?? j.reason ?? ''}</td></tr>`,
    )}</tbody></table></div>
${totalLine(ctx, w.bulkTotal, totals(moving))}
${totalLine(ctx, w.bulkTotalDone, totals(moving.filter((j) => j.state === 'done')))}
<p><a href="/control/requests">${m.back}</a></p></section>`,
  });
}
