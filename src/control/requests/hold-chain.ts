import type { ControlDetailRow, LedgerRow } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { formatDateTime, type PageContext } from '../shell/index.ts';
import { HOLD_CHAIN_MESSAGES } from './hold-chain-words.ts';

/**
 * A request's holds as a chain: each placed hold, when it ends, and what became of it (the
 * guarantee now, released after a renewal replaced it, captured, lapsed). Shown once a hold was
 * renewed: a single hold says all of this in the details already.
 */
export function holdChain(ctx: PageContext, row: ControlDetailRow, ledger: readonly LedgerRow[]): SafeHtml | '' {
  const holds = ledger.filter((l) => l.kind === 'hold' && l.state === 'succeeded');
  if (!holds.some((h) => h.parent_id !== null)) return '';
  const w = HOLD_CHAIN_MESSAGES[ctx.language];
  const when = (d: Date | null) => formatDateTime(d, ctx, row.tenant_timezone);
  const fate = (h: LedgerRow): string => {
    const release = ledger.find((l) => l.parent_id === h.id && l.kind === 'release');
    if (release?.state === 'succeeded') return w.released(when(release.created_at));
    if (h.provider_transaction_id === row.provider_transaction_id) {
      if (row.status === 'AUTHORISED_TO_VALIDATE') return w.live;
      if (row.status === 'CAPTURED' || row.status === 'REFUNDED') return w.captured;
    }
    if (h.hold_expires_at && new Date(h.hold_expires_at).getTime() <= Date.now()) return w.lapsed;
    return w.releasing;
  };
  return html`<section class="card" aria-labelledby="holds-h"><h2 id="holds-h">${w.title}</h2>
<p class="hint">${w.explain}</p>
<div class="table-wrap" tabindex="0"><table><caption>${w.caption}</caption>
<thead><tr><th scope="col">${w.hold}</th><th scope="col">${w.placed}</th><th scope="col">${w.ends}</th><th scope="col">${w.now}</th></tr></thead>
<tbody>${holds.map(
    // Each hold by its place in the chain ("Hold 2 (renewal)"): the provider's transaction id is
    // for the provider's back office, not for the staff reading this page.
    (
      h,
      i,
    ) => html`<tr><td data-label="${w.hold}">${w.hold} ${i + 1}${h.parent_id ? html` <small>(${w.renewal})</small>` : ''}</td>
<td data-label="${w.placed}">${when(h.created_at)}</td><td data-label="${w.ends}">${when(h.hold_expires_at)}</td><td data-label="${w.now}">${fate(h)}</td></tr>`,
  )}</tbody></table></div></section>`;
}
