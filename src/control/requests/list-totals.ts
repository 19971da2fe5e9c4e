import type { CurrencyTotals } from '../../db/index.ts';
import { CSV_DIALECTS, type CsvDialect } from '../../exports/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { formatAmount, type PageContext } from '../shell/index.ts';
import { EXPORT_MESSAGES } from './export-words.ts';
import type { ListQuery } from './pages.ts';

/** Totals are summed over at most this many requests: a wider filter asks for narrower dates. */
export const TOTALS_CAP = 100_000;

/**
 * The list's totals per currency for its filter, and the export form carrying the filter: the
 * spreadsheet's dialect (`dialect`, the hotel's default, preselected) and a button per file.
 * `dialect` undefined: no single hotel is chosen, so nothing to export yet.
 */
export function totalsAndExport(
  ctx: PageContext,
  totals: readonly CurrencyTotals[] | undefined,
  query: ListQuery,
  dialect: CsvDialect | undefined,
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
  // The filter as hidden fields (a page link is no filter of the file), beside the choice.
  const hidden = Object.entries(query)
    .filter(([k, v]) => v && k !== 'after')
    .map(([k, v]) => html`<input type="hidden" name="${k}" value="${v as string}">`);
  const exports = dialect
    ? html`<p class="hint">${e.exportHint}</p>
<form method="get" action="/control/requests/export" class="export">${hidden}
<div class="field"><label for="csv-dialect">${e.dialectLabel}</label>
<select id="csv-dialect" name="csv_dialect" aria-describedby="csv-dialect-hint">${CSV_DIALECTS.map(
        (d) => html`<option value="${d}"${d === dialect ? html` selected` : ''}>${e.dialects[d]}</option>`,
      )}</select>
<p class="hint" id="csv-dialect-hint">${e.dialectHint}</p></div>
<div class="buttons"><button type="submit" name="what" value="requests" class="secondary">${e.exportRequests}</button> <button type="submit" name="what" value="ledger" class="secondary">${e.exportLedger}</button></div>
</form>`
    : html`<p class="hint">${e.exportChooseHotel}</p>`;
  return html`<section class="card" aria-labelledby="totals-h"><h2 id="totals-h">${e.totalsHeading}</h2>${summary}
<h3>${e.exportHeading}</h3>${exports}</section>`;
}
