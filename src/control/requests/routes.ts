import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ControlListFilter } from '../../db/index.js';
import {
  AppError,
  dayAfter,
  isIsoDate,
  isTimestampInRange,
  midnightIn,
  REQUEST_TYPES,
  type RequestType,
  STATUSES,
  type Status,
} from '../../domain/index.js';
import { EXPORT_KINDS, type ExportKind, exportChunks } from '../../exports/index.js';
import {
  audit,
  controlNotFound,
  field,
  flash,
  isUuid,
  ownScope,
  pageContext,
  tenantContextOf,
  tenantScope,
  user,
} from '../shell/index.js';
import {
  AMOUNT_ACTIONS,
  allowedActions,
  fullAmount,
  parseAmountField,
  REQUEST_ACTIONS,
  type RequestAction,
} from './actions.js';
import { TOTALS_CAP, totalsAndExport } from './list-totals.js';
import { confirmPage, type DetailRow, detailPage, type ListQuery, listPage } from './pages.js';
import { REQUESTS_MESSAGES } from './words.js';

export const PAGE_SIZE = 50;

/**
 * A date filter: empty is no filter; anything else must be a day that exists (2026-02-31 does
 * not, and the database refused it with a 500), or the page says which filter is wrong.
 */
function dateFilter(q: ListQuery, name: keyof ListQuery): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (!isIsoDate(v)) throw new AppError('invalid_date', 400, `${name} must be a date (YYYY-MM-DD)`, { field: name });
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
  if (!isUuid(id) || !isTimestampInRange(createdAt)) throw new AppError('invalid_cursor', 400, 'Invalid page link');
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
        await payreq.commands.capture(t, row.id, amount, actor, once);
        break;
      case 'release':
        await payreq.commands.release(t, row.id, actor, once);
        break;
      case 'refund':
        await payreq.commands.refund(t, row.id, amount, actor, once);
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
  const status = (STATUSES as readonly string[]).includes(q.status ?? '') ? (q.status as Status) : undefined;
  const type = (REQUEST_TYPES as readonly string[]).includes(q.type ?? '') ? (q.type as RequestType) : undefined;
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
    createdFrom: createdFrom ? midnightIn(createdFrom, zone) : undefined,
    // "Created until" includes that whole day.
    createdBefore: createdTo ? midnightIn(dayAfter(createdTo), zone) : undefined,
    checkinFrom: dateFilter(q, 'checkin_from'),
    checkinTo: dateFilter(q, 'checkin_to'),
    guaranteeFailed: q.guarantee === 'failed',
    before: decodeCursor(q.after),
    limit: PAGE_SIZE + 1,
  };
}

/** The list's filter as its URL carries it: the page, its links and its export read the same. */
const isExportKind = (v: string): v is ExportKind => (EXPORT_KINDS as readonly string[]).includes(v);

