import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  connectApaleo,
  disconnectPms,
  PmsConnectError,
  PmsInputError,
  pmsRepository,
  type ReservationRule,
  RuleError,
  setReservationRule,
} from '../../pms/index.ts';
import { audit, controlNotFound, Form, flash, pageContext, refusedFields, tenantScope, user } from '../shell/index.ts';
import type { PmsSettingsView } from './sections.ts';
import { PMS_MESSAGES } from './words.ts';

declare module 'fastify' {
  interface Session {
    /** The connect form's refusal, shown once beside the form on the settings page (422). */
    pmsRefusal?: { problem: string; values: PmsSettingsView['values'] };
  }
}

const TenantField = Type.Optional(Type.String({ maxLength: 64 }));

const ConnectForm = Type.Object({
  tenant: TenantField,
  _csrf: Form.csrf,
  property_id: Form.optionalText(100),
  client_id: Form.optionalText(500),
  client_secret: Form.optionalText(500),
  api_url: Form.optionalText(300),
  identity_url: Form.optionalText(300),
});
const TenantForm = Type.Object({ tenant: TenantField, _csrf: Form.csrf });
const RuleForm = Type.Object({
  tenant: TenantField,
  _csrf: Form.csrf,
  rule: Form.optionalText(30),
  value: Form.optionalText(10),
});
const RetryParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });
const RetryForm = Type.Object({ _csrf: Form.csrf, back: Form.optionalText(64) });

/** The hotel a form is about: a hotel user's own; a superuser's named one. None: 404. */
async function formTenant(request: FastifyRequest, named: unknown): Promise<string> {
  const scope = tenantScope(request, named);
  if (!scope || !(await request.server.payreq.repos.tenants.find(scope))) throw controlNotFound();
  return scope;
}

/**
 * What the settings page shows of the tenant's connection, with the connect form's refusal if
 * one was just made (shown once: the page answers 422 then).
 */
export async function pmsSettingsView(request: FastifyRequest, tenantId: string): Promise<PmsSettingsView> {
  const repo = pmsRepository(request.server.payreq.db);
  const connection = await repo.connection(tenantId);
  const refusal = request.session.get('pmsRefusal');
  if (refusal) request.session.set('pmsRefusal', undefined);
  return {
    connection,
    last: connection ? await repo.lastSettled(tenantId) : undefined,
    ...(refusal ? { problem: refusal.problem, values: refusal.values } : {}),
  };
}

/**
 * The hotel's Apaleo in the back office: connect and disconnect (a manager's, on the settings
 * page), the rule for requests from new reservations, and "Post again" for a posting Apaleo
 * refused for good (the front desk's, from the request's page or Today).
 */
