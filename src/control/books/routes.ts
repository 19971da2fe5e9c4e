import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { DecisionRefused } from '../../money-audit/index.ts';
import { controlNotFound, flash, pageContext, tenantScope } from '../shell/index.ts';
import { booksPage, settleConfirmPage } from './pages.ts';
import { BOOKS_MESSAGES } from './words.ts';

/** The hand settlement form; anything else is refused with the page's own message. */
const SettleForm = Type.Object({
  operation: Type.String({ pattern: '^[1-9][0-9]{0,17}$' }),
  as: Type.Union([Type.Literal('done'), Type.Literal('refused')]),
  reason: Type.String({ minLength: 1, maxLength: 500, pattern: '^[^\\u0000-\\u001f]*$' }),
  transaction: Type.Optional(Type.String({ maxLength: 200, pattern: '^[^\\u0000-\\u001f]*$' })),
  /** Sent by the confirmation: record it although it is young or the provider shows otherwise. */
  force: Type.Optional(Type.Literal('on')),
  _csrf: Type.Optional(Type.String()),
});

/** The hotel a superuser looks at; longer than an id or sent twice, it names none (404, as tenantScope answers). */
const BooksQuery = Type.Object({ tenant: Type.Optional(Type.String({ maxLength: 64 })) });

/** Rows a section of the Books page shows at most: the oldest first, they are the ones to act on. */
const SECTION_LIMIT = 200;

/** The Books page: every tenant's for a superuser (or the one named by ?tenant=), a tenant user's own. */
export async function booksRoutes(instance: FastifyInstance): Promise<void> {
  const control = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { payreq } = control;
  // attachValidation: the sign-in and role checks (preHandler hooks) still come first.
  control.get('/books', { schema: { querystring: BooksQuery }, attachValidation: true }, async (request, reply) => {
    if (request.validationError) throw controlNotFound();
    const tenantId = tenantScope(request, request.query.tenant);
    const books = payreq.repos.books;
    const [incidents, inDoubt, misplaced, runs, tenants] = await Promise.all([
      books.openIncidents(tenantId, SECTION_LIMIT),
      books.inDoubtOperations(tenantId, payreq.config.inDoubtGraceSeconds, SECTION_LIMIT),
      books.misplacedMoney(tenantId, SECTION_LIMIT),
      books.lastRuns(tenantId),
      payreq.repos.tenants.list(),
    ]);
    const names = new Map(tenants.map((t) => [t.id, t.name]));
    const ctx = await pageContext(request, reply);
    const escalateHours = payreq.config.inDoubtEscalateHours;
    return reply
      .type('text/html; charset=utf-8')
      .send(booksPage(ctx, { incidents, inDoubt, misplaced, runs, escalateHours }, names));
  });

  // An operation nobody could decide, settled by a manager (or a superuser) as the provider shows it.
  control.post('/books/settle', { schema: { body: SettleForm }, attachValidation: true }, async (request, reply) => {
    const ctx = await pageContext(request, reply);
    if (request.validationError) {
      flash(request, 'error', ctx.m.invalid);
      return reply.redirect('/control/books', 303);
    }
    const body = request.body;
    const transaction = body.transaction?.trim();
    try {
      await payreq.reconciler.decideByHand({
        ledgerId: body.operation,
        as: body.as,
        reason: body.reason,
        ...(transaction ? { transactionId: transaction } : {}),
        ...(body.force === 'on' ? { force: true } : {}),
        tenantId: tenantScope(request, undefined),
        by: { username: request.controlUser?.username ?? null, ip: request.ip },
      });
      flash(request, 'ok', BOOKS_MESSAGES[ctx.language].settled);
    } catch (err) {
      if (!(err instanceof DecisionRefused)) throw err;
      if (err.why && err.providerShows !== undefined) {
        // Too young, or against the provider: the manager confirms, knowing what it shows.
        const attempt = {
          operation: body.operation,
          as: body.as,
          reason: body.reason,
          ...(transaction ? { transaction } : {}),
        };
        const page = settleConfirmPage(ctx, attempt, err.why, err.providerShows, payreq.config.inDoubtEscalateHours);
        return reply.code(409).type('text/html; charset=utf-8').send(page);
      }
      flash(request, 'error', err.message);
    }
    return reply.redirect('/control/books', 303);
  });
}
