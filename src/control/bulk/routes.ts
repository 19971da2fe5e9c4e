import type { FastifyInstance, FastifyReply } from 'fastify';
import { allowedActions, fullAmount, PAGE_SIZE, scopedRequest } from '../requests/index.js';
import { audit, controlNotFound, field, flash, isUuid, ownScope, pageContext, user } from '../shell/index.js';
import { bulkConfirmPage, bulkPage } from './pages.js';

const html = (reply: FastifyReply, body: string) => reply.type('text/html; charset=utf-8').send(body);

/** Actions on many requests at once, confirmed first, then followed as queued jobs. */
export async function bulkRoutes(control: FastifyInstance): Promise<void> {
  const repos = control.payreq.repos;

  // Bulk: the selection first comes back as a confirmation listing each amount that will move
  // and the totals; only the confirmed form queues jobs (one per request, each for the amount
  // shown), and the page then follows their progress. A request whose status does not allow
  // the action is shown as left out and is not queued.
  control.post('/bulk', async (request, reply) => {
    const body = request.body as Record<string, unknown> | undefined;
    const rawIds = body?.ids;
    const ids = (Array.isArray(rawIds) ? rawIds : rawIds === undefined ? [] : [rawIds]).filter(
      (v): v is string => typeof v === 'string',
    );
    const action = field(body, 'action');
    const batchId = field(body, 'batch') ?? '';
    const ctx = await pageContext(request, reply);
    if (action !== 'capture' && action !== 'release' && action !== 'refund') throw controlNotFound();
    if (!isUuid(batchId) || ids.length === 0 || ids.length > PAGE_SIZE || !ids.every(isUuid)) {
      flash(request, 'error', ctx.m.invalid);
      return reply.redirect('/control/requests', 303);
    }
    // Every selected request must be in the user's scope, or nothing is shown or queued (404).
    const u = user(request);
    const rows = await Promise.all(ids.map((id) => scopedRequest(request, id)));
    const plan = rows.map((row) => ({
      row,
      cents: allowedActions(row).includes(action) ? fullAmount(action, row) : undefined,
    }));
    if (field(body, 'confirmed') !== 'yes') {
      return html(reply, bulkConfirmPage(ctx, { action, batchId: batchId.toLowerCase(), plan }));
    }
    type Confirmed = { id: string; tenantId: string; amount: number | null; currency: string };
    const confirmed = plan.flatMap(({ row }): Confirmed[] => {
      if (action === 'release') return [{ id: row.id, tenantId: row.tenant_id, amount: null, currency: row.currency }];
      const cents = Number(field(body, `amount_${row.id}`));
      return Number.isSafeInteger(cents) && cents > 0
        ? [{ id: row.id, tenantId: row.tenant_id, amount: cents, currency: row.currency }]
        : [];
    });
    if (confirmed.length !== rows.length) {
      flash(request, 'error', ctx.m.invalid);
      return reply.redirect('/control/requests', 303);
    }
    const queued = await repos.bulkJobs.enqueue({
      batchId: batchId.toLowerCase(),
      action,
      username: u.username,
      userTenantId: u.tenantId,
      ip: request.ip,
      requests: confirmed,
    });
    await audit(request, {
      tenantId: u.tenantId,
      action: 'bulk_action',
      target: batchId,
      outcome: 'ok',
      detail: {
        action,
        requests: rows.length,
        queued,
        amounts: confirmed.map((c) => ({ request: c.id, amount: c.amount, currency: c.currency })),
      },
    });
    return reply.redirect(`/control/bulk/${batchId.toLowerCase()}`, 303);
  });

  control.get('/bulk/:batch', async (request, reply) => {
    const { batch } = request.params as { batch: string };
    if (!isUuid(batch)) throw controlNotFound();
    const jobs = await repos.bulkJobs.batch(batch.toLowerCase(), ownScope(request));
    if (jobs.length === 0) throw controlNotFound();
    return html(reply, bulkPage(await pageContext(request, reply), jobs));
  });
}
