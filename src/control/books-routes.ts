import type { FastifyInstance } from 'fastify';
import { booksPage } from './books-pages.js';
import { pageContext, tenantScope } from './control-context.js';

/** Rows a section of the Books page shows at most: the oldest first, they are the ones to act on. */
const SECTION_LIMIT = 200;

/** The Books page: every tenant's for a superuser (or the one named by ?tenant=), a tenant user's own. */
export async function booksRoutes(control: FastifyInstance): Promise<void> {
  const { payreq } = control;
  control.get('/books', async (request, reply) => {
    const tenantId = tenantScope(request, (request.query as { tenant?: unknown }).tenant);
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
    return reply.type('text/html; charset=utf-8').send(booksPage(ctx, { incidents, inDoubt, misplaced, runs }, names));
  });
}
