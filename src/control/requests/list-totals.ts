import type { CurrencyTotals } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { formatAmount, type PageContext } from '../shell/index.ts';
import { EXPORT_MESSAGES } from './export-words.ts';
import type { ListQuery } from './pages.ts';

/** Totals are summed over at most this many requests: a wider filter asks for narrower dates. */
export const TOTALS_CAP = 100_000;

/** The list's totals per currency for its filter, and the export links carrying the filter. */
export function totalsAndExport(
  ctx: PageContext,
  totals: readonly CurrencyTotals[] | undefined,
  query: ListQuery,
  canExport: boolean,
): SafeHtml {
  const e = EXPORT_MESSAGES[ctx.language];
  const number = new Intl.NumberFormat(ctx.m.locale);
  const count = (totals ?? []).reduce((n, t) => n + t.count, 0);
  const summary =
    totals === undefined
      ? html`<p>${e.totalsTooMany(number.format(TOTALS_CAP))}</p>`
      : html`<p>${e.totalsCount(number.format(count))}</p>${
          totals.length === 0
            ? ''
            : html`<div class="table-wrap" tabindex="0"><table>
<caption>${e.totalsHeading}</caption>
<thead><tr><th scope="col">${e.totalsCurrency}</th><th scope="col" class="num">${e.totalsRequested}</th><th scope="col" class="num">${e.totalsCaptured}</th><th scope="col" class="num">${e.totalsRefunded}</th></tr></thead>
<tbody>${totals.map(
                (t) =>
                  html`<tr><th scope="row" data-label="${e.totalsCurrency}">${t.currency}</th><td data-label="${e.totalsRequested}" class="num">${formatAmount(t.requested, t.currency, ctx)}</td><td data-label="${e.totalsCaptured}" class="num">${formatAmount(t.captured, t.currency, ctx)}</td><td data-label="${e.totalsRefunded}" class="num">${formatAmount(t.refunded, t.currency, ctx)}</td></tr>`,
              )}</tbody></table></div>`
        }`;
  const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v) as [string, string][]);
  const link = (what: 'requests' | 'ledger', label: string) => {
    const p = new URLSearchParams(params);
    p.set('what', what);
    return html`<a href="/control/requests/export?${p.toString()}" download>${label}</a>`;
  };
  const exports = canExport
    ? html`<p class="hint">${e.exportHint}</p><ul class="links"><li>${link('requests', e.exportRequests)}</li><li>${link('ledger', e.exportLedger)}</li></ul>`
    : html`<p class="hint">${e.exportChooseHotel}</p>`;
  return html`<section class="card" aria-labelledby="totals-h"><h2 id="totals-h">${e.totalsHeading}</h2>${summary}
<h3>${e.exportHeading}</h3>${exports}</section>`;
}
