import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isTenantRole } from '../../admin-users/index.ts';
import type { Tenant } from '../../db/index.ts';
import {
  audit,
  controlNotFound,
  Form,
  flash,
  invalidFields,
  isUuid,
  messagePage,
  pageContext,
  tenantScope,
  user,
} from '../shell/index.ts';
import { tokenHash } from './join.ts';
import { teamPage } from './pages.ts';
import { ROLE_MESSAGES } from './words.ts';

/** The invitation form: a username and a role; the tenant for a superuser. */
const GrantForm = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  role: Type.String({ maxLength: 16 }),
  tenant: Type.Optional(Type.String({ maxLength: 64 })),
  _csrf: Type.Optional(Type.String()),
});

/**
 * The other parts. The tenant and ids are checked by the handlers (not a UUID of the user's:
 * 404), the role by isTenantRole; what the schema refuses (a field sent twice) is the error page.
 */
const TenantQuery = Type.Object({ tenant: Type.Optional(Type.String()) });
/** The e-mail invitation: an address and a role; the tenant for a superuser. */
const InviteForm = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  role: Type.String({ maxLength: 16 }),
  tenant: Type.Optional(Type.String({ maxLength: 64 })),
  _csrf: Form.csrf,
});

/** How long an e-mail invitation's link works: three days, once. */
export const INVITATION_HOURS = 72;

/**
 * An address mail can go to: a local part without spaces, quotes or brackets, an `@`, and a
 * domain of dotted labels. The mailbox's existence is the mail server's to find out.
 */
