import type { ControlDetailRow } from '../../db/index.ts';
import { isReplaceable } from '../../domain/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { csrfField, mayUse, type PageContext } from '../shell/index.ts';
import { REFUSAL_CONTROL_MESSAGES } from './refusal-words.ts';

/** A request linked to this one: its uuid and reference, to name it and link to it. */
export interface LinkedRequest {
  id: string;
  reference: string;
}

/**
 * "Send a new link" on a REFUSED or EXPIRED request not yet replaced, for a role that may send
 * a link again: one POST (its CSRF token), no confirmation page, as it moves no money and a
 * second click only finds the request the first made.
 */
export function newLinkForm(ctx: PageContext, row: ControlDetailRow): SafeHtml | '' {
  if (!isReplaceable(row.status) || row.replaced_by) return '';
  if (!mayUse(ctx.user?.standing ?? null, 'POST', '/control/requests/:id/new-link')) return '';
  const r = REFUSAL_CONTROL_MESSAGES[ctx.language];
  return html`<form method="post" action="/control/requests/${row.id}/new-link" class="new-link">
${csrfField(ctx)}
<p class="hint" id="new-link-hint">${r.sendNewLinkHint(row.guest_email)}</p>
<button type="submit" aria-describedby="new-link-hint">${r.sendNewLink}</button>
</form>`;
}

/** The request this one replaces, and the one that replaced it, each a link to its page. */
export function replacementLinks(
  ctx: PageContext,
  links: { replaces?: LinkedRequest; replacedBy?: LinkedRequest },
): SafeHtml | '' {
  if (!links.replaces && !links.replacedBy) return '';
  const r = REFUSAL_CONTROL_MESSAGES[ctx.language];
  const line = (label: string, to: LinkedRequest) =>
    html`<div><dt>${label}</dt><dd><a href="/control/requests/${to.id}">${to.reference}</a></dd></div>`;
  return html`<dl class="summary replacement">${links.replaces ? line(r.replaces, links.replaces) : ''}${
    links.replacedBy ? line(r.replacedBy, links.replacedBy) : ''
  }</dl>`;
}
