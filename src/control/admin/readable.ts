import type { AuditRow } from '../../db/index.ts';
import { isMoneyReason } from '../../domain/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { REASON_MESSAGES } from '../requests/index.ts';
import { SETTINGS_MESSAGES } from '../settings/index.ts';
import { formatAmount, formatDateTime, type PageContext } from '../shell/index.ts';
import { ROLE_MESSAGES } from '../team/index.ts';
import { eventName, WEBHOOK_MESSAGES } from '../webhooks/index.ts';
import { ADMIN_MESSAGES } from './words.ts';

/**
 * What the audit and the jobs' runs record (detail objects, counts) as a reader wants it: each
 * key by its label and each value in words in the page's language; never JSON. A code nothing
 * names (a key or value added later) is shown in a <code>, as a code.
 */

const CODE = /^[a-z][a-z0-9_]*$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Detail fields that hold a role ("none": no role anywhere; "unlisted": a route with no line). */
const ROLE_DETAILS = new Set(['role', 'before', 'need']);

/** A setting by its label, without the hint in brackets ("Accent colour", not its format). */
function settingName(ctx: PageContext, field: string): string {
  const label = SETTINGS_MESSAGES[ctx.language].settingLabels[field];
  return label ? label.replace(/\s*\(.*\)$/, '') : field;
}

/** A day as the page's language writes it; text that only looks like one (2026-02-31) stays text. */
function day(ctx: PageContext, iso: string): string {
  const d = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso) return iso;
  return new Intl.DateTimeFormat(ctx.m.locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(d);
}

function label(ctx: PageContext, key: string): SafeHtml {
  const w = ADMIN_MESSAGES[ctx.language];
  const word = w.auditDetail[key] ?? w.jobCounts[key];
  return word ? html`${word}` : html`<code>${key}</code>`;
}

/** One value, whatever its shape: a time in the page's zone, a day, a number, a code named. */
export function readableValue(ctx: PageContext, v: unknown): SafeHtml {
  const w = ADMIN_MESSAGES[ctx.language];
  if (v === null || v === undefined || v === '') return html`—`;
  if (typeof v === 'boolean') return html`${v ? w.yes : w.no}`;
  if (typeof v === 'number') return html`${new Intl.NumberFormat(ctx.m.locale).format(v)}`;
  if (typeof v === 'string') {
    if (ISO_TIME.test(v) && !Number.isNaN(Date.parse(v))) return html`${formatDateTime(v, ctx)}`;
    if (ISO_DAY.test(v)) return html`${day(ctx, v)}`;
    const word = w.auditValues[v];
    if (word) return html`${word}`;
    return CODE.test(v) ? html`<code>${v}</code>` : html`${v}`;
  }
  if (Array.isArray(v)) {
    return v.length === 0 ? html`—` : html`${v.map((x, i) => html`${i > 0 ? '; ' : ''}${readableValue(ctx, x)}`)}`;
  }
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    // A span of days: "24 Nov 2026 – 26 Nov 2026".
    if (Object.keys(o).length === 2 && typeof o.from === 'string' && typeof o.to === 'string') {
      return html`${readableValue(ctx, o.from)} – ${readableValue(ctx, o.to)}`;
    }
    return html`${Object.entries(o).map(
      ([k, x], i) => html`${i > 0 ? ', ' : ''}${label(ctx, k)}: ${readableValue(ctx, x)}`,
    )}`;
  }
  return html`${String(v)}`;
}

/**
 * A job run's counts, each by its label; zeros and empty lists left out (a run that found nothing
 * to do says so).
 */
export function jobCounts(ctx: PageContext, counts: Record<string, unknown> | null): SafeHtml {
  if (!counts) return html``;
  const shown = Object.entries(counts).filter(([, v]) => v !== 0 && !(Array.isArray(v) && v.length === 0));
  if (!shown.some(([, v]) => typeof v === 'number' || Array.isArray(v))) {
    return html`${ADMIN_MESSAGES[ctx.language].nothingToDo}`;
  }
  return html`${shown.map(([k, v], i) => html`${i > 0 ? html`<br>` : ''}${label(ctx, k)}: ${readableValue(ctx, v)}`)}`;
}

/** Sums per currency of a bulk action's amounts, in the page's language. */
function bulkTotal(ctx: PageContext, amounts: unknown[]): string {
  const sums = new Map<string, number>();
  for (const a of amounts) {
    const x = a as { amount?: unknown; currency?: unknown };
    if (typeof x.amount === 'number' && typeof x.currency === 'string')
      sums.set(x.currency, (sums.get(x.currency) ?? 0) + x.amount);
  }
  return [...sums].map(([currency, cents]) => formatAmount(cents, currency, ctx)).join(' + ') || '—';
}

/** An audit entry's detail: money as money, settings and roles by their names, codes named. */
export function auditDetail(ctx: PageContext, a: AuditRow): SafeHtml {
  const w = ADMIN_MESSAGES[ctx.language];
  const currency = a.request_currency ?? (typeof a.detail.currency === 'string' ? a.detail.currency : 'EUR');
  const entries = Object.entries(a.detail ?? {}).filter(([k]) => k !== 'currency');
  if (entries.length === 0) {
    // A money action with no amount moved all there was: say so rather than nothing.
    return ['capture', 'refund'].includes(a.action) && a.outcome === 'ok' ? html`${w.auditAll}` : html``;
  }
  const show = (k: string, v: unknown): SafeHtml | string => {
    // A request made in the back office records its amount as the API takes it, in units.
    if (k === 'amount' && typeof v === 'number')
      return formatAmount(a.action === 'request_created' ? Math.round(v * 100) : v, currency, ctx);
    // The settings a change touched, by their names: "Name, Contact e-mail", not "6".
    if (k === 'changed' && Array.isArray(v)) return v.map((f) => settingName(ctx, String(f))).join(', ') || '—';
    if (k === 'problems' && v !== null && typeof v === 'object')
      return Object.keys(v)
        .map((f) => settingName(ctx, f))
        .join(', ');
    if (k === 'action' && typeof v === 'string') return w.auditActions[v] ?? readableValue(ctx, v);
    if (k === 'move_reason' && isMoneyReason(v)) return REASON_MESSAGES[ctx.language].reasons[v];
    // Roles by their names in the page's language (viewer → Consultation), never the code word.
    if (ROLE_DETAILS.has(k) && typeof v === 'string')
      return ROLE_MESSAGES[ctx.language].roleNames[v as 'viewer'] ?? readableValue(ctx, v);
    if (k === 'events' && Array.isArray(v))
      return v.length === 0
        ? WEBHOOK_MESSAGES[ctx.language].everyEvent
        : v.map((e) => eventName(ctx, String(e))).join(', ');
    if (k === 'amounts' && Array.isArray(v)) return bulkTotal(ctx, v);
    if ((k === 'status' || k === 'to_status') && typeof v === 'string')
      return ctx.m.statuses[v as 'CAPTURED'] ?? readableValue(ctx, v);
    if ((k === 'type' || k === 'request_type') && typeof v === 'string') return ctx.m.types[v] ?? readableValue(ctx, v);
    if (k === 'filter' && v !== null && typeof v === 'object')
      return html`${Object.entries(v).map(([f, x], i) => html`${i > 0 ? ', ' : ''}${label(ctx, f)}: ${show(f, x)}`)}`;
    return readableValue(ctx, v);
  };
  return html`${entries.map(([k, v], i) => html`${i > 0 ? html`<br>` : ''}${label(ctx, k)}: ${show(k, v)}`)}`;
}
