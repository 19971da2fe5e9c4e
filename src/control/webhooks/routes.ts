import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Tenant, WebhookEndpointRow } from '../../db/index.ts';
import { createEndpoint, rotateEndpointSecret, WebhookInputError } from '../../webhooks/index.ts';
import { audit, controlNotFound, Form, flash, isUuid, listOf, pageContext, tenantScope, user } from '../shell/index.ts';
import { confirmPage, deliveryLogPage, type FreshSecret, webhooksPage } from './pages.ts';
import { WEBHOOK_MESSAGES } from './words.ts';

declare module 'fastify' {
  interface Session {
    /** A webhook secret just made: shown once on the webhooks page, then dropped. */
    freshWebhookSecret?: FreshSecret;
  }
}

/** Deliveries a page of the log shows. */
const LOG_PAGE = 50;

const send = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

/**
 * The parts of the requests. Text the handlers check themselves stays unbounded here, so each
 * refusal keeps its own words: a tenant that is not a UUID of the user's is a 404
 * (tenantScope), a URL past 2000 characters is refused by createEndpoint, saying so. What the
 * schema refuses (a field sent twice, an event name no form has) is the error page (422).
 */
const TenantQuery = Type.Object({ tenant: Type.Optional(Type.String()) });
const EventName = Type.String({ maxLength: 200 });
const AddForm = Type.Object({
  tenant: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  // Ticked boxes: one value or several; none ticked is every event. (Form.many's item is a
  // plain TSchema, which reads as unknown: written out, the handler gets strings.)
  events: Type.Optional(Type.Union([EventName, Type.Array(EventName)])),
  _csrf: Form.csrf,
});
const EndpointParams = Type.Object({ id: Type.String() });
const LogQuery = Type.Object({ before: Type.Optional(Type.String()) });
const DeliveryParams = Type.Object({ id: Type.String(), delivery: Type.String() });

/**
 * The tenant the list is about: a tenant user's own; for a superuser, the one named or else the
 * first (the tenant chooser, as on the keys and settings pages). Another's, or none: 404.
 */
async function listTenant(request: FastifyRequest, named: unknown): Promise<{ tenant: Tenant; tenants: Tenant[] }> {
  const { repos } = request.server.payreq;
  const scope = tenantScope(request, named);
  const tenants = user(request).tenantId === null ? await repos.tenants.list() : [];
  const tenant = scope ? await repos.tenants.find(scope) : tenants[0];
  if (!tenant) throw controlNotFound();
  return { tenant, tenants };
}

/** The endpoint named in the path, if the user may act on it (its tenant's users, superusers). */
async function endpointOf(
  request: FastifyRequest,
  id: string,
): Promise<{ endpoint: WebhookEndpointRow; tenant: Tenant }> {
  const { repos } = request.server.payreq;
  const endpoint = isUuid(id) ? await repos.webhooks.findEndpoint(id.toLowerCase()) : undefined;
  if (!endpoint) throw controlNotFound();
  tenantScope(request, endpoint.tenant_id);
  const tenant = await repos.tenants.find(endpoint.tenant_id);
  if (!tenant) throw controlNotFound();
  return { endpoint, tenant };
}

/**
 * /control/webhooks: a tenant's endpoints, adding one (its secret shown once), disabling and
 * enabling, rotating the secret (the new one shown once), and each endpoint's delivery log with
 * a resend. Who may come here (manager, superuser) is decided by the back office's role table,
 * not here; which tenant's endpoints, by tenantScope.
 */
