import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { checkCreateBody } from '../../api/index.ts';
import { AppError, errors as appErrors, type FieldIssue } from '../../domain/index.ts';
import { PMS_MESSAGES, pmsConnected, prefillFromReservation, prefillSection } from '../pms/index.ts';
import { parseAmountField } from '../requests/index.ts';
import { audit, Form, flash, pageContext, tenantContextOf, tenantScope, user } from '../shell/index.ts';
import { type NewRequestForm, newRequestPage } from './page.ts';
import { NEW_REQUEST_MESSAGES } from './words.ts';

const FIELDS = [
  'tenant',
  'request_type',
  'amount',
  'currency',
  'language',
  'guest_first_name',
  'guest_last_name',
  'guest_email',
  'guest_phone',
  'reservation_ref',
  'checkin',
  'checkout',
  'room_type',
] as const satisfies readonly (keyof NewRequestForm)[];

/**
 * The form as posted: text in every field, each once. What each must hold (a known type, an
 * e-mail, a date) is the API's own check of the create, which names the field; the lengths
 * here are only what no field of it could need.
 */
const NewRequestBody = Type.Object({
  tenant: Form.optionalText(500),
  request_type: Form.optionalText(500),
  amount: Form.optionalText(500),
  currency: Form.optionalText(500),
  language: Form.optionalText(500),
  guest_first_name: Form.optionalText(500),
  guest_last_name: Form.optionalText(500),
  guest_email: Form.optionalText(500),
  guest_phone: Form.optionalText(500),
  reservation_ref: Form.optionalText(500),
  checkin: Form.optionalText(500),
  checkout: Form.optionalText(500),
  room_type: Form.optionalText(500),
  _csrf: Form.csrf,
});

/** "From an Apaleo reservation": the reservation id, and a superuser's hotel. */
const NewRequestQuery = Type.Object({
  apaleo_reservation: Type.Optional(Type.String({ maxLength: 100 })),
  tenant: Type.Optional(Type.String({ maxLength: 64 })),
});

/** The fields the schema refused, each with its issue as the page words it (too long, not text). */
function schemaIssues(request: FastifyRequest): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of request.validationError?.validation ?? []) {
    const name = issue.instancePath.split('/')[1];
    const code = issue.keyword === 'maxLength' ? 'too_long' : 'wrong_type';
    if (name) issues.push({ field: name, message: issue.message ?? 'is invalid', code });
  }
  return issues;
}

/** The API's create body from the form: empty fields are absent, as a PMS would leave them out. */
function createBody(f: NewRequestForm): { body: Record<string, unknown>; issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const body: Record<string, unknown> = {};
  for (const name of ['request_type', 'currency', 'language', 'guest_email', 'guest_phone'] as const) {
    if (f[name]) body[name] = f[name];
  }
  // Names and the reference are sent even when empty: the API's own check names them.
  for (const name of ['guest_first_name', 'guest_last_name', 'reservation_ref'] as const) body[name] = f[name] ?? '';
  if (!f.guest_email) body.guest_email = '';
  const cents = parseAmountField(f.amount);
  if (cents === null) {
    issues.push({ field: 'amount', message: 'must be a number with at most two decimals', code: 'amount_unreadable' });
  } else if (cents !== undefined) body.amount = cents / 100;
  const data: Record<string, string> = {};
  for (const name of ['checkin', 'checkout', 'room_type'] as const) if (f[name]) data[name] = f[name];
  body.reservation_data = data;
  return { body, issues };
}

/**
 * New request (/control/requests/new): the API's create, checked by the API's own rules, for a
 * booking taken by phone or a link sent by text message. A tenant user creates in their tenant;
 * a superuser picks one.
 */
