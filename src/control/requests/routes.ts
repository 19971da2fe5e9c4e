import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { isGuestEmail } from '../../api/index.ts';
import type { ControlListFilter } from '../../db/index.ts';
import {
  AppError,
  DAY_RANGE_TEXT,
  dayEnd,
  dayStart,
  isDayInRange,
  isMoneyReason,
  isTimestampInRange,
  MAX_REASON_NOTE,
  type MoveReason,
  moveReason,
  REQUEST_TYPES,
  STATUSES,
} from '../../domain/index.ts';
import { CSV_DIALECTS, dialectForLanguage, EXPORT_KINDS, type ExportKind, exportChunks } from '../../exports/index.ts';
import { requestPostings } from '../pms/index.ts';
import {
  audit,
  controlNotFound,
  Form,
  flash,
  invalidFields,
  isUuid,
  languageOf,
  ownScope,
  pageContext,
  tenantContextOf,
  tenantScope,
  user,
} from '../shell/index.ts';
import {
  AMOUNT_ACTIONS,
  allowedActions,
  fullAmount,
  parseAmountField,
  REQUEST_ACTIONS,
  type RequestAction,
} from './actions.ts';
import { TOTALS_CAP, totalsAndExport } from './list-totals.ts';
import { confirmPage, type DetailRow, detailPage, type ListQuery, listPage } from './pages.ts';
import { REASON_MESSAGES } from './reason-words.ts';
import { REQUESTS_MESSAGES } from './words.ts';

export const PAGE_SIZE = 50;

/** Actions that move or free money: their audit line says how much. */
const MONEY_ACTIONS: ReadonlySet<RequestAction> = new Set(['capture', 'release', 'refund']);

const DATE_FILTERS = ['created_from', 'created_to', 'checkin_from', 'checkin_to'] as const;
type DateFilter = (typeof DATE_FILTERS)[number];

/**
 * The list's filter as its address carries it. Text, as a link or the filter form gives it:
 * an unknown status or type is no filter (an old bookmark still opens the list), a date or a
 * page link is checked by the handler, which says which one is wrong. The lengths are far
 * beyond any real value: longer is refused before any reading.
 */
const LIST_FIELDS = {
  tenant: Form.optionalText(100),
  status: Form.optionalText(100),
  type: Form.optionalText(100),
  q: Form.optionalText(500),
  created_from: Form.optionalText(100),
  created_to: Form.optionalText(100),
  checkin_from: Form.optionalText(100),
  checkin_to: Form.optionalText(100),
  guarantee: Form.optionalText(100),
  after: Form.optionalText(200),
};
const ListQueryString = Type.Object(LIST_FIELDS);
const ExportQueryString = Type.Object({
  ...LIST_FIELDS,
  what: Type.Optional(Form.choice(EXPORT_KINDS)),
  csv_dialect: Type.Optional(Form.choice(CSV_DIALECTS)),
});
type RawListQuery = Static<typeof ListQueryString>;

/** A request's page: its id is checked by the handler (not a UUID, or not yours: the same 404). */
const RequestParams = Type.Object({ id: Type.String({ maxLength: 200 }) });
/** A capture's or refund's reason (checked against the list by the handler) and its note. */
const REASON_FIELDS = { reason: Form.optionalText(100), note: Form.optionalText(MAX_REASON_NOTE) };
const ConfirmQueryString = Type.Object({
  action: Form.choice(REQUEST_ACTIONS),
  amount: Form.optionalText(100),
  ...REASON_FIELDS,
});
const ActionParams = Type.Object({ id: Type.String({ maxLength: 200 }), action: Form.choice(REQUEST_ACTIONS) });
/**
 * The confirmation page's form: the amount and reason it showed (capture, refund), the
 * operation's nonce, and for a resend the guest's address (corrected there, or as it was).
 */
const ActionForm = Type.Object({
  amount: Form.optionalText(100),
  ...REASON_FIELDS,
  nonce: Form.optionalText(100),
  guest_email: Form.optionalText(1000),
  _csrf: Form.csrf,
});

