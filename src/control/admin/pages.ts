import type { AdminUserWithRoles, TwoFactorState } from '../../admin-users/index.ts';
import type { AuditRow, JobRunRow, ScheduleRow, Tenant } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { formatIsoDate } from '../../i18n/index.ts';
import { ACCOUNT_MESSAGES, type SessionView, sessionsTable } from '../account/index.ts';
import { csrfField, formatDateTime, type PageContext, page } from '../shell/index.ts';
import { ROLE_MESSAGES } from '../team/index.ts';
import { auditDetail, jobCounts } from './readable.ts';
import { ADMIN_MESSAGES } from './words.ts';

/** A user's roles in words: "superuser", or "Hotel A: Manager, Hotel B: Viewer". */
function rolesText(ctx: PageContext, u: AdminUserWithRoles): string {
  const r = ROLE_MESSAGES[ctx.language];
  const w = ADMIN_MESSAGES[ctx.language];
  if (u.superuser) return w.superuser;
  return u.roles.map((x) => `${x.tenantName}: ${r.roleNames[x.role]}`).join(', ') || '—';
}

const problems = (list: readonly string[]): SafeHtml =>
  list.length === 0 ? html`` : html`<div class="flash error" role="alert">${list.map((p) => html`<p>${p}</p>`)}</div>`;

export function tenantsPage(ctx: PageContext, tenants: readonly Tenant[], issues: readonly string[] = []): string {
  const { m } = ctx;
  const w = ADMIN_MESSAGES[ctx.language];
  return page(ctx, {
    title: w.tenants,
    current: 'tenants',
    times: true,
    body: html`<h1>${w.tenants}</h1>
<section class="card"><div class="table-wrap" tabindex="0"><table><caption>${w.tenants}</caption>
<thead><tr><th scope="col">${w.name}</th><th scope="col">${w.timezone}</th><th scope="col">${m.created}</th><th scope="col">${m.actions}</th></tr></thead>
<tbody>${tenants.map(
      (
        t,
      ) => html`<tr><td data-label="${w.name}">${t.name}<br><small><code>${t.id}</code></small></td><td data-label="${w.timezone}">${t.timezone}</td><td data-label="${m.created}">${formatDateTime(t.created_at, ctx)}</td>
<td data-label="${m.actions}"><a href="/control/settings?tenant=${t.id}">${m.navSettings}</a> · <a href="/control/keys?tenant=${t.id}">${m.navKeys}</a></td></tr>`,
    )}</tbody></table></div></section>
<section class="card" aria-labelledby="new-tenant-h"><h2 id="new-tenant-h">${w.newTenant}</h2>${problems(issues)}
<form method="post" action="/control/tenants">${csrfField(ctx)}
<div class="field"><label for="t-name">${w.name}</label><input id="t-name" name="name" required maxlength="200"></div>
<div class="field"><label for="t-tz">${w.timezone}</label><input id="t-tz" name="timezone" value="Europe/Paris" required></div>
<button type="submit">${m.create}</button></form></section>`,
  });
}

export function usersPage(
  ctx: PageContext,
  users: readonly AdminUserWithRoles[],
  tenants: readonly Tenant[],
  issues: readonly string[] = [],
): string {
  const { m } = ctx;
  const w = ADMIN_MESSAGES[ctx.language];
  const r = ROLE_MESSAGES[ctx.language];
  return page(ctx, {
    title: w.users,
    current: 'users',
    body: html`<h1>${w.users}</h1>
<section class="card"><div class="table-wrap" tabindex="0"><table><caption>${w.users}</caption>
<thead><tr><th scope="col">${m.username}</th><th scope="col">${w.role}</th><th scope="col">${m.status}</th><th scope="col">${m.actions}</th></tr></thead>
<tbody>${users.map(
      (
        u,
      ) => html`<tr><td data-label="${m.username}"><a href="/control/users/${encodeURIComponent(u.username)}">${u.username}</a></td><td data-label="${w.role}">${rolesText(ctx, u)}</td>
<td data-label="${m.status}"><span class="status ${u.disabled ? 'revoked' : 'active'}">${u.disabled ? w.disabled : w.active}</span></td>
<td data-label="${m.actions}">${
        u.id === ctx.user?.id
          ? ''
          : html`<form method="post" action="/control/users/${u.username}/${u.disabled ? 'enable' : 'disable'}">${csrfField(ctx)}
<button type="submit" class="secondary">${u.disabled ? m.enable : m.disable}</button></form>`
      }</td></tr>`,
    )}</tbody></table></div></section>
<section class="card" aria-labelledby="new-user-h"><h2 id="new-user-h">${w.newUser}</h2>${problems(issues)}
<form method="post" action="/control/users">${csrfField(ctx)}
<div class="field"><label for="u-name">${m.username}</label><input id="u-name" name="username" required maxlength="64" autocomplete="off"></div>
<div class="field"><label for="u-pw">${m.password}</label><input id="u-pw" name="password" type="password" required minlength="12" autocomplete="new-password"></div>
<div class="field"><label for="u-tenant">${m.tenant}</label><select id="u-tenant" name="tenant"><option value="">${w.superuser}</option>${tenants.map(
      (t) => html`<option value="${t.id}">${t.name}</option>`,
    )}</select></div>
<div class="field"><label for="u-role">${r.role}</label><select id="u-role" name="role">${(
      ['viewer', 'frontdesk', 'manager'] as const
    ).map((x) => html`<option value="${x}">${r.roleNames[x]} (${r.roleHints[x]})</option>`)}</select></div>
<button type="submit">${m.create}</button></form></section>`,
  });
}