export async function newRequestRoutes(control: FastifyInstance): Promise<void> {
  const { repos, commands, config } = control.payreq;
  // As the API refuses it: with PAYMENT_PROVIDER=lyra or stripe (as production runs), a hotel
  // with no real account of its own could never be paid.
  const payable = async (tenantId: string) =>
    config.paymentProvider === 'sandbox' ||
    ['lyra', 'stripe'].includes((await repos.providerAccounts.find(tenantId))?.provider ?? 'none');
  const tenantsFor = async (tenantId: string | null) => (tenantId === null ? await repos.tenants.list() : []);

  const typedGet = control.withTypeProvider<TypeBoxTypeProvider>();
  typedGet.get(
    '/requests/new',
    { schema: { querystring: NewRequestQuery }, attachValidation: true },
    async (request, reply) => {
      let ctx = await pageContext(request, reply);
      const form: NewRequestForm = { request_type: 'IMPRINT', currency: 'EUR', language: ctx.language };
      const u = user(request);
      const tenants = await tenantsFor(u.tenantId);
      // A hotel connected to Apaleo fills the form from one of its reservations (docs/apaleo.md).
      const query = request.validationError ? {} : request.query;
      const tenantId =
        u.tenantId ?? (query.tenant && tenants.some((t) => t.id === query.tenant) ? query.tenant : undefined);
      const connected = tenantId ? await pmsConnected(control.payreq, tenantId) : false;
      const reservation = query.apaleo_reservation?.trim();
      if (connected && tenantId && reservation) {
        const w = PMS_MESSAGES[ctx.language];
        const found = await prefillFromReservation(control.payreq, tenantId, reservation);
        if ('form' in found) {
          Object.assign(form, found.form, u.tenantId === null ? { tenant: tenantId } : {});
          ctx = { ...ctx, flash: { kind: 'ok', text: w.prefilled(reservation) } };
        } else {
          ctx = { ...ctx, flash: { kind: 'error', text: w.notPrefilled(found.problem) } };
        }
      }
      const prefill = connected
        ? prefillSection(ctx, { reservation, tenant: u.tenantId === null ? tenantId : undefined })
        : undefined;
      return reply.type('text/html; charset=utf-8').send(newRequestPage(ctx, { form, errors: [], tenants, prefill }));
    },
  );

  // The refusal is attached: the role and CSRF checks come first, and the page answers a field
  // the schema refused beside that field, as it answers the API's issues.
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();
  typed.post('/requests/new', { schema: { body: NewRequestBody }, attachValidation: true }, async (request, reply) => {
    const ctx = await pageContext(request, reply);
    const w = NEW_REQUEST_MESSAGES[ctx.language];
    const u = user(request);
    const refused = schemaIssues(request);
    // Shown again as typed: the text fields (a refused one too: too long); a field sent twice, not.
    const form: NewRequestForm = {};
    for (const name of FIELDS) {
      const v: unknown = request.body?.[name];
      if (typeof v === 'string' && v.trim()) form[name] = v.trim();
    }
    // A hotel the schema refused is none: the page asks to choose one, as for no hotel at all.
    const tenantId = refused.some((e) => e.field === 'tenant') ? undefined : tenantScope(request, form.tenant);
    const tenant = tenantId ? await repos.tenants.find(tenantId) : undefined;
    const { body, issues } = createBody(form);
    // Every problem in one answer: the schema's, the form's own (the hotel, an unreadable
    // amount) with the API's checks of the rest; one issue per field, the first found.
    const errors: FieldIssue[] = [...refused, ...issues.filter((i) => !refused.some((e) => e.field === i.field))];
    if (!tenant && !errors.some((e) => e.field === 'tenant'))
      errors.push({ field: 'tenant', message: w.chooseTenant, code: 'choose_tenant' });
    try {
      const input = checkCreateBody(body);
      if (tenant && errors.length === 0 && !(await payable(tenant.id))) throw appErrors.providerNotConfigured();
      if (tenant && errors.length === 0) {
        const actor = { source: 'admin' as const, actor: u.username };
        const created = await commands.create(tenantContextOf(tenant), input, actor);
        await audit(request, {
          tenantId: tenant.id,
          action: 'request_created',
          target: created.reference,
          paymentRequestId: created.uuid,
          outcome: 'ok',
          detail: { request_type: input.request_type, amount: body.amount ?? 0, currency: input.currency ?? 'EUR' },
        });
        flash(request, 'ok', w.createdFlash(created.reference));
        return reply.redirect(`/control/requests/${created.uuid}`, 303);
      }
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const found =
        err.code === 'validation_failed'
          ? ((err.extra.details as FieldIssue[] | undefined) ?? [])
          : [
              {
                field: err.code === 'deposit_amount_required' ? 'amount' : 'request_type',
                message: err.message,
                code: err.code,
              },
            ];
      errors.push(...found.filter((f) => !errors.some((e) => e.field === f.field)));
    }
    const tenants = await tenantsFor(u.tenantId);
    return reply.code(422).type('text/html; charset=utf-8').send(newRequestPage(ctx, { form, errors, tenants }));
  });
}
