import type { ControlDetailRow, HistoryRow } from '../../db/index.ts';
import { isDeclineReason } from '../../domain/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { formatDateTime, type PageContext } from '../shell/index.ts';
import { REFUSAL_CONTROL_MESSAGES } from './refusal-words.ts';
import { REQUESTS_MESSAGES } from './words.ts';

/**
 * A request the bank refused, on its page: why (the closed list of reasons, in the reader's
 * language, with the provider's code), when, and what staff can do now. REFUSED is final, so
 * this is where the bank's answer stays readable; the refusal moved no money, so the ledger
 * has nothing to show for it.
 */
export function refusalNotice(ctx: PageContext, row: ControlDetailRow, history: readonly HistoryRow[]): SafeHtml | '' {
  if (row.status !== 'REFUSED') return '';
  const r = REFUSAL_CONTROL_MESSAGES[ctx.language];
  const reasons = REQUESTS_MESSAGES[ctx.language].declineReasons;
  const refusedAt = history.findLast((h) => h.to_status === 'REFUSED')?.created_at ?? row.updated_at;
  const reason = isDeclineReason(row.decline_reason) ? reasons[row.decline_reason] : r.reasonNotKept;
  const code =
    row.decline_code && row.decline_code !== row.decline_reason
      ? html` <small><code>${row.decline_code}</code></small>`
      : '';
  return html`<section class="flash error" role="status" aria-labelledby="refusal-h">
<h2 id="refusal-h">${r.refusedTitle}</h2>
<p>${r.refusedText(formatDateTime(refusedAt, ctx), reason)}${code}</p>
<p>${r.refusedNextSteps}</p>
</section>`;
}
