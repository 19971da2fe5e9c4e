// "Today" (/control/today): what needs someone at the hotel today (docs/back-office.md).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { dayPlan } from '../../day-plan/index.ts';
import { failedPostings } from '../pms/index.ts';
import { controlNotFound, pageContext, tenantScope, user } from '../shell/index.ts';
import { todayPage } from './today-page.ts';

export { TODAY_MESSAGES, type TodayMessages } from './words.ts';

/** A superuser's chosen hotel (tenantScope refuses anything but a UUID of theirs: 404). */
const TodayQuery = Type.Object({ tenant: Type.Optional(Type.String()) });

/**
 * Every role sees it (the roles table, when it comes, lists it for all). A tenant user sees
 * their hotel; a superuser the one named by ?tenant=, else the first, with a chooser. "Today"
 * is the hotel's, in its zone, at the back office's clock (tests move it).
 */
export async function todayRoutes(control: FastifyInstance): Promise<void> {
  const { payreq } = control;
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();
  typed.get('/today', { schema: { querystring: TodayQuery } }, async (request, reply) => {
    const scope = tenantScope(request, request.query.tenant);
    const tenants = user(request).tenantId === null ? await payreq.repos.tenants.list() : [];
    const tenant = scope ? await payreq.repos.tenants.find(scope) : tenants[0];
    if (!tenant) throw controlNotFound();
    const plan = await dayPlan(payreq.repos, tenant, control.controlNow(), {
      inDoubtGraceSeconds: payreq.config.inDoubtGraceSeconds,
    });
    const ctx = await pageContext(request, reply);
    const postings = await failedPostings(payreq, tenant.id);
    return reply.type('text/html; charset=utf-8').send(todayPage(ctx, { plan, tenant, tenants, postings }));
  });
}
export { reminderHistoryRows } from './reminder-history.ts';