export async function pmsRoutes(control: FastifyInstance): Promise<void> {
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();
  const { payreq } = control;
  const deps = { db: payreq.db, secretKeys: payreq.secretKeys };
  const settings = (tenantId: string) => `/control/settings?tenant=${tenantId}#pms-h`;

  typed.post('/settings/pms', { schema: { body: ConnectForm }, attachValidation: true }, async (request, reply) => {
    const refused = refusedFields(request);
    const tenantId = await formTenant(request, refused.has('tenant') ? 'x' : request.body.tenant);
    const ctx = await pageContext(request, reply);
    const w = PMS_MESSAGES[ctx.language];
    const b = request.body;
    const values = {
      property_id: b.property_id,
      client_id: b.client_id,
      api_url: b.api_url,
      identity_url: b.identity_url,
    };
    let problem: string | undefined;
    try {
      if (refused.size > 0) throw new PmsInputError('pms', `${[...refused].join(', ')}: too long`);
      const row = await connectApaleo(deps, tenantId, {
        propertyId: b.property_id,
        apiUrl: b.api_url,
        identityUrl: b.identity_url,
        secrets: JSON.stringify({ client_id: b.client_id ?? '', client_secret: b.client_secret ?? '' }),
      });
      await audit(request, { tenantId, action: 'pms_connected', target: row.property_id, outcome: 'ok' });
      flash(request, 'ok', w.connected(row.property_id));
      return reply.redirect(settings(tenantId), 303);
    } catch (err) {
      if (!(err instanceof PmsInputError) && !(err instanceof PmsConnectError)) throw err;
      problem = err instanceof PmsInputError ? `${err.field}: ${err.message}` : err.message;
    }
    await audit(request, {
      tenantId,
      action: 'pms_connected',
      target: b.property_id ?? '',
      outcome: 'refused',
      detail: { problem },
    });
    // The settings page again, the refusal beside the form (422), what was typed kept but the secret.
    request.session.set('pmsRefusal', { problem: problem ?? '', values });
    return reply.redirect(settings(tenantId), 303);
  });

  typed.post(
    '/settings/pms/disconnect',
    { schema: { body: TenantForm }, attachValidation: true },
    async (request, reply) => {
      refusedFields(request);
      const tenantId = await formTenant(request, request.body.tenant);
      const ctx = await pageContext(request, reply);
      const was = await disconnectPms(deps, tenantId);
      await audit(request, { tenantId, action: 'pms_disconnected', target: tenantId, outcome: was ? 'ok' : 'refused' });
      flash(request, 'ok', PMS_MESSAGES[ctx.language].disconnected);
      return reply.redirect(settings(tenantId), 303);
    },
  );

  typed.post(
    '/settings/pms/reservations',
    { schema: { body: RuleForm }, attachValidation: true },
    async (request, reply) => {
      const refused = refusedFields(request);
      const tenantId = await formTenant(request, request.body.tenant);
      const ctx = await pageContext(request, reply);
      const w = PMS_MESSAGES[ctx.language];
      const kind = refused.has('rule') ? 'bad' : (request.body.rule ?? 'off');
      const value = refused.has('value') ? Number.NaN : Number((request.body.value ?? '').trim() || '0');
      let rule: ReservationRule | null;
      if (kind === 'off') rule = null;
      else if (kind === 'imprint') rule = { kind, value: null };
      else if (
        (kind === 'deposit_percent' || kind === 'deposit_nights') &&
        Number.isInteger(value) &&
        value >= 1 &&
        value <= 100
      )
        rule = { kind, value };
      else {
        flash(request, 'error', w.ruleValueNeeded);
        return reply.redirect(settings(tenantId), 303);
      }
      try {
        await setReservationRule(
          { repo: pmsRepository(payreq.db), secretKeys: payreq.secretKeys, publicBaseUrl: payreq.config.publicBaseUrl },
          tenantId,
          rule,
        );
        await audit(request, {
          tenantId,
          action: 'pms_rule_changed',
          target: tenantId,
          outcome: 'ok',
          detail: { rule: kind, ...(rule?.value ? { value: rule.value } : {}) },
        });
        flash(request, 'ok', w.ruleSaved);
      } catch (err) {
        if (!(err instanceof RuleError)) throw err;
        await audit(request, {
          tenantId,
          action: 'pms_rule_changed',
          target: tenantId,
          outcome: 'refused',
          detail: { problem: err.message },
        });
        flash(request, 'error', w.refused(err.message));
      }
      return reply.redirect(settings(tenantId), 303);
    },
  );

  typed.post(
    '/pms/postings/:id/retry',
    { schema: { params: RetryParams, body: RetryForm }, attachValidation: true },
    async (request, reply) => {
      const refused = refusedFields(request);
      if (refused.has('id')) throw controlNotFound();
      const u = user(request);
      const found = await payreq.db.query<{ tenant_id: string; payment_request_id: string }>(
        'SELECT tenant_id, payment_request_id FROM pms_postings WHERE id = $1',
        [request.params.id],
      );
      const posting = found.rows[0];
      // Another hotel's posting is none (404), as another hotel's request is.
      if (!posting || (u.tenantId !== null && u.tenantId !== posting.tenant_id)) throw controlNotFound();
      const ctx = await pageContext(request, reply);
      const w = PMS_MESSAGES[ctx.language];
      const row = await pmsRepository(payreq.db).retry(posting.tenant_id, request.params.id);
      await audit(request, {
        tenantId: posting.tenant_id,
        action: 'pms_posting_retried',
        target: request.params.id,
        paymentRequestId: posting.payment_request_id,
        outcome: row ? 'ok' : 'refused',
      });
      flash(request, row ? 'ok' : 'error', row ? w.retried : w.notRetried);
      const back = refused.has('back') ? undefined : request.body.back;
      return reply.redirect(
        back === 'today'
          ? `/control/today${u.tenantId === null ? `?tenant=${posting.tenant_id}` : ''}`
          : `/control/requests/${posting.payment_request_id}`,
        303,
      );
    },
  );
}
