import { type Currency, formatMoney } from '../../domain/index.ts';
import { html, htmlDocument, type SafeHtml } from '../../html/index.ts';
import { CONTROL_LANGUAGES, type ControlLanguage } from './language.ts';
import { mayUse, type Standing } from './route-roles.ts';
import { CONTROL_SCRIPT_PATH, CONTROL_STYLESHEET_PATH } from './styles.ts';
import { CONTROL_MESSAGES, type ControlMessages } from './words.ts';

/** Who is signed in, as every page needs it. */
export interface ControlUser {
  id: string;
  username: string;
  /**
   * The tenant the user works on now (kept in their session; switched in the header). null: a
   * superuser (every tenant), or a user with no role on any tenant (who reaches only their
   * account: `standing` is null).
   */
  tenantId: string | null;
  /** Sees every tenant. */
  superuser: boolean;
  /** Their role on `tenantId`, 'superuser', or null (no role anywhere): what route-roles.ts checks. */
  standing: Standing;
  /** The tenants they hold a role on, by name (the header's switch when more than one). */
  tenants: readonly { id: string; name: string; role: string }[];
  /** Two factors are required of them and they have none yet: every page but enrolment is closed. */
  mustEnrol?: boolean;
}

export type Section =
  | 'today'
  | 'requests'
  | 'books'
  | 'payouts'
  | 'webhooks'
  | 'keys'
  | 'settings'
  | 'tenants'
  | 'users'
  | 'schedules'
  | 'audit'
  | 'team'
  | 'account';

export interface PageContext {
  language: ControlLanguage;
  m: ControlMessages;
  user?: ControlUser;
  csrf: string;
  flash?: { kind: 'ok' | 'error' | 'doubt'; text: string };
  /** The page's own path and query, for the language switch to come back to. */
  here: string;
  /**
   * Where times are shown: the hotel's zone for a hotel's user, UTC for a superuser (whose
   * pages show a row of a hotel in that hotel's zone). Every time carries its zone's name.
   */
  timeZone: string;
}

/** A time in the user's language and the hotel's zone (`timeZone`, else the page's), labelled. */
/**
 * The two formatters of a language and time zone, made once: making them costs ten times what
 * formatting does, and a list page formats a date or two per row. As many as languages times
 * the zones in use (IANA names, checked where they are set).
 */
const dateTimeFormats = new Map<string, { when: Intl.DateTimeFormat; zone: Intl.DateTimeFormat }>();

export function formatDateTime(d: Date | string | null, ctx: PageContext, timeZone = ctx.timeZone): string {
  if (d === null) return '';
  const date = new Date(d);
  const key = `${ctx.m.locale}\u0000${timeZone}`;
  let f = dateTimeFormats.get(key);
  if (!f) {
    f = {
      when: new Intl.DateTimeFormat(ctx.m.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }),
      zone: new Intl.DateTimeFormat(ctx.m.locale, { timeZone, timeZoneName: 'short' }),
    };
    dateTimeFormats.set(key, f);
  }
  const when = f.when.format(date);
  const zone = f.zone.formatToParts(date).find((p) => p.type === 'timeZoneName')?.value;
  return zone ? `${when} ${zone}` : when;
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * A calendar day (`YYYY-MM-DD`: a check-in) as the page writes its times' dates ("10 Dec 2026",
 * "10 déc. 2026"): one style on a page, never ISO beside words. Text that is no day stays text.
 */
