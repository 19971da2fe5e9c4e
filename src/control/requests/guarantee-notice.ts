import type { ControlDetailRow, LedgerRow } from '../../db/index.ts';
import { isDeclineReason } from '../../domain/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { formatIsoDate } from '../../i18n/index.ts';
import { formatDateTime, type PageContext } from '../shell/index.ts';
import { GUARANTEE_CONTROL_MESSAGES } from './guarantee-words.ts';
import { REQUESTS_MESSAGES } from './words.ts';

/**
 * A guarantee in trouble on the request's page. A hold declined softly before the check-in day
 * (the card still the guarantee): why, that it is tried again, when a refusal becomes final. A
 * failed guarantee: while it waits for a new card (ERROR after a refused hold), a notice that it
 * needs attention, why, whether the guest was asked, and what happens next; once the guest gave
 * another card, one line of what happened. The refusals it counts are the refused holds the
 * page lists (`ledger`), so the two never disagree.
 */
export function guaranteeNotice(ctx: PageContext, row: ControlDetailRow, ledger: readonly LedgerRow[]): SafeHtml | '' {
  const g = GUARANTEE_CONTROL_MESSAGES[ctx.language];
  if (row.status === 'AUTHORISED' && row.hold_decline_reason) {
    const final = row.checkin ? formatIsoDate(row.checkin, ctx.m.locale) : null;
    return html`<section class="flash error" role="status" aria-labelledby="guarantee-h">
<h2 id="guarantee-h">${g.declinedTitle}</h2>
<p>${g.declinedText(declineWords(ctx, row) ?? '', final)}${declineCode(row)}</p>
</section>`;
  }
  if (!row.guarantee_failed_at) return '';
  const refusals = ledger.filter((l) => l.kind === 'hold' && l.state === 'refused').length;
  const when = formatDateTime(row.guarantee_failed_at, ctx);
  // A refused renewal: the old hold still guarantees until it lapses, a new card replaces it.
  if (row.status === 'AUTHORISED_TO_VALIDATE' && row.hold_decline_reason) {
    return html`<section class="flash error" role="status" aria-labelledby="guarantee-h">
<h2 id="guarantee-h">${g.failedTitle}</h2>
<p>${g.renewalRefused(when, formatDateTime(row.hold_expires_at, ctx), declineWords(ctx, row))}${declineCode(row)}</p>
<p>${row.guarantee_asks > 0 ? g.guestAsked(row.guarantee_asks) : g.guestNotAsked}</p>
<p>${g.renewalNextSteps}</p>
</section>`;
  }
  if (row.status !== 'ERROR') {
    return html`<p class="hint" role="status">${g.recovered(refusals, when)}</p>`;
  }
  return html`<section class="flash error" role="status" aria-labelledby="guarantee-h">
<h2 id="guarantee-h">${g.failedTitle}</h2>
<p>${g.failedText(when, refusals, declineWords(ctx, row))}${declineCode(row)}</p>
<p>${row.guarantee_asks > 0 ? g.guestAsked(row.guarantee_asks) : g.guestNotAsked}</p>
<p>${g.nextSteps}</p>
</section>`;
}

/**
 * The bank's answer in the reader's language (the closed list of decline reasons): the provider's
 * own words are English, or a code. A refusal from before reasons were kept reads "reason not known".
 */
function declineWords(ctx: PageContext, row: ControlDetailRow): string | null {
  const reasons = REQUESTS_MESSAGES[ctx.language].declineReasons;
  if (isDeclineReason(row.hold_decline_reason)) return reasons[row.hold_decline_reason];
  return row.last_hold_error ? reasons.other : null;
}

/** The provider's code (or, without one, its message), as a detail in a <code>. */
function declineCode(row: ControlDetailRow): SafeHtml | '' {
  const code = row.hold_decline_code ?? row.last_hold_error;
  return code ? html` <small><code>${code}</code></small>` : '';
}

/** The requests list's filter: every request, or only failed guarantees waiting for a card. */
export function guaranteeFilter(ctx: PageContext, selected: string | undefined): SafeHtml {
  const g = GUARANTEE_CONTROL_MESSAGES[ctx.language];
  return html`<div class="field"><label for="f-guarantee">${g.filterLabel}</label><select id="f-guarantee" name="guarantee">
<option value="">${g.filterAny}</option><option value="failed"${selected === 'failed' ? html` selected` : ''}>${g.filterFailed}</option>
</select></div>`;
}
