import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Need } from '../shell/index.ts';
import { audit, messagePage, pageContext } from '../shell/index.ts';
import { ROLE_MESSAGES } from './words.ts';

/**
 * The answer to a route the user's role does not reach: a 403 page naming the role it needs
 * (and theirs), recorded in the audit. Nothing of the handler has run.
 */
export async function refuseForRole(
  request: FastifyRequest,
  reply: FastifyReply,
  need: Need | 'unlisted',
  route: string,
): Promise<FastifyReply> {
  const u = request.controlUser;
  await audit(request, {
    tenantId: u?.tenantId ?? null,
    action: 'access_refused',
    target: `${request.method} ${request.url.split('?')[0] ?? ''}`.slice(0, 300),
    outcome: 'refused',
    detail: { need, role: u?.standing ?? 'none', route },
  });
  const ctx = await pageContext(request, reply);
  const r = ROLE_MESSAGES[ctx.language];
  const needed = need === 'unlisted' ? r.unlisted : r.needsRole(r.roleNames[need as 'viewer'] ?? need);
  const current = u?.tenants.find((t) => t.id === u.tenantId);
  const yours =
    u?.standing && u.standing !== 'superuser' && current
      ? r.yourRole(r.roleNames[u.standing], current.name)
      : u?.standing === null
        ? r.noRole
        : '';
  return reply
    .code(403)
    .type('text/html; charset=utf-8')
    .send(messagePage(ctx, r.forbidden, `${needed} ${yours}`.trim(), u?.standing ? '/control/' : '/control/account'));
}