/** The reason and note a form gave; null when the reason is not one of the list (nothing moves). */
function formReason(fields: { reason?: string; note?: string } | undefined): MoveReason | null {
  const reason = fields?.reason ?? '';
  if (reason !== '' && !isMoneyReason(reason)) return null;
  return moveReason(reason === '' ? undefined : reason, fields?.note);
}

const invalidDate = (name: DateFilter) =>
  new AppError('invalid_date', 400, `${name} must be ${DAY_RANGE_TEXT}`, { field: name });
const invalidCursor = () => new AppError('invalid_cursor', 400, 'Invalid page link');
const invalidExport = () =>
  new AppError('invalid_export', 400, 'An export is of requests or of ledger movements (what=requests|ledger)');
const invalidDialect = () =>
  new AppError('invalid_csv_dialect', 400, 'A CSV file is excel-fr, excel-de or rfc4180 (csv_dialect=…)');

/**
 * What the list's address was refused for, as the handler refuses a wrong value of the same
 * filter (the same status and page, in the same order): a date or page link that cannot be
 * one, a hotel that is not (404), an export of neither kind; any other filter too long to be
 * one is said so in the page's language.
 */
function queryRefusal(request: FastifyRequest): AppError | undefined {
  if (!request.validationError) return undefined;
  const bad = invalidFields(request);
  const [date] = DATE_FILTERS.filter((name) => bad.has(name));
  if (date === 'created_from' || date === 'created_to') return invalidDate(date);
  if (bad.has('tenant')) return controlNotFound();
  if (date) return invalidDate(date);
  if (bad.has('after')) return invalidCursor();
  if (bad.has('what')) return invalidExport();
  if (bad.has('csv_dialect')) return invalidDialect();
  return new AppError('invalid_filter', 400, REQUESTS_MESSAGES[languageOf(request)].filterRefused);
}

/**
 * A date filter: empty is no filter; anything else must be a day that exists (2026-02-31 does
 * not, and the database refused it with a 500), or the page says which filter is wrong.
 */
function dateFilter(q: ListQuery, name: DateFilter): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (!isDayInRange(v)) throw invalidDate(name);
  return v;
}

function encodeCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(`${new Date(row.created_at).toISOString()}|${row.id}`).toString('base64url');
}

