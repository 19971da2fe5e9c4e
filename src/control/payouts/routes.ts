import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multipart, { type MultipartFile } from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Tenant } from '../../db/index.ts';
import { AppError, DAY_RANGE_TEXT, dayAfter, isDayInRange } from '../../domain/index.ts';
import { dialectForLanguage, payoutChunks } from '../../exports/index.ts';
import { importJrb, JrbRefused, remittancesRepository, tenantProvider } from '../../payouts/index.ts';
import { sandboxReport } from '../../providers/index.ts';
import {
  audit,
  controlNotFound,
  Form,
  flash,
  pageContext,
  refusedFields,
  refuseInvalid,
  tenantScope,
  user,
} from '../shell/index.ts';
import { type PayoutsPageData, payoutsPage, remittancePage } from './pages.ts';
import { PAYOUT_MESSAGES } from './words.ts';

/** The largest report the page takes (a year of a busy hotel's daily reports is far less). */
const MAX_REPORT_MB = 64;
/** Rows of "not paid out" the page lists; the count says how many more. */
const NOT_PAID_OUT_ROWS = 100;
/** Lines of a remittance its page lists, unmatched first. */
const LINES_SHOWN = 2000;

const TenantQuery = Type.Object({ tenant: Type.Optional(Type.String({ maxLength: 64 })) });
const ListQuery = Type.Object({
  tenant: Type.Optional(Type.String({ maxLength: 64 })),
  // Any text up to 100: what is not a day in range is refused by dateOr, naming the field (400).
  from: Type.Optional(Type.String({ maxLength: 100 })),
  to: Type.Optional(Type.String({ maxLength: 100 })),
});
const SandboxReportQuery = Type.Object({
  tenant: Type.Optional(Type.String({ maxLength: 64 })),
  date: Type.Optional(Type.String({ maxLength: 10 })),
});
const RemittanceParams = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,17}$' }) });
/** The upload, multipart: its text fields, and the report as `spool` leaves it (checked by isUpload). */
const ImportForm = Type.Object({
  tenant: Type.Optional(Type.String({ maxLength: 64 })),
  _csrf: Form.csrf,
  report: Type.Optional(Type.Unknown()),
});

/** An uploaded report as `spool` leaves it in the body: where it was written, how much, whether cut. */
interface Upload {
  file: string;
  bytes: number;
  truncated: boolean;
}

function isUpload(v: unknown): v is Upload {
  return typeof v === 'object' && v !== null && typeof (v as Upload).file === 'string';
}

/** The files each request spooled, removed once it is answered (whatever the answer). */
const spooled = new WeakMap<FastifyRequest, string[]>();

/**
 * Writes the uploaded report to a file of its own as it arrives (never whole in memory), up to
 * MAX_REPORT_MB and one byte: a larger one is cut there and refused as too large. The import
 * reads it back as a stream, once the sign-in, role and CSRF checks have passed.
 */
async function spool(this: FastifyRequest, part: MultipartFile): Promise<void> {
  const file = path.join(tmpdir(), `payreq-report-${randomUUID()}.csv`);
  spooled.set(this, [...(spooled.get(this) ?? []), file]);
  await pipeline(part.file, createWriteStream(file, { mode: 0o600 }));
  (part as MultipartFile & { value: Upload }).value = {
    file,
    bytes: part.file.bytesRead,
    truncated: part.file.truncated,
  };
}

const invalidUpload = () =>
  new AppError('invalid_upload', 400, 'The upload was cut short or is not a valid multipart form');

const send = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

/**
 * The hotel the page is about: a hotel user's own; for a superuser, the one named or else the
 * first (the chooser). Another hotel's, or none: 404.
 */
async function payoutsTenant(request: FastifyRequest, named: unknown): Promise<{ tenant: Tenant; tenants: Tenant[] }> {
  const { repos } = request.server.payreq;
  const scope = tenantScope(request, named);
  const tenants = user(request).tenantId === null ? await repos.tenants.list() : [];
  const tenant = scope ? await repos.tenants.find(scope) : tenants[0];
  if (!tenant) throw controlNotFound();
  return { tenant, tenants };
}

