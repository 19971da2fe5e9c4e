import type { RoleRow, Tenant } from '../../db/index.ts';
import { TENANT_ROLES } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { csrfField, type PageContext, page, tenantChooser } from '../shell/index.ts';
import { ROLE_MESSAGES } from './words.ts';

function roleOptions(ctx: PageContext, selected?: string): SafeHtml {
  const r = ROLE_MESSAGES[ctx.language];
  return html`${TENANT_ROLES.map(
    (x) => html`<option value="${x}"${x === selected ? html` selected` : ''}>${r.roleNames[x]}</option>`,
  )}`;
}

/**
 * The Team page: a tenant's users and roles; change, remove, invite an existing user by name or
 * anyone by e-mail. Nothing on it depends on who a name or an address is elsewhere.
 */
export function teamPage(
  ctx: PageContext,
  p: {
    tenant: Tenant;
    tenants: readonly Tenant[];
    rows: readonly RoleRow[];
  },
): string {
  const r = ROLE_MESSAGES[ctx.language];
  const t = p.tenant;
  const tenantField = html`<input type="hidden" name="tenant" value="${t.id}">`;
  const rows = p.rows.map((row) => {
    const me = row.user_id === ctx.user?.id;
    const id = `role-${row.user_id}`;
    return html`<tr><th scope="row" data-label="${r.username}">${row.username}${me ? html` <small>${r.you}</small>` : ''}</th>
<td data-label="${r.role}">${r.roleNames[row.role]}</td>
<td data-label="${r.status}"><span class="status ${row.disabled_at ? 'revoked' : 'active'}">${row.disabled_at ? r.disabled : r.active}</span></td>
<td data-label="${r.actions}"><form method="post" action="/control/team/${row.user_id}/role" class="buttons">${csrfField(ctx)}${tenantField}
<select id="${id}" name="role" aria-label="${r.roleOf(row.username)}">${roleOptions(ctx, row.role)}</select>
<button type="submit" class="secondary">${r.change}</button></form>
<form method="post" action="/control/team/${row.user_id}/remove">${csrfField(ctx)}${tenantField}
<button type="submit" class="danger">${r.remove}</button></form></td></tr>`;
  });
  return page(ctx, {
    title: `${r.title} · ${t.name}`,
    current: 'team',
    body: html`<h1>${r.title} · ${t.name}</h1>
${tenantChooser(ctx, '/control/team', p.tenants, t.id)}
<p>${r.intro(t.name)}</p>
<section class="card">${
      rows.length
        ? html`<div class="table-wrap" tabindex="0"><table><caption>${r.title}</caption>
<thead><tr><th scope="col">${r.username}</th><th scope="col">${r.role}</th><th scope="col">${r.status}</th><th scope="col">${r.actions}</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
        : html`<p>${r.nobody}</p>`
    }
<ul class="hint">${TENANT_ROLES.map((x) => html`<li><strong>${r.roleNames[x]}</strong>: ${r.roleHints[x]}</li>`)}</ul></section>
<section class="card" aria-labelledby="team-add-h"><h2 id="team-add-h">${r.addExisting}</h2><p class="hint">${r.addExistingHint}</p>
<form method="post" action="/control/team/grant">${csrfField(ctx)}${tenantField}
<div class="field"><label for="add-name">${r.username}</label><input id="add-name" name="username" required maxlength="64" autocomplete="off"></div>
<div class="field"><label for="add-role">${r.role}</label><select id="add-role" name="role">${roleOptions(ctx, 'viewer')}</select></div>
<button type="submit" class="secondary">${r.add}</button></form></section>
<section class="card" aria-labelledby="team-mail-h"><h2 id="team-mail-h">${r.inviteByEmail}</h2><p class="hint">${r.inviteByEmailHint}</p>
<form method="post" action="/control/team/invite">${csrfField(ctx)}${tenantField}
<div class="field"><label for="mail-to">${r.email}</label><input id="mail-to" name="email" type="email" required maxlength="254" autocomplete="off"></div>
<div class="field"><label for="mail-role">${r.role}</label><select id="mail-role" name="role">${roleOptions(ctx, 'viewer')}</select></div>
<button type="submit">${r.sendInvitation}</button></form></section>`,
  });
}