function decodeCursor(v: string | undefined): { createdAt: Date; id: string } | undefined {
  if (!v) return undefined;
  const [at, id] = Buffer.from(v, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  // The database's timestamps end where JavaScript's do not (a date of year -271821 was a 500).
  if (!isUuid(id) || !isTimestampInRange(createdAt)) throw invalidCursor();
  return { createdAt, id };
}

/** The request in the user's scope, or the same 404 whether it is absent or another tenant's. */
export async function scopedRequest(request: FastifyRequest, id: string): Promise<DetailRow> {
  if (!isUuid(id)) throw controlNotFound();
  const row = await request.server.payreq.repos.controlRequests.find(id.toLowerCase(), ownScope(request));
  if (!row) throw controlNotFound();
  return row;
}

/** Runs one action through the shared command facade; the outcome for the audit and the flash. */
export async function performAction(
  request: FastifyRequest,
  row: DetailRow,
  action: RequestAction,
  cents: number | undefined,
  nonce: string,
  why?: MoveReason,
): Promise<{ outcome: 'ok' | 'refused' | 'in_doubt'; message?: string }> {
  const { payreq } = request.server;
  const u = user(request);
  const actor = { source: 'admin' as const, actor: u.username };
  const tenant = await payreq.repos.tenants.find(row.tenant_id);
  if (!tenant) throw controlNotFound();
  const t = tenantContextOf(tenant);
  const amount = cents === undefined ? undefined : cents / 100;
  // The confirmation form's nonce names the operation: submitting it twice moves money once.
  const once = isUuid(nonce) ? { retryKey: `control:${nonce}` } : {};
  try {
    switch (action) {
      case 'capture':
        await payreq.commands.capture(t, row.id, amount, actor, { ...once, why });
        break;
      case 'release':
        await payreq.commands.release(t, row.id, actor, once);
        break;
      case 'refund':
        await payreq.commands.refund(t, row.id, amount, actor, { ...once, why });
        break;
      case 'cancel':
        await payreq.commands.cancel(t, row.id, actor);
        break;
      case 'delete':
        await payreq.commands.delete(t, row.id, actor);
        break;
      case 'resend':
        if (!allowedActions(row).includes('resend')) {
          throw new AppError('invalid_status', 400, `Cannot resend the payment link in status ${row.status}`);
        }
        await payreq.repos.controlRequests.queueLinkEmail(row.tenant_id, row.id, nonce);
        break;
    }
    return { outcome: 'ok' };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    // The provider's answer was lost: the money may have moved. Never reported as a failure.
    if (err.code === 'outcome_unknown') return { outcome: 'in_doubt', message: err.message };
    return { outcome: 'refused', message: err.message };
  }
}

async function listFilter(request: FastifyRequest, q: ListQuery & { after?: string }): Promise<ControlListFilter> {
  const status = STATUSES.find((s) => s === q.status);
  const type = REQUEST_TYPES.find((t) => t === q.type);
  const createdFrom = dateFilter(q, 'created_from');
  const createdTo = dateFilter(q, 'created_to');
  const text = q.q?.trim().slice(0, 100);
  const tenantId = tenantScope(request, q.tenant);
  // A hotel's "created on the 2nd" is its own day; across hotels (a superuser's view), UTC days.
  const zone =
    tenantId && (createdFrom || createdTo)
      ? ((await request.server.payreq.repos.tenants.find(tenantId))?.timezone ?? 'UTC')
      : 'UTC';
  return {
    tenantId,
    status,
    requestType: type,
    text: text ? text : undefined,
    createdFrom: createdFrom ? dayStart(createdFrom, zone) : undefined,
    // "Created until" includes that whole day (until 9999-12-31: no end).
    createdBefore: createdTo ? dayEnd(createdTo, zone) : undefined,
    checkinFrom: dateFilter(q, 'checkin_from'),
    checkinTo: dateFilter(q, 'checkin_to'),
    guaranteeFailed: q.guarantee === 'failed',
    before: decodeCursor(q.after),
    limit: PAGE_SIZE + 1,
  };
}

/** The list's filter as its URL carries it: the page, its links and its export read the same. */
function listQuery(raw: RawListQuery): ListQuery {
  return {
    tenant: raw.tenant || undefined,
    status: raw.status || undefined,
    type: raw.type || undefined,
    q: raw.q || undefined,
    created_from: raw.created_from || undefined,
    created_to: raw.created_to || undefined,
    checkin_from: raw.checkin_from || undefined,
    checkin_to: raw.checkin_to || undefined,
    guarantee: raw.guarantee === 'failed' ? 'failed' : undefined,
  };
}

const html = (reply: FastifyReply, body: string) => reply.type('text/html; charset=utf-8').send(body);

export async function requestsRoutes(control: FastifyInstance): Promise<void> {
  const { repos } = control.payreq;
  // Every route validates what it reads, with its refusal attached: the role and CSRF checks
  // (preHandler hooks) still come first, and the handler refuses as it always has.
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/requests',
    { schema: { querystring: ListQueryString }, attachValidation: true },
    async (request, reply) => {
      const refused = queryRefusal(request);
      if (refused) throw refused;
      const raw = request.query;
      const q = listQuery(raw);
      const filter = await listFilter(request, { ...q, after: raw.after });
      const { rows, match } = await repos.controlRequests.list(filter);
      const more = rows.length > PAGE_SIZE;
      const shown = rows.slice(0, PAGE_SIZE);
      const last = shown[shown.length - 1];
      const params = new URLSearchParams(Object.entries(q).filter(([, v]) => v) as [string, string][]);
      if (more && last) params.set('after', encodeCursor(last));
      const ctx = await pageContext(request, reply);
      const tenants = user(request).tenantId === null ? await repos.tenants.list() : [];
      const totals = await repos.exports.totals(filter, match, TOTALS_CAP);
      // One hotel chosen: its files, in its spreadsheet's dialect unless the user picks another.
      const exportHotel = filter.tenantId ? await repos.tenants.find(filter.tenantId) : undefined;
      return html(
        reply,
        listPage(ctx, {
          query: q,
          rows: shown,
          match,
          next: more ? `/control/requests?${params}` : undefined,
          tenants,
          firstPage: !raw.after,
          batchId: randomUUID(),
          totals: totalsAndExport(
            ctx,
            totals,
            q,
            exportHotel ? dialectForLanguage(exportHotel.digest_language) : undefined,
          ),
        }),
      );
    },
  );

  // The list's filter as a file: streamed a page of rows at a time, so its size is not bounded
  // by memory. One hotel at a time: its rows are in its own time zone (a superuser picks it).
  typed.get(
    '/requests/export',
    { schema: { querystring: ExportQueryString }, attachValidation: true },
    async (request, reply) => {
      const refused = queryRefusal(request);
      if (refused) throw refused;
      const raw = request.query;
      const what: ExportKind = raw.what ?? 'requests';
      const filter = await listFilter(request, listQuery(raw));
      const { tenantId } = filter;
      if (!tenantId) {
        throw new AppError('choose_tenant', 400, 'Choose a hotel in the filter to export its requests');
      }
      const tenant = await repos.tenants.find(tenantId);
      if (!tenant) throw controlNotFound();
      const dialect = raw.csv_dialect ?? dialectForLanguage(tenant.digest_language);
      await audit(request, {
        tenantId,
        action: 'export',
        target: tenantId,
        outcome: 'ok',
        detail: {
          what,
          csv_dialect: dialect,
          filter: Object.fromEntries(Object.entries(raw).filter(([k, v]) => k !== 'what' && k !== 'csv_dialect' && v)),
        },
      });
      const day = new Date().toISOString().slice(0, 10);
      // The file starts with its byte-order mark (exportChunks writes it, for `payreq export` too).
      const file = () =>
        exportChunks(repos, { ...filter, tenantId: tenantId as string }, what, { format: 'csv', dialect });
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="payreq-${what}-${day}.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(file()));
    },
  );

  typed.get('/requests/:id', { schema: { params: RequestParams }, attachValidation: true }, async (request, reply) => {
    if (request.validationError) throw controlNotFound();
    const row = await scopedRequest(request, request.params.id);
    const [history, ledger, incidents, reminders, postings] = await Promise.all([
      repos.controlRequests.history(row.id),
      repos.controlRequests.ledger(row.id),
      repos.books.incidentsOfRequest(row.id),
      repos.dayPlan.reminderHistory(row.id),
      requestPostings(control.payreq, row.tenant_id, row.id),
    ]);
    const paymentLink = allowedActions(row).includes('resend')
      ? `${control.payreq.config.publicBaseUrl}/payment/${row.id}/`
      : undefined;
    return html(
      reply,
      detailPage(await pageContext(request, reply), {
        row,
        history,
        ledger,
        incidents,
        paymentLink,
        reminders,
        postings,
      }),
    );
  });

  typed.get(
    '/requests/:id/confirm',
    { schema: { params: RequestParams, querystring: ConfirmQueryString }, attachValidation: true },
    async (request, reply) => {
      const bad = invalidFields(request);
      // Not a request (or not yours), or an action no request has (the role check said so first).
      if (bad.has('id') || bad.has('action')) throw controlNotFound();
      const row = await scopedRequest(request, request.params.id);
      const { action } = request.query;
      const ctx = await pageContext(request, reply);
      const w = REQUESTS_MESSAGES[ctx.language];
      if (!allowedActions(row).includes(action)) {
        flash(request, 'error', `${w.noActions}`);
        return reply.redirect(`/control/requests/${row.id}`, 303);
      }
      // An amount too long to be one reads as one that cannot be read.
      const amount = bad.has('amount') ? null : parseAmountField(request.query.amount);
      const cents = AMOUNT_ACTIONS.has(action) ? amount : undefined;
      if (cents === null) {
        flash(request, 'error', `${ctx.m.amount}: 12.50`);
        return reply.redirect(`/control/requests/${row.id}`, 303);
      }
      const why = bad.has('reason') || bad.has('note') ? null : formReason(request.query);
      if (AMOUNT_ACTIONS.has(action) && why === null) {
        flash(request, 'error', REASON_MESSAGES[ctx.language].reasonRefused);
        return reply.redirect(`/control/requests/${row.id}`, 303);
      }
      return html(
        reply,
        confirmPage(ctx, {
          row,
          action,
          cents,
          nonce: randomUUID(),
          ...(why && AMOUNT_ACTIONS.has(action) ? { why } : {}),
        }),
      );
    },
  );

  typed.post(
    '/requests/:id/:action',
    { schema: { params: ActionParams, body: ActionForm }, attachValidation: true },
    async (request, reply) => {
      const bad = invalidFields(request);
      if (bad.has('id') || bad.has('action')) throw controlNotFound();
      const { id, action } = request.params;
      const row = await scopedRequest(request, id);
      const ctx = await pageContext(request, reply);
      const w = REQUESTS_MESSAGES[ctx.language];
      // A body that is not the confirmation page's form (a field repeated, too long, not text)
      // is refused as an unreadable amount or nonce is: nothing moves. A resend's address that is
      // not one is answered beside its field (below).
      const emailOnly = bad.size === 1 && bad.has('guest_email');
      const form = request.validationError && !emailOnly ? undefined : request.body;
      const cents = AMOUNT_ACTIONS.has(action) ? parseAmountField(form?.amount) : undefined;
      const nonce = form?.nonce ?? '';
      const why = AMOUNT_ACTIONS.has(action) ? formReason(form) : undefined;
      if (!form || cents === null || why === null || (action === 'resend' && !isUuid(nonce))) {
        flash(request, 'error', `${ctx.m.invalid}`);
        return reply.redirect(`/control/requests/${row.id}`, 303);
      }
      let corrected = false;
      if (action === 'resend' && allowedActions(row).includes('resend')) {
        // The address corrected on the confirmation: checked as the API checks it, kept, audited;
        // refused, the page comes back with the problem beside the field, nothing changed or sent.
        const email = emailOnly ? String(form.guest_email ?? '').slice(0, 1000) : form.guest_email?.trim();
        if (email !== undefined && email !== row.guest_email) {
          if (emailOnly || !isGuestEmail(email)) {
            await audit(request, {
              tenantId: row.tenant_id,
              action: 'guest_email_changed',
              target: row.reference,
              paymentRequestId: row.id,
              outcome: 'refused',
              detail: { reason: 'invalid' },
            });
            const page = confirmPage(ctx, { row, action, nonce, email: { email, problem: w.guestEmailInvalid } });
            return reply.code(422).type('text/html; charset=utf-8').send(page);
          }
          const changed = await repos.controlRequests.correctGuestEmail(row.tenant_id, row.id, email);
          if (!changed) throw controlNotFound();
          await audit(request, {
            tenantId: row.tenant_id,
            action: 'guest_email_changed',
            target: row.reference,
            paymentRequestId: row.id,
            outcome: 'ok',
            detail: { previous: changed.before, email },
          });
          row.guest_email = email;
          corrected = true;
        }
      }
      const result = await performAction(request, row, action, cents, nonce, why);
      await audit(request, {
        tenantId: row.tenant_id,
        action,
        target: row.reference,
        paymentRequestId: row.id,
        outcome: result.outcome,
        detail: {
          // What the confirmation showed: the amount given, else all there was (a release: the hold).
          ...(MONEY_ACTIONS.has(action) ? { amount: cents ?? fullAmount(action, row) } : {}),
          ...(why?.reason ? { move_reason: why.reason } : {}),
          ...(why?.note ? { move_note: why.note } : {}),
          ...(result.message ? { reason: result.message } : {}),
        },
      });
      if (result.outcome === 'ok') {
        const sent = corrected ? w.guestEmailCorrected(row.guest_email) : w.resentTo(row.guest_email);
        flash(request, 'ok', action === 'resend' ? sent : ctx.m.done);
      } else if (result.outcome === 'in_doubt') flash(request, 'doubt', ctx.m.inDoubt);
      else flash(request, 'error', `${ctx.m.refused}: ${result.message}`);
      const deleted = action === 'delete' && result.outcome === 'ok';
      return reply.redirect(deleted ? '/control/requests' : `/control/requests/${row.id}`, 303);
    },
  );
}