/** One user, for a superuser: role, status, second factor, open sessions; end them, reset the factor. */
export function userPage(
  ctx: PageContext,
  p: { user: AdminUserWithRoles; twoFactor: TwoFactorState; sessions: readonly SessionView[] },
): string {
  const { m } = ctx;
  const w = ADMIN_MESSAGES[ctx.language];
  const a = ACCOUNT_MESSAGES[ctx.language];
  const u = p.user;
  const role = rolesText(ctx, u);
  const base = `/control/users/${encodeURIComponent(u.username)}`;
  return page(ctx, {
    title: `${a.user} ${u.username}`,
    current: 'users',
    body: html`<h1>${a.user} ${u.username}</h1>
<section class="card"><dl class="summary">
<div><dt>${w.role}</dt><dd>${role}</dd></div>
<div><dt>${m.status}</dt><dd>${u.disabled ? w.disabled : w.active}</dd></div>
<div><dt>${a.twoFactor}</dt><dd>${a.twoFactorState[p.twoFactor] ?? p.twoFactor}</dd></div>
</dl></section>
<section class="card" aria-labelledby="user-sessions-h"><h2 id="user-sessions-h">${a.sessions}</h2>
${sessionsTable(ctx, p.sessions, false)}
<form method="post" action="${base}/end-sessions">${csrfField(ctx)}<button type="submit" class="secondary">${a.endSessions}</button></form></section>
<section class="card" aria-labelledby="user-2fa-h"><h2 id="user-2fa-h">${a.resetTwoFactor}</h2>
<p class="hint">${a.resetTwoFactorHint}</p>
<form method="post" action="${base}/reset-2fa">${csrfField(ctx)}<button type="submit" class="danger">${a.resetTwoFactor}</button></form></section>
<p><a href="/control/users">${m.back}</a></p>`,
  });
}

/** Who started a run, in words: the scheduler, the command line, or the user by name. */
function startedBy(w: (typeof ADMIN_MESSAGES)['en'], by: string | null): string {
  if (by === null) return '—';
  if (by === 'scheduler') return w.byScheduler;
  if (by === 'cli') return w.byCommandLine;
  return by.startsWith('user:') ? by.slice('user:'.length) : by;
}

export function schedulesPage(
  pageCtx: PageContext,
  schedules: readonly ScheduleRow[],
  runs: readonly JobRunRow[],
  issues: readonly string[] = [],
  hotelZone?: string,
): string {
  // One zone on the page: the hotel's (hotelZone: the user's hotel, or the one zone every hotel
  // is in), else the zone the schedules share (a cron "0 7 * * *" in Europe/Paris then reads
  // 07:00), else UTC; each job's own zone is in its form.
  const zones = [...new Set(schedules.map((s) => s.timezone))];
  const zone = hotelZone ?? (zones.length === 1 ? zones[0] : undefined);
  const ctx = zone ? { ...pageCtx, timeZone: zone } : pageCtx;
  const { m } = ctx;
  const w = ADMIN_MESSAGES[ctx.language];
  const when = (d: Date | null) => (d ? formatDateTime(d, ctx) : '—');
  return page(ctx, {
    title: w.schedules,
    current: 'schedules',
    times: true,
    body: html`<h1>${w.schedules}</h1>${problems(issues)}
${schedules.map(
  (
    s,
  ) => html`<section class="card" aria-labelledby="job-${s.job}"><h2 id="job-${s.job}">${w.jobNames[s.job] ?? s.job} <small><code>${s.job}</code></small></h2>
<p>${w.nextRun}: ${when(s.next_run_at)} · ${w.lastRun}: ${when(s.last_run_at)}${s.last_outcome ? html` <span class="status ${s.last_outcome}">${w.runOutcomes[s.last_outcome] ?? s.last_outcome}</span>` : ''}</p>
<form method="post" action="/control/schedules/${s.job}" class="filters">${csrfField(ctx)}
<div class="field"><label for="cron-${s.job}">${w.cron}</label><input id="cron-${s.job}" name="cron" value="${s.cron}" required></div>
<div class="field"><label for="tz-${s.job}">${w.timezone}</label><input id="tz-${s.job}" name="timezone" value="${s.timezone}" required></div>
<div class="field check"><label for="on-${s.job}"><input id="on-${s.job}" type="checkbox" name="enabled" value="on"${s.enabled ? html` checked` : ''}> ${w.enabled}</label></div>
<div class="field"><button type="submit">${m.save}</button></div></form>
<form method="post" action="/control/schedules/${s.job}/run">${csrfField(ctx)}<button type="submit" class="secondary">${w.runNow}</button></form>
</section>`,
)}
<section class="card"><div class="table-wrap" tabindex="0"><table><caption>${w.runs}</caption>
<thead><tr><th scope="col">${m.when}</th><th scope="col">${w.job}</th><th scope="col">${w.runFor}</th><th scope="col">${w.startedBy}</th><th scope="col">${m.outcome}</th><th scope="col">${w.counts}</th><th scope="col">${m.error}</th></tr></thead>
<tbody>${runs.map(
      (
        r,
      ) => html`<tr><td data-label="${m.when}">${formatDateTime(r.started_at, ctx)}</td><td data-label="${w.job}">${w.jobNames[r.job] ?? r.job}</td>
<td data-label="${w.runFor}">${r.run_date ? formatIsoDate(r.run_date, m.locale) : '—'}</td><td data-label="${w.startedBy}">${startedBy(w, r.started_by)}</td>
<td data-label="${m.outcome}"><span class="status ${r.outcome}">${w.runOutcomes[r.outcome] ?? r.outcome}</span>${r.attempt > 1 ? html` <small>${w.attempt(r.attempt)}</small>` : ''}</td>
<td data-label="${w.counts}">${jobCounts(ctx, r.counts)}</td><td data-label="${m.error}">${r.error ? html`<code>${r.error}</code>` : ''}</td></tr>`,
    )}</tbody></table></div></section>`,
  });
}