export async function webhookRoutes(control: FastifyInstance): Promise<void> {
  const { payreq } = control;
  const { repos } = payreq;
  const rules = () => ({ production: payreq.config.production, allowPrivate: payreq.config.webhooksAllowPrivate });
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();
  const listUrl = (tenantId: string) => `/control/webhooks?tenant=${tenantId}`;

  typed.get('/webhooks', { schema: { querystring: TenantQuery } }, async (request, reply) => {
    const { tenant, tenants } = await listTenant(request, request.query.tenant);
    // The secret exists in the session for this one page view, then is dropped for good.
    const fresh = request.session.get('freshWebhookSecret');
    if (fresh) request.session.set('freshWebhookSecret', undefined);
    const ctx = await pageContext(request, reply);
    const endpoints = await repos.webhooks.summaries(tenant.id);
    return send(reply, webhooksPage(ctx, { tenant, tenants, endpoints, fresh }));
  });

  typed.post('/webhooks', { schema: { body: AddForm, querystring: TenantQuery } }, async (request, reply) => {
    const { tenant, tenants } = await listTenant(request, request.body.tenant ?? request.query.tenant);
    const url = (request.body.url ?? '').trim();
    const events = listOf(request.body.events).filter((e) => e !== '');
    try {
      if (url === '') throw new WebhookInputError({ kind: 'required' });
      const e = await createEndpoint(repos, payreq.secretKeys, rules(), { tenantId: tenant.id, url, events });
      request.session.set('freshWebhookSecret', { endpointId: e.id, secret: e.secret });
      await audit(request, {
        tenantId: tenant.id,
        action: 'webhook_created',
        target: e.id,
        outcome: 'ok',
        detail: { url: e.url, events: e.events },
      });
      flash(request, 'ok', WEBHOOK_MESSAGES[(await pageContext(request, reply)).language].created);
      return reply.redirect(listUrl(tenant.id), 303);
    } catch (err) {
      if (!(err instanceof WebhookInputError)) throw err;
      await audit(request, {
        tenantId: tenant.id,
        action: 'webhook_created',
        target: null,
        outcome: 'refused',
        detail: { url: url.slice(0, 2000), reason: err.message },
      });
      // The form again with what was given and why it was refused; nothing was registered.
      const ctx = await pageContext(request, reply);
      const endpoints = await repos.webhooks.summaries(tenant.id);
      return send(
        reply,
        webhooksPage(ctx, { tenant, tenants, endpoints, given: { url, events }, problem: err.problem }),
        422,
      );
    }
  });

  typed.get('/webhooks/:id', { schema: { params: EndpointParams, querystring: LogQuery } }, async (request, reply) => {
    const { endpoint, tenant } = await endpointOf(request, request.params.id);
    const raw = request.query.before;
    const before = raw !== undefined && /^\d{1,18}$/.test(raw) ? raw : undefined;
    const rows = await repos.webhooks.deliveryLog(endpoint.id, { before, limit: LOG_PAGE + 1 });
    const deliveries = rows.slice(0, LOG_PAGE);
    const older = rows.length > LOG_PAGE ? deliveries.at(-1)?.id : undefined;
    const ctx = await pageContext(request, reply);
    return send(reply, deliveryLogPage(ctx, { tenant, endpoint, deliveries, older, paged: before !== undefined }));
  });

  for (const action of ['disable', 'rotate'] as const) {
    typed.get(`/webhooks/:id/confirm-${action}`, { schema: { params: EndpointParams } }, async (request, reply) => {
      const { endpoint } = await endpointOf(request, request.params.id);
      return send(reply, confirmPage(await pageContext(request, reply), endpoint, action));
    });
  }

  typed.post('/webhooks/:id/disable', { schema: { params: EndpointParams } }, async (request, reply) => {
    const { endpoint } = await endpointOf(request, request.params.id);
    const done = await repos.webhooks.disableByHand({
      endpointId: endpoint.id,
      reason: `disabled by ${user(request).username} in the back office`,
    });
    await audit(request, {
      tenantId: endpoint.tenant_id,
      action: 'webhook_disabled',
      target: endpoint.id,
      outcome: done ? 'ok' : 'refused',
      detail: { url: endpoint.url },
    });
    const ctx = await pageContext(request, reply);
    flash(request, 'ok', WEBHOOK_MESSAGES[ctx.language].disabled);
    return reply.redirect(listUrl(endpoint.tenant_id), 303);
  });

  typed.post('/webhooks/:id/enable', { schema: { params: EndpointParams } }, async (request, reply) => {
    const { endpoint } = await endpointOf(request, request.params.id);
    const done = await repos.webhooks.enable(endpoint.id);
    await audit(request, {
      tenantId: endpoint.tenant_id,
      action: 'webhook_enabled',
      target: endpoint.id,
      outcome: done ? 'ok' : 'refused',
      detail: { url: endpoint.url },
    });
    const ctx = await pageContext(request, reply);
    flash(request, 'ok', WEBHOOK_MESSAGES[ctx.language].enabled);
    return reply.redirect(listUrl(endpoint.tenant_id), 303);
  });

  typed.post('/webhooks/:id/rotate', { schema: { params: EndpointParams } }, async (request, reply) => {
    const { endpoint } = await endpointOf(request, request.params.id);
    const rotated = await rotateEndpointSecret(repos, payreq.secretKeys, endpoint.id);
    if (!rotated) throw controlNotFound();
    request.session.set('freshWebhookSecret', {
      endpointId: rotated.id,
      secret: rotated.secret,
      rotatedUntil: rotated.previous_secret_expires_at ?? undefined,
    });
    await audit(request, {
      tenantId: endpoint.tenant_id,
      action: 'webhook_secret_rotated',
      target: endpoint.id,
      outcome: 'ok',
      detail: { url: endpoint.url, previous_secret_expires_at: rotated.previous_secret_expires_at },
    });
    return reply.redirect(listUrl(endpoint.tenant_id), 303);
  });

  const resend = { schema: { params: DeliveryParams } };
  typed.post('/webhooks/:id/deliveries/:delivery/resend', resend, async (request, reply) => {
    const { endpoint } = await endpointOf(request, request.params.id);
    const delivery = request.params.delivery;
    const queued =
      /^\d{1,18}$/.test(delivery) && (await repos.webhooks.resend({ deliveryId: delivery, endpointId: endpoint.id }));
    await audit(request, {
      tenantId: endpoint.tenant_id,
      action: 'webhook_resent',
      target: endpoint.id,
      outcome: queued ? 'ok' : 'refused',
      detail: { url: endpoint.url, delivery },
    });
    const ctx = await pageContext(request, reply);
    flash(
      request,
      queued ? 'ok' : 'error',
      queued ? WEBHOOK_MESSAGES[ctx.language].resent : WEBHOOK_MESSAGES[ctx.language].notResent,
    );
    return reply.redirect(`/control/webhooks/${endpoint.id}`, 303);
  });
}