const EMAIL =
  /^[^\s@"<>(),;:\\[\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
export const isEmailAddress = (v: string): boolean => v.length <= 254 && EMAIL.test(v);
const MemberParams = Type.Object({ userId: Type.String() });
const RoleForm = Type.Object({
  role: Type.Optional(Type.String()),
  tenant: Type.Optional(Type.String()),
  _csrf: Form.csrf,
});
/** The header's switch: a hotel of the user's; anything else (sent twice too) is refused, 403. */
const SwitchForm = Type.Object({ tenant: Form.text(64), _csrf: Form.csrf });

const send = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

/**
 * The tenant the Team page is about: a manager's current one; for a superuser, the one named
 * (a query or a form's `tenant`) or else the first. Another tenant's: 404. Who may come at all
 * is route-roles.ts's (manager, superuser).
 */
async function teamTenant(
  request: FastifyRequest,
  named: string | undefined,
): Promise<{ tenant: Tenant; tenants: Tenant[] }> {
  const { repos } = request.server.payreq;
  const scope = tenantScope(request, named);
  const tenants = user(request).superuser ? await repos.tenants.list() : [];
  const tenant = scope ? await repos.tenants.find(scope) : tenants[0];
  if (!tenant) throw controlNotFound();
  return { tenant, tenants };
}

const back = (reply: FastifyReply, tenant: Tenant, request: FastifyRequest) =>
  reply.redirect(user(request).superuser ? `/control/team?tenant=${tenant.id}` : '/control/team', 303);

export async function teamRoutes(control: FastifyInstance): Promise<void> {
  const { repos } = control.payreq;

  const typed = control.withTypeProvider<TypeBoxTypeProvider>();
  const show = async (request: FastifyRequest, reply: FastifyReply, named: string | undefined) => {
    const { tenant, tenants } = await teamTenant(request, named);
    const rows = await repos.adminUsers.roles({ tenantId: tenant.id });
    return send(reply, teamPage(await pageContext(request, reply), { tenant, tenants, rows }));
  };

  typed.get('/team', { schema: { querystring: TenantQuery } }, async (request, reply) =>
    show(request, reply, request.query.tenant),
  );

  // An existing user is invited here (a hotel group's staff working at a second hotel): the
  // role is theirs once they accept it. The answer is the same whether the name belongs to a
  // user of another hotel, to a superuser or to nobody, and nothing tells them apart here.
  const grant = { schema: { body: GrantForm, querystring: TenantQuery }, attachValidation: true };
  typed.post('/team/grant', grant, async (request, reply) => {
    // A tenant the schema refused is no tenant of the user's (404, as tenantScope says of any
    // text not a UUID); the other fields are read only once the whole form passed.
    if (invalidFields(request).has('tenant')) throw controlNotFound();
    const { tenant } = await teamTenant(request, request.body.tenant ?? request.query.tenant);
    const r = ROLE_MESSAGES[(await pageContext(request, reply)).language];
    if (request.validationError || !isTenantRole(request.body.role)) {
      flash(request, 'error', r.invalidRole);
      return back(reply, tenant, request);
    }
    const role = request.body.role;
    const username = request.body.username.trim().toLowerCase();
    const here = await repos.adminUsers.roles({ tenantId: tenant.id });
    const member = here.find((x) => x.username === username);
    if (member) {
      // Someone of this very hotel: nothing is learnt about any other.
      flash(request, 'error', r.alreadyHere(member.username));
      return back(reply, tenant, request);
    }
    await repos.teamInvitations.invite(username, tenant.id, role, user(request).username);
    await audit(request, {
      tenantId: tenant.id,
      action: 'role_invited',
      target: username.slice(0, 64),
      outcome: 'ok',
      detail: { role },
    });
    // The name typed is not repeated: the answer is the same, byte for byte, whoever it names.
    flash(request, 'ok', r.invited(r.roleNames[role]));
    return back(reply, tenant, request);
  });

  // Anyone by e-mail: a link that works once and expires goes to the address; whoever reads it
  // chooses their own username and password, or accepts signed in as themselves (join.ts).
  // The answer is the same whatever the address is elsewhere: nothing here looks it up.
  const invite = { schema: { body: InviteForm, querystring: TenantQuery }, attachValidation: true };
  typed.post('/team/invite', invite, async (request, reply) => {
    if (invalidFields(request).has('tenant')) throw controlNotFound();
    const { tenant } = await teamTenant(request, request.body.tenant ?? request.query.tenant);
    const ctx = await pageContext(request, reply);
    const r = ROLE_MESSAGES[ctx.language];
    if (request.validationError || !isTenantRole(request.body.role)) {
      flash(request, 'error', r.invalidRole);
      return back(reply, tenant, request);
    }
    const email = request.body.email.trim();
    if (!isEmailAddress(email)) {
      flash(request, 'error', r.invalidEmail);
      return back(reply, tenant, request);
    }
    const role = request.body.role;
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(control.controlNow().getTime() + INVITATION_HOURS * 3600_000);
    const by = user(request).username;
    await repos.invitationLinks.invite({
      tenantId: tenant.id,
      email,
      role,
      tokenHash: tokenHash(token),
      expiresAt,
      mail: { to: email, token, role, language: ctx.language, invited_by: by, expires_at: expiresAt.toISOString() },
    });
    await audit(request, {
      tenantId: tenant.id,
      action: 'role_invited',
      target: email.slice(0, 254),
      outcome: 'ok',
      detail: { role, by: 'email' },
    });
    // The address typed is not repeated: the answer is the same, byte for byte, whoever it is.
    flash(request, 'ok', r.invitationSent(r.roleNames[role], INVITATION_HOURS / 24));
    return back(reply, tenant, request);
  });

  // Change a role, or remove it. A manager may not leave the tenant without a manager.
  for (const op of ['role', 'remove'] as const) {
    const member = { schema: { params: MemberParams, body: RoleForm, querystring: TenantQuery } };
    typed.post(`/team/:userId/${op}`, member, async (request, reply) => {
      const { tenant } = await teamTenant(request, request.body.tenant ?? request.query.tenant);
      const r = ROLE_MESSAGES[(await pageContext(request, reply)).language];
      const { userId } = request.params;
      if (!isUuid(userId)) throw controlNotFound();
      const [held] = await repos.adminUsers.roles({ tenantId: tenant.id, userId: userId.toLowerCase() });
      if (!held) throw controlNotFound();
      const role = op === 'remove' ? null : request.body.role;
      if (role !== null && !isTenantRole(role)) {
        flash(request, 'error', r.invalidRole);
        return back(reply, tenant, request);
      }
      const me = user(request);
      // A manager's change never leaves the tenant without an enabled manager: in practice the
      // last one stepping down (two managers lowering each other at once, too). A superuser may.
      const done = await repos.adminUsers.setRole(held.user_id, tenant.id, role, { keepLastManager: !me.superuser });
      const action = role === null ? 'role_revoked' : 'role_changed';
      if (done.outcome === 'last_manager') {
        await audit(request, {
          tenantId: tenant.id,
          action,
          target: held.username,
          outcome: 'refused',
          detail: { reason: 'last_manager', role: role ?? undefined, before: held.role },
        });
        flash(request, 'error', r.lastManager);
        return back(reply, tenant, request);
      }
      await audit(request, {
        tenantId: tenant.id,
        action,
        target: held.username,
        outcome: 'ok',
        detail: { ...(role ? { role } : {}), before: done.before ?? held.role },
      });
      flash(request, 'ok', role === null ? r.removed(held.username) : r.granted(held.username, r.roleNames[role]));
      return back(reply, tenant, request);
    });
  }
}

/** The header's switch: the tenant worked on, kept in the session; only one the user holds a role on. */
export async function tenantSwitchRoutes(control: FastifyInstance): Promise<void> {
  const typed = control.withTypeProvider<TypeBoxTypeProvider>();
  typed.post('/tenant', { schema: { body: SwitchForm }, attachValidation: true }, async (request, reply) => {
    const me = user(request);
    const r = ROLE_MESSAGES[(await pageContext(request, reply)).language];
    const wanted = (request.validationError ? '' : request.body.tenant).toLowerCase();
    const target = me.tenants.find((t) => t.id === wanted);
    if (!target) {
      await audit(request, {
        tenantId: me.tenantId,
        action: 'tenant_switch_refused',
        target: wanted.slice(0, 64),
        outcome: 'refused',
      });
      const ctx = await pageContext(request, reply);
      return send(reply, messagePage(ctx, r.forbidden, r.switchRefused), 403);
    }
    request.session.set('tenantId', target.id);
    flash(request, 'ok', r.switched(target.name));
    return reply.redirect('/control/', 303);
  });
}
