import type { ControlDetailRow, LedgerRow } from '../../db/index.ts';
import { type ChainedHold, holdChainOf } from '../../holds/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { formatDateTime, type PageContext } from '../shell/index.ts';
import { HOLD_CHAIN_MESSAGES } from './hold-chain-words.ts';

/** A request's chain of holds, as the holds room tells it, in the reader's words (nothing for one hold). */
export function holdChain(ctx: PageContext, row: ControlDetailRow, ledger: readonly LedgerRow[]): SafeHtml | '' {
  const chain = holdChainOf(row, ledger, new Date());
  if (chain.length === 0) return '';
  const w = HOLD_CHAIN_MESSAGES[ctx.language];
  const when = (d: Date | null) => formatDateTime(d, ctx, row.tenant_timezone);
  const fate = (h: ChainedHold): string => (h.fate === 'released' ? w.released(when(h.releasedAt)) : w[h.fate]);
  return html`<section class="card" aria-labelledby="holds-h"><h2 id="holds-h">${w.title}</h2>
<p class="hint">${w.explain}</p>
<div class="table-wrap" tabindex="0"><table><caption>${w.caption}</caption>
<thead><tr><th scope="col">${w.hold}</th><th scope="col">${w.placed}</th><th scope="col">${w.ends}</th><th scope="col">${w.now}</th></tr></thead>
<tbody>${chain.map(
    // Each hold by its place in the chain ("Hold 2 (renewal)"): the provider's transaction id is
    // for the provider's back office, not for the staff reading this page.
    (
      h,
      i,
    ) => html`<tr><td data-label="${w.hold}">${w.hold} ${i + 1}${h.renewal ? html` <small>(${w.renewal})</small>` : ''}</td>
<td data-label="${w.placed}">${when(h.placedAt)}</td><td data-label="${w.ends}">${when(h.endsAt)}</td><td data-label="${w.now}">${fate(h)}</td></tr>`,
  )}</tbody></table></div></section>`;
}
