import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Tenant, WebhookEndpointRow } from '../../db/index.js';
import { createEndpoint, rotateEndpointSecret, WebhookInputError } from '../../webhooks/index.js';
import { audit, controlNotFound, field, flash, isUuid, pageContext, tenantScope, user } from '../shell/index.js';
import { confirmPage, deliveryLogPage, type FreshSecret, webhooksPage } from './pages.js';
import { WEBHOOK_MESSAGES } from './words.js';

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

/** Every value of a repeated form field (formbody gives one string, or an array). */
function fields(body: unknown, name: string): string[] {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string' && x !== '');
}

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
async function endpointOf(request: FastifyRequest): Promise<{ endpoint: WebhookEndpointRow; tenant: Tenant }> {
  const { repos } = request.server.payreq;
  const id = (request.params as { id?: unknown }).id;
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
  const tenantOf = (request: FastifyRequest) =>
    field(request.body, 'tenant') ?? (request.query as { tenant?: string }).tenant;
  const listUrl = (tenantId: string) => `/control/webhooks?tenant=${tenantId}`;

  control.get('/webhooks', async (request, reply) => {
    const { tenant, tenants } = await listTenant(request, tenantOf(request));
    // The secret exists in the session for this one page view, then is dropped for good.
    const fresh = request.session.get('freshWebhookSecret');
    if (fresh) request.session.set('freshWebhookSecret', undefined);
    const ctx = await pageContext(request, reply);
    const endpoints = await repos.webhooks.summaries(tenant.id);
    return send(reply, webhooksPage(ctx, { tenant, tenants, endpoints, fresh }));
  });

  control.post('/webhooks', async (request, reply) => {
    const { tenant, tenants } = await listTenant(request, tenantOf(request));
    const url = (field(request.body, 'url') ?? '').trim();
    const events = fields(request.body, 'events');
    try {
      if (url === '') throw new WebhookInputError('the URL is required');
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
        webhooksPage(ctx, { tenant, tenants, endpoints, given: { url, events }, problem: err.message }),
        422,
      );
    }
  });

  control.get('/webhooks/:id', async (request, reply) => {
    const { endpoint, tenant } = await endpointOf(request);
    const raw = (request.query as { before?: unknown }).before;
    const before = typeof raw === 'string' && /^\d{1,18}$/.test(raw) ? raw : undefined;
    const rows = await repos.webhooks.deliveryLog(endpoint.id, { before, limit: LOG_PAGE + 1 });
    const deliveries = rows.slice(0, LOG_PAGE);
    const older = rows.length > LOG_PAGE ? deliveries.at(-1)?.id : undefined;
    const ctx = await pageContext(request, reply);
    return send(reply, deliveryLogPage(ctx, { tenant, endpoint, deliveries, older, paged: before !== undefined }));
  });

  for (const action of ['disable', 'rotate'] as const) {
    control.get(`/webhooks/:id/confirm-${action}`, async (request, reply) => {
      const { endpoint } = await endpointOf(request);
      return send(reply, confirmPage(await pageContext(request, reply), endpoint, action));
    });
  }

  control.post('/webhooks/:id/disable', async (request, reply) => {
    const { endpoint } = await endpointOf(request);
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

  control.post('/webhooks/:id/enable', async (request, reply) => {
    const { endpoint } = await endpointOf(request);
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

  control.post('/webhooks/:id/rotate', async (request, reply) => {
    const { endpoint } = await endpointOf(request);
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

  control.post('/webhooks/:id/deliveries/:delivery/resend', async (request, reply) => {
    const { endpoint } = await endpointOf(request);
    const delivery = (request.params as { delivery: string }).delivery;
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