export function formatDay(iso: string | null, ctx: PageContext): string {
  if (!iso) return '';
  const d = new Date(`${iso}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso) || Number.isNaN(d.getTime())) return iso;
  let f = dayFormats.get(ctx.m.locale);
  if (!f) {
    f = new Intl.DateTimeFormat(ctx.m.locale, { dateStyle: 'medium', timeZone: 'UTC' });
    dayFormats.set(ctx.m.locale, f);
  }
  return f.format(d);
}

/**
 * A zone by its name in the reader's language and its IANA id ("Central European Time
 * (Europe/Paris)"); UTC is UTC.
 */
export function zoneName(ctx: PageContext, timeZone = ctx.timeZone): string {
  if (/^(Etc\/)?(UTC|GMT|Universal|Zulu)$/.test(timeZone)) return 'UTC';
  const name = new Intl.DateTimeFormat(ctx.m.locale, { timeZone, timeZoneName: 'longGeneric' })
    .formatToParts(new Date())
    .find((p) => p.type === 'timeZoneName')?.value;
  return name ? `${name} (${timeZone})` : timeZone;
}

export function formatAmount(cents: number, currency: Currency | string, ctx: PageContext): string {
  return formatMoney(cents, currency as Currency, ctx.m.locale);
}

/** A hidden CSRF field: every state-changing form carries one. */
export const csrfField = (ctx: PageContext) => html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;

function nav(ctx: PageContext, current: Section | undefined): SafeHtml {
  const { m, user } = ctx;
  if (!user || user.mustEnrol) return html``;
  // Only what the user's role may open (route-roles.ts decides; the routes refuse the rest).
  const items: [Section, string, string][] = (
    [
      ['today', '/control/today', m.navToday],
      ['requests', '/control/requests', m.navRequests],
      ['books', '/control/books', m.navBooks],
      ['payouts', '/control/payouts', m.navPayouts],
      ['webhooks', '/control/webhooks', m.navWebhooks],
      ['keys', '/control/keys', m.navKeys],
      ['settings', '/control/settings', m.navSettings],
      ['team', '/control/team', m.navTeam],
      ['tenants', '/control/tenants', m.navTenants],
      ['users', '/control/users', m.navUsers],
      ['schedules', '/control/schedules', m.navSchedules],
      ['audit', '/control/audit', m.navAudit],
    ] as [Section, string, string][]
  ).filter(([, href]) => mayUse(user.standing, 'GET', href));
  if (items.length === 0) return html``;
  const list = (cls: string) =>
    html`<ul class="${cls}">${items.map(
      ([id, href, label]) =>
        html`<li><a href="${href}"${id === current ? html` aria-current="page"` : ''}>${label}</a></li>`,
    )}</ul>`;
  // The same items twice: in a row on a wide screen, behind one Menu button on a phone (a
  // <details>, no script). The stylesheet shows one of them (the other is display: none, so
  // neither read nor focused).
  return html`<nav class="main" aria-label="${m.navigation}">${list('nav-wide')}
<details class="nav-fold"><summary>${m.menu}</summary>${list('nav-folded')}</details></nav>`;
}

/** A user with roles on several tenants switches here; the choice lives in their session. */
function tenantSwitch(ctx: PageContext): SafeHtml {
  const user = ctx.user;
  if (!user || user.mustEnrol || user.tenants.length < 2) return html``;
  const r = ctx.m;
  return html`<form method="post" action="/control/tenant" class="tenant-switch">${csrfField(ctx)}
<label for="tenant-switch">${r.currentHotel}</label>
<select id="tenant-switch" name="tenant">${user.tenants.map(
    (t) =>
      html`<option value="${t.id}"${t.id === user.tenantId ? html` selected` : ''}>${t.name} (${r.roleNames[t.role as 'viewer'] ?? t.role})</option>`,
  )}</select>
<button type="submit" class="secondary">${r.switchHotel}</button></form>`;
}

function languageSwitch(ctx: PageContext): SafeHtml {
  const others = CONTROL_LANGUAGES.filter((l) => l !== ctx.language);
  return html`${others.map(
    (l) =>
      html`<a href="/control/language/${l}?back=${encodeURIComponent(ctx.here)}" lang="${l}" hreflang="${l}">${CONTROL_MESSAGES[l].languageName}</a>`,
  )}`;
}

export function page(
  ctx: PageContext,
  p: {
    title: string;
    current?: Section;
    body: SafeHtml;
    refreshSeconds?: number;
    /**
     * The page shows times: all of them in `ctx.timeZone` (one zone per page), which a line at
     * its foot names.
     */
    times?: boolean;
  },
): string {
  const { m, user } = ctx;
  return htmlDocument({
    lang: ctx.language,
    title: `${p.title} · ${m.backOffice}`,
    head: html`${
      p.refreshSeconds
        ? html`<meta http-equiv="refresh" content="${p.refreshSeconds}">
`
        : ''
    }<link rel="stylesheet" href="${CONTROL_STYLESHEET_PATH}">
<script src="${CONTROL_SCRIPT_PATH}" defer></script>
`,
    body: html`<a class="skip" href="#content">${m.skipToContent}</a>
<header class="site">
<p class="brand">${m.backOffice}</p>
<div class="who">
${languageSwitch(ctx)}
${tenantSwitch(ctx)}
${
  user
    ? html`<a href="/control/account"${p.current === 'account' ? html` aria-current="page"` : ''}>${m.signedInAs(user.username)}</a>
<form method="post" action="/control/sign-out">${csrfField(ctx)}<button type="submit" class="link">${m.signOut}</button></form>`
    : ''
}
</div>
</header>
${nav(ctx, p.current)}
<main id="content" tabindex="-1">
${ctx.flash ? html`<p class="flash ${ctx.flash.kind === 'ok' ? '' : ctx.flash.kind}" role="status">${ctx.flash.text}</p>` : ''}
${p.body}
${p.times ? html`<p class="hint zone-note">${m.timesIn(zoneName(ctx))}</p>` : ''}
</main>`,
  }).value;
}

/** A page that only says something: not found, a refused form, too many attempts. */
export function messagePage(ctx: PageContext, title: string, text: string, link = '/control/requests'): string {
  return page(ctx, {
    title,
    body: html`<section class="card"><h1>${title}</h1>${text ? html`<p>${text}</p>` : ''}
<p><a href="${link}">${ctx.m.back}</a></p></section>`,
  });
}

export const notFoundPage = (ctx: PageContext) => messagePage(ctx, ctx.m.notFound, ctx.m.notFoundText);