/** A date of the list's filter: empty is none; anything but a day in range is refused (400). */
const dateOr = (v: string | undefined, field: 'from' | 'to') => {
  if (!v) return undefined;
  if (!isDayInRange(v)) throw new AppError('invalid_date', 400, `${field} must be ${DAY_RANGE_TEXT}`, { field });
  return v;
};

/**
 * /control/payouts: a hotel's remittances (gross, fees, net), their lines matched to the money
 * payreq moved, what was never paid out, the fees per month, and the import of the provider's
 * bank reconciliation report. Who may come (manager, superuser) is the role table's; which
 * hotel's, tenantScope's: a manager of one hotel sees only that hotel's.
 */
export async function payoutsRoutes(instance: FastifyInstance): Promise<void> {
  const control = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { payreq } = control;
  const { repos } = payreq;
  const remittances = remittancesRepository(payreq.db);

  const pageData = async (
    tenant: Tenant,
    tenants: Tenant[],
    range: { from?: string; to?: string },
  ): Promise<PayoutsPageData> => {
    const delayDays = payreq.config.settlementDelayDays;
    const [list, months, notPaidOut] = await Promise.all([
      remittances.list(tenant.id, { ...range, limit: 500 }),
      remittances.feesByMonth(tenant.id),
      remittances.notPaidOut(tenant.id, new Date(Date.now() - delayDays * 86_400_000), NOT_PAID_OUT_ROWS),
    ]);
    return { tenant, tenants, remittances: list, months, notPaidOut, delayDays, range };
  };

  control.get('/payouts', { schema: { querystring: ListQuery }, attachValidation: true }, async (request, reply) => {
    refuseInvalid(request);
    const { tenant, tenants } = await payoutsTenant(request, request.query.tenant);
    const range = { from: dateOr(request.query.from, 'from'), to: dateOr(request.query.to, 'to') };
    const ctx = await pageContext(request, reply);
    return send(reply, payoutsPage(ctx, await pageData(tenant, tenants, range)));
  });

  control.get(
    '/payouts/export',
    { schema: { querystring: ListQuery }, attachValidation: true },
    async (request, reply) => {
      refuseInvalid(request);
      const { tenant } = await payoutsTenant(request, request.query.tenant);
      const given = { from: dateOr(request.query.from, 'from'), to: dateOr(request.query.to, 'to') };
      const from = given.from ?? '2000-01-01';
      const to = given.to ?? dayAfter(new Date().toISOString().slice(0, 10));
      // The file is named by the range it holds: an open end is where the hotel's remittances
      // begin or end (not 2000-01-01, not tomorrow); with none, the day of the export.
      const held = given.from && given.to ? undefined : await remittances.dateRange(tenant.id, from, to);
      const today = new Date().toISOString().slice(0, 10);
      const named = { from: given.from ?? held?.first ?? today, to: given.to ?? held?.last ?? today };
      await audit(request, {
        tenantId: tenant.id,
        action: 'export',
        target: null,
        outcome: 'ok',
        detail: { what: 'settlements', from, to },
      });
      // The export's CSV starts with its byte-order mark, in the hotel's spreadsheet dialect.
      const shape = { format: 'csv' as const, dialect: dialectForLanguage(tenant.digest_language) };
      async function* file() {
        yield* payoutChunks({ remittances }, { tenantId: tenant.id, from, to }, shape);
      }
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="payreq-payouts-${named.from}-${named.to}.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(file()));
    },
  );

  // The sandbox's remittance report of the hotel and a day, for a session of the hotel (the
  // sandbox's own address asks for the hotel's API key): only while the sandbox is a provider.
  control.get(
    '/payouts/sandbox-report',
    { schema: { querystring: SandboxReportQuery }, attachValidation: true },
    async (request, reply) => {
      refuseInvalid(request);
      const { date } = request.query;
      if (!payreq.providers.byName('sandbox') || date === undefined || !isDayInRange(date)) throw controlNotFound();
      const { tenant } = await payoutsTenant(request, request.query.tenant);
      const report = await sandboxReport(payreq.db, tenant.id, date);
      if (!report) throw controlNotFound();
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${report.filename}"`)
        .header('cache-control', 'no-store')
        .send(report.body);
    },
  );

  control.get(
    '/payouts/:id',
    { schema: { params: RemittanceParams, querystring: TenantQuery }, attachValidation: true },
    async (request, reply) => {
      refuseInvalid(request);
      const remittance = await remittances.byId(request.params.id);
      if (!remittance) throw controlNotFound();
      // Another hotel's remittance is no page of this user's: 404, as an unknown one.
      tenantScope(request, remittance.tenant_id);
      const tenant = await repos.tenants.find(remittance.tenant_id);
      if (!tenant) throw controlNotFound();
      const lines = await remittances.lines(remittance.id, LINES_SHOWN);
      const ctx = await pageContext(request, reply);
      return send(reply, remittancePage(ctx, { tenant, remittance, lines }));
    },
  );

  // The one upload of the page, in a context of its own (multipart here only). The sign-in,
  // role and CSRF checks are the parent's hooks and run once the form is parsed: the report is
  // only spooled to a file before them, and imported after.
  await control.register(async (scope) => {
    const uploads = scope.withTypeProvider<TypeBoxTypeProvider>();
    await uploads.register(multipart, {
      attachFieldsToBody: 'keyValues',
      onFile: spool,
      throwFileSizeLimit: false,
      limits: { fileSize: MAX_REPORT_MB * 1024 * 1024 + 1, files: 1, fields: 5, fieldSize: 1024, parts: 6 },
    });
    const parsed = new WeakSet<FastifyRequest>();
    uploads.addHook('preValidation', async (request) => {
      parsed.add(request);
    });
    uploads.addHook('onResponse', async (request) => {
      for (const file of spooled.get(request) ?? []) await unlink(file).catch(() => {});
    });
    uploads.setErrorHandler((err: FastifyError, request) => {
      const clientError = err instanceof AppError || (err.statusCode !== undefined && err.statusCode < 500);
      throw parsed.has(request) || clientError ? err : invalidUpload();
    });
    uploads.post(
      '/payouts/import',
      { schema: { body: ImportForm, querystring: TenantQuery }, attachValidation: true },
      async (request, reply) => {
        refusedFields(request);
        const { tenant, tenants } = await payoutsTenant(request, request.body.tenant ?? request.query.tenant);
        const ctx = await pageContext(request, reply);
        const w = PAYOUT_MESSAGES[ctx.language];
        const again = async (problem: string, status: number) =>
          send(reply, payoutsPage(ctx, { ...(await pageData(tenant, tenants, {})), problem }), status);
        const upload = request.body.report;
        if (!isUpload(upload) || upload.bytes === 0) return again(w.noFile, 422);
        if (upload.truncated) return again(w.tooLarge(MAX_REPORT_MB), 413);
        const provider = await tenantProvider(repos, payreq.config.paymentProvider, tenant.id);
        try {
          const r = await importJrb(
            { db: payreq.db },
            { tenantId: tenant.id, provider },
            createReadStream(upload.file),
          );
          await audit(request, {
            tenantId: tenant.id,
            action: 'payouts_imported',
            target: null,
            outcome: 'ok',
            detail: { ...r, bytes: upload.bytes },
          });
          // A file imported before says so, rather than its first import's counts again.
          flash(
            request,
            'ok',
            r.changed === 0 ? w.nothingNew(r.lines) : w.imported(r.remittances, r.lines, r.matched, r.unmatched),
          );
          return reply.redirect(`/control/payouts?tenant=${tenant.id}`, 303);
        } catch (err) {
          if (!(err instanceof JrbRefused)) throw err;
          await audit(request, {
            tenantId: tenant.id,
            action: 'payouts_imported',
            target: null,
            outcome: 'refused',
            detail: { line: err.line, reason: err.reason, bytes: upload.bytes },
          });
          return again(w.refused(err.line, err.problem), 422);
        }
      },
    );
  });
}
