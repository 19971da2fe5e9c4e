import type { Tenant } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import type { PageContext } from './layout.ts';

/** For a superuser: which tenant the page is about (a GET form; works without script). */
export function tenantChooser(
  ctx: PageContext,
  action: string,
  tenants: readonly Tenant[],
  selected?: string,
): SafeHtml {
  if (!ctx.user?.superuser) return html``;
  return html`<form method="get" action="${action}" class="card buttons">
<label for="tenant-choice">${ctx.m.tenant}</label>
<select id="tenant-choice" name="tenant">${tenants.map(
    (t) => html`<option value="${t.id}"${t.id === selected ? html` selected` : ''}>${t.name}</option>`,
  )}</select>
<button type="submit" class="secondary">${ctx.m.choose}</button></form>`;
}