export interface AuditQuery {
  action?: string;
  username?: string;
  reference?: string;
  from?: string;
  to?: string;
}

/** What an entry acted on, by name: the request's reference, the hotel's name. */
function auditTarget(a: AuditRow): SafeHtml {
  const label = a.request_reference ?? a.target ?? a.payment_request_id ?? '';
  if (a.payment_request_id) return html`<a href="/control/requests/${a.payment_request_id}">${label}</a>`;
  // A hotel's own settings name the hotel, not its id.
  if (a.target && a.target === a.tenant_id && a.tenant_name) return html`${a.tenant_name}`;
  return html`${label}`;
}

export function auditPage(
  ctx: PageContext,
  p: { rows: readonly AuditRow[]; query: AuditQuery; next?: string },
): string {
  const { m } = ctx;
  const w = ADMIN_MESSAGES[ctx.language];
  const q = p.query;
  const actions = Object.entries(w.auditActions).sort(([, a], [, b]) => a.localeCompare(b, ctx.m.locale));
  return page(ctx, {
    title: w.audit,
    current: 'audit',
    times: true,
    body: html`<h1>${w.audit}</h1>
<form method="get" action="/control/audit" class="card filters">
<div class="field"><label for="a-action">${m.action}</label><select id="a-action" name="action"><option value="">${w.auditAnyAction}</option>${actions.map(
      ([code, label]) => html`<option value="${code}"${q.action === code ? html` selected` : ''}>${label}</option>`,
    )}</select></div>
<div class="field"><label for="a-user">${m.username}</label><input id="a-user" name="username" value="${q.username ?? ''}" maxlength="64"></div>
<div class="field"><label for="a-ref">${m.reference}</label><input id="a-ref" name="reference" value="${q.reference ?? ''}" maxlength="100"></div>
<div class="field"><label for="a-from">${w.auditFrom}</label><input id="a-from" name="from" type="date" value="${q.from ?? ''}"></div>
<div class="field"><label for="a-to">${w.auditTo}</label><input id="a-to" name="to" type="date" value="${q.to ?? ''}"></div>
<div class="field"><button type="submit">${m.apply}</button></div></form>
<section class="card">${
      p.rows.length === 0
        ? html`<p>${w.noAudit}</p>`
        : html`<div class="table-wrap" tabindex="0"><table><caption>${w.audit}</caption>
<thead><tr><th scope="col">${m.when}</th><th scope="col">${m.who}</th><th scope="col">${m.action}</th><th scope="col">${w.target}</th>
<th scope="col">${m.outcome}</th><th scope="col">${w.ip}</th><th scope="col">${m.details}</th></tr></thead>
<tbody>${p.rows.map(
            (
              a,
            ) => html`<tr><td data-label="${m.when}">${formatDateTime(a.at, ctx)}</td><td data-label="${m.who}">${a.username ?? ''}</td>
<td data-label="${m.action}">${w.auditActions[a.action] ?? a.action}</td><td data-label="${w.target}">${auditTarget(a)}</td>
<td data-label="${m.outcome}"><span class="status ${a.outcome}">${w.auditOutcomes[a.outcome] ?? a.outcome}</span></td><td data-label="${w.ip}">${a.ip ?? ''}</td><td data-label="${m.details}">${auditDetail(ctx, a)}</td></tr>`,
          )}</tbody></table></div>`
    }
${p.next ? html`<nav class="pager" aria-label="${w.audit}"><a href="${p.next}" rel="next">${m.nextPage}</a></nav>` : ''}</section>`,
  });
}