function listQuery(raw: Record<string, string | undefined>): ListQuery {
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

  control.get('/requests', async (request, reply) => {
    const raw = request.query as Record<string, string | undefined>;
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
        totals: totalsAndExport(ctx, totals, q, filter.tenantId !== undefined),
      }),
    );
  });

  // The list's filter as a file: streamed a page of rows at a time, so its size is not bounded
  // by memory. One hotel at a time: its rows are in its own time zone (a superuser picks it).
  control.get('/requests/export', async (request, reply) => {
    const raw = request.query as Record<string, string | undefined>;
    const asked = raw.what ?? 'requests';
    if (!isExportKind(asked)) {
      throw new AppError(
        'invalid_export',
        400,
        'An export is of requests or of ledger movements (what=requests|ledger)',
      );
    }
    const what: ExportKind = asked;
    const filter = await listFilter(request, listQuery(raw));
    const { tenantId } = filter;
    if (!tenantId) {
      throw new AppError('choose_tenant', 400, 'Choose a hotel in the filter to export its requests');
    }
    const tenant = await repos.tenants.find(tenantId);
    if (!tenant) throw controlNotFound();
    await audit(request, {
      tenantId,
      action: 'export',
      target: tenantId,
      outcome: 'ok',
      detail: { what, filter: Object.fromEntries(Object.entries(raw).filter(([k, v]) => k !== 'what' && v)) },
    });
    const day = new Date().toISOString().slice(0, 10);
    async function* file() {
      // A byte-order mark: spreadsheets opened by a double click then read the UTF-8 as UTF-8.
      yield '\uFEFF';
      yield* exportChunks(repos, { ...filter, tenantId: tenantId as string }, what, 'csv');
    }
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="payreq-${what}-${day}.csv"`)
      .header('cache-control', 'no-store')
      .send(Readable.from(file()));
  });

  control.get('/requests/:id', async (request, reply) => {
    const row = await scopedRequest(request, (request.params as { id: string }).id);
    const [history, ledger, incidents, reminders] = await Promise.all([
      repos.controlRequests.history(row.id),
      repos.controlRequests.ledger(row.id),
      repos.books.incidentsOfRequest(row.id),
      repos.dayPlan.reminderHistory(row.id),
    ]);
    const paymentLink = allowedActions(row).includes('resend')
      ? `${control.payreq.config.publicBaseUrl}/payment/${row.id}/`
      : undefined;
    return html(
      reply,
      detailPage(await pageContext(request, reply), { row, history, ledger, incidents, paymentLink, reminders }),
    );
  });

  control.get('/requests/:id/confirm', async (request, reply) => {
    const row = await scopedRequest(request, (request.params as { id: string }).id);
    const q = request.query as { action?: string; amount?: string };
    const action = REQUEST_ACTIONS.find((a) => a === q.action);
    const ctx = await pageContext(request, reply);
    if (!action || !allowedActions(row).includes(action)) {
      flash(request, 'error', `${REQUESTS_MESSAGES[ctx.language].noActions}`);
      return reply.redirect(`/control/requests/${row.id}`, 303);
    }
    const cents = AMOUNT_ACTIONS.has(action) ? parseAmountField(q.amount) : undefined;
    if (cents === null) {
      flash(request, 'error', `${ctx.m.amount}: 12.50`);
      return reply.redirect(`/control/requests/${row.id}`, 303);
    }
    return html(reply, confirmPage(ctx, { row, action, cents, nonce: randomUUID() }));
  });

  control.post('/requests/:id/:action', async (request, reply) => {
    const { id, action: rawAction } = request.params as { id: string; action: string };
    const row = await scopedRequest(request, id);
    const action = REQUEST_ACTIONS.find((a) => a === rawAction);
    if (!action) throw controlNotFound();
    const ctx = await pageContext(request, reply);
    const cents = AMOUNT_ACTIONS.has(action) ? parseAmountField(field(request.body, 'amount')) : undefined;
    const nonce = field(request.body, 'nonce') ?? '';
    if (cents === null || (action === 'resend' && !isUuid(nonce))) {
      flash(request, 'error', `${ctx.m.invalid}`);
      return reply.redirect(`/control/requests/${row.id}`, 303);
    }
    const result = await performAction(request, row, action, cents, nonce);
    await audit(request, {
      tenantId: row.tenant_id,
      action,
      target: row.reference,
      paymentRequestId: row.id,
      outcome: result.outcome,
      detail: {
        ...(cents !== undefined ? { amount: cents } : {}),
        ...(result.message ? { reason: result.message } : {}),
      },
    });
    if (result.outcome === 'ok')
      flash(
        request,
        'ok',
        action === 'resend' ? REQUESTS_MESSAGES[ctx.language].resentTo(row.guest_email) : ctx.m.done,
      );
    else if (result.outcome === 'in_doubt') flash(request, 'doubt', ctx.m.inDoubt);
    else flash(request, 'error', `${ctx.m.refused}: ${result.message}`);
    const deleted = action === 'delete' && result.outcome === 'ok';
    return reply.redirect(deleted ? '/control/requests' : `/control/requests/${row.id}`, 303);
  });
}
