import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { isMoneyReason, MAX_REASON_NOTE, moveReason, NO_REASON } from '../../domain/index.ts';
import { allowedActions, fullAmount, PAGE_SIZE, REASON_MESSAGES, scopedRequest } from '../requests/index.ts';
import {
  audit,
  controlNotFound,
  Form,
  flash,
  invalidFields,
  isUuid,
  listOf,
  ownScope,
  pageContext,
  user,
} from '../shell/index.ts';
import { bulkConfirmPage, bulkPage } from './pages.ts';

const html = (reply: FastifyReply, body: string) => reply.type('text/html; charset=utf-8').send(body);

/**
 * The list's bulk form and its confirmation: the action, the batch's id, the selected ids, and,
 * once confirmed, the amount shown for each (`amount_<id>`, in minor units). Ids and amounts
 * are checked by the handler (a UUID in the user's scope, a whole number of cents).
 */
const Id = Type.String({ maxLength: 100 });
const BulkForm = Type.Intersect([
  Type.Object({
    action: Form.choice(['capture', 'release', 'refund']),
    batch: Form.optionalText(100),
    // Form.many's item is a plain TSchema, which types the field as unknown: the same schema here.
    ids: Type.Optional(Type.Union([Id, Type.Array(Id)])),
    confirmed: Form.optionalText(10),
    // Why the money moves, as a single capture or refund takes it: one reason and note for the batch.
    reason: Form.optionalText(100),
    note: Form.optionalText(MAX_REASON_NOTE),
    _csrf: Form.csrf,
  }),
  Type.Record(Type.TemplateLiteral([Type.Literal('amount_'), Type.String()]), Type.String({ maxLength: 20 })),
]);

/** A batch's progress page; its id is checked by the handler (the same 404 as another's). */
const BatchParams = Type.Object({ batch: Type.String({ maxLength: 200 }) });

/** Actions on many requests at once, confirmed first, then followed as queued jobs. */
export async function bulkRoutes(control: FastifyInstance): Promise<void> {
  const repos = control.payreq.repos;
  // Each route attaches its refusal: the role and CSRF checks still come first.
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();

  // Bulk: the selection first comes back as a confirmation listing each amount that will move
  // and the totals; only the confirmed form queues jobs (one per request, each for the amount
  // shown), and the page then follows their progress. A request whose status does not allow
  // the action is shown as left out and is not queued.
  typed.post('/bulk', { schema: { body: BulkForm }, attachValidation: true }, async (request, reply) => {
    const bad = invalidFields(request);
    // No action the list offers (or no form at all): nothing here (the role check said so first).
    if (bad.has('action') || (request.validationError && bad.size === 0)) throw controlNotFound();
    const ctx = await pageContext(request, reply);
    // A form that is not the list's or the confirmation's (a field repeated, too long, not
    // text) is refused as a wrong selection is: nothing shown, nothing queued. Its values are
    // read only once they passed.
    const refuse = () => {
      flash(request, 'error', ctx.m.invalid);
      return reply.redirect('/control/requests', 303);
    };
    if (request.validationError) return refuse();
    const body = request.body;
    const { action } = body;
    const ids = listOf(body.ids);
    const batchId = body.batch ?? '';
    if (!isUuid(batchId) || ids.length === 0 || ids.length > PAGE_SIZE || !ids.every(isUuid)) return refuse();
    // Every selected request must be in the user's scope, or nothing is shown or queued (404).
    const u = user(request);
    const rows = await Promise.all(ids.map((id) => scopedRequest(request, id)));
    const plan = rows.map((row) => ({
      row,
      cents: allowedActions(row).includes(action) ? fullAmount(action, row) : undefined,
    }));
    if (body.confirmed !== 'yes') {
      return html(reply, bulkConfirmPage(ctx, { action, batchId: batchId.toLowerCase(), plan }));
    }
    type Confirmed = { id: string; tenantId: string; amount: number | null; currency: string };
    const confirmed = plan.flatMap(({ row }): Confirmed[] => {
      if (action === 'release') return [{ id: row.id, tenantId: row.tenant_id, amount: null, currency: row.currency }];
      const cents = Number(body[`amount_${row.id}`]);
      return Number.isSafeInteger(cents) && cents > 0
        ? [{ id: row.id, tenantId: row.tenant_id, amount: cents, currency: row.currency }]
        : [];
    });
    if (confirmed.length !== rows.length) return refuse();
    // A reason not on the list moves nothing, as on a single move's form (the API's invalid_reason).
    const given = body.reason ?? '';
    if (given !== '' && !isMoneyReason(given)) {
      flash(request, 'error', REASON_MESSAGES[ctx.language].reasonRefused);
      return reply.redirect('/control/requests', 303);
    }
    const why = action === 'release' ? NO_REASON : moveReason(given === '' ? undefined : given, body.note);
    const queued = await repos.bulkJobs.enqueue({
      batchId: batchId.toLowerCase(),
      action,
      username: u.username,
      userTenantId: u.tenantId,
      ip: request.ip,
      requests: confirmed,
      why,
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
        ...(why.reason ? { move_reason: why.reason } : {}),
        ...(why.note ? { move_note: why.note } : {}),
        amounts: confirmed.map((c) => ({ request: c.id, amount: c.amount, currency: c.currency })),
      },
    });
    return reply.redirect(`/control/bulk/${batchId.toLowerCase()}`, 303);
  });

  typed.get('/bulk/:batch', { schema: { params: BatchParams }, attachValidation: true }, async (request, reply) => {
    const { batch } = request.params;
    if (request.validationError || !isUuid(batch)) throw controlNotFound();
    const jobs = await repos.bulkJobs.batch(batch.toLowerCase(), ownScope(request));
    if (jobs.length === 0) throw controlNotFound();
    return html(reply, bulkPage(await pageContext(request, reply), jobs));
  });
}
