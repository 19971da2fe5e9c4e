import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError, errors } from '../../domain/index.ts';
import { sendNewLink } from '../../payment-requests/index.ts';
import {
  audit,
  controlNotFound,
  Form,
  flash,
  invalidFields,
  pageContext,
  tenantContextOf,
  user,
} from '../shell/index.ts';
import { REFUSAL_CONTROL_MESSAGES } from './refusal-words.ts';
import { scopedRequest } from './routes.ts';

const Params = Type.Object({ id: Type.String({ maxLength: 200 }) });
const NewLinkForm = Type.Object({ _csrf: Form.csrf });

/**
 * "Send a new link" (POST /control/requests/:id/new-link), for the roles that may send a link
 * again: on a REFUSED or EXPIRED request, a new request for the same guest, amount and
 * reservation, made by the API's create and linked both ways; its page follows, with its link
 * to copy, and the e-mail on its way when the hotel e-mails links. A second click lands on the
 * request the first made. Audited once, when a request is made (or refused).
 */
export async function newLinkRoute(control: FastifyInstance): Promise<void> {
  const { repos, commands, config } = control.payreq;
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    '/requests/:id/new-link',
    { schema: { params: Params, body: NewLinkForm }, attachValidation: true },
    async (request, reply) => {
      if (invalidFields(request).has('id')) throw controlNotFound();
      const row = await scopedRequest(request, request.params.id);
      const ctx = await pageContext(request, reply);
      const r = REFUSAL_CONTROL_MESSAGES[ctx.language];
      const tenant = await repos.tenants.find(row.tenant_id);
      if (!tenant) throw controlNotFound();
      const t = tenantContextOf(tenant);
      try {
        // As the API refuses a create: a hotel with no real account of its own could never be paid.
        const account = (await repos.providerAccounts.find(tenant.id))?.provider ?? 'none';
        if (config.paymentProvider !== 'sandbox' && !['lyra', 'stripe'].includes(account)) {
          throw errors.providerNotConfigured();
        }
        const link = await sendNewLink({ repos, commands }, t, row, { source: 'admin', actor: user(request).username });
        if (link.made) {
          await audit(request, {
            tenantId: row.tenant_id,
            action: 'new_link',
            target: row.reference,
            paymentRequestId: row.id,
            outcome: 'ok',
            detail: { new_reference: link.reference },
          });
        }
        const said = !link.made
          ? r.newLinkAlready(link.reference)
          : t.confirmationEmail
            ? r.newLinkMailed(link.reference, row.guest_email)
            : r.newLinkToCopy(link.reference);
        flash(request, 'ok', said);
        return reply.redirect(`/control/requests/${link.uuid}`, 303);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        await audit(request, {
          tenantId: row.tenant_id,
          action: 'new_link',
          target: row.reference,
          paymentRequestId: row.id,
          outcome: 'refused',
          detail: { reason: err.message },
        });
        flash(request, 'error', `${ctx.m.refused}: ${err.message}`);
        return reply.redirect(`/control/requests/${row.id}`, 303);
      }
    },
  );
}
