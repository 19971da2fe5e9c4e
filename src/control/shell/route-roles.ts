import type { TenantRole } from '../../db/index.ts';

/**
 * Who may use which back-office route: the one place roles are decided. Each registered route
 * (method and path pattern, as Fastify names it) has one line here giving the least role it
 * needs; the access hook (index.ts) checks it before any handler runs. A route with no line is
 * refused to everyone, superusers too (deny by default), and test/control/roles.test.ts fails
 * for it: a new route is one line here.
 *
 * - `public`: before sign-in (sign-in steps, assets, the language switch).
 * - `signed_in`: any signed-in user, whatever their role (their own account, sign-out, the tenant
 *   switch, which itself refuses a tenant the user has no role on).
 * - `viewer` < `frontdesk` < `manager`: the user's role on their current tenant, or higher.
 * - `superuser`: superusers only. A superuser passes every line.
 *
 * Where one route serves actions of different weight (`/requests/:id/:action`, the bulk form's
 * `action` field), the line names where the action is read and the role of each; an action not
 * listed is a 404 before the handler runs.
 */
export type Need = 'public' | 'signed_in' | TenantRole | 'superuser';

export interface NeedByAction {
  from: 'params' | 'query' | 'body';
  name: string;
  roles: Readonly<Record<string, Need>>;
}

/** Single and bulk money actions: moving money out again (refund) is a manager's. */
const REQUEST_ACTION_ROLES: Readonly<Record<string, Need>> = {
  resend: 'frontdesk',
  cancel: 'frontdesk',
  capture: 'frontdesk',
  release: 'frontdesk',
  delete: 'frontdesk',
  refund: 'manager',
};

export const ROUTE_ROLES: Readonly<Record<string, Need | NeedByAction>> = {
  // Before sign-in
  'GET /control/sign-in': 'public',
  'POST /control/sign-in': 'public',
  'GET /control/sign-in/code': 'public',
  'POST /control/sign-in/code': 'public',
  'GET /control/sign-in/recovery': 'public',
  'POST /control/sign-in/recovery': 'public',
  'GET /control/assets/control.css': 'public',
  'GET /control/assets/control.js': 'public',
  'GET /control/language/:language': 'public',
  // An invitation's link: its holder has no account yet, or signs in to accept with theirs.
  'GET /control/join/:token': 'public',
  'POST /control/join/:token': 'public',
  // Any signed-in user: their own account, the way in and out
  'GET /control': 'signed_in',
  'POST /control/sign-out': 'signed_in',
  'POST /control/tenant': 'signed_in',
  'GET /control/invitations': 'signed_in',
  'POST /control/invitations/answer': 'signed_in',
  'POST /control/account/home': 'signed_in',
  'GET /control/account': 'signed_in',
  'POST /control/account/password': 'signed_in',
  'GET /control/account/sessions': 'signed_in',
  'POST /control/account/sessions/end': 'signed_in',
  'POST /control/account/sessions/end-others': 'signed_in',
  'GET /control/account/two-factor': 'signed_in',
  'POST /control/account/two-factor/start': 'signed_in',
  'POST /control/account/two-factor/confirm': 'signed_in',
  'POST /control/account/two-factor/recovery-codes': 'signed_in',
  'POST /control/account/two-factor/disable': 'signed_in',
  // The day and the payment requests: every role reads; the front desk creates and acts; refunds are a manager's
  'GET /control/today': 'viewer',
  'GET /control/requests': 'viewer',
  'GET /control/requests/:id': 'viewer',
  'GET /control/requests/export': 'viewer',
  'GET /control/bulk/:batch': 'viewer',
  'GET /control/requests/new': 'frontdesk',
  'POST /control/requests/new': 'frontdesk',
  'GET /control/requests/:id/confirm': { from: 'query', name: 'action', roles: REQUEST_ACTION_ROLES },
  'POST /control/requests/:id/:action': { from: 'params', name: 'action', roles: REQUEST_ACTION_ROLES },
  'POST /control/bulk': { from: 'body', name: 'action', roles: REQUEST_ACTION_ROLES },
  'POST /control/pms/postings/:id/retry': 'frontdesk',
  // Running the tenant: managers
  'GET /control/books': 'manager',
  'POST /control/books/settle': 'manager',
  'GET /control/payouts': 'manager',
  'GET /control/payouts/export': 'manager',
  'GET /control/payouts/sandbox-report': 'manager',
  'GET /control/payouts/:id': 'manager',
  'POST /control/payouts/import': 'manager',
  'GET /control/keys': 'manager',
  'POST /control/keys': 'manager',
  'GET /control/keys/:prefix/confirm-revoke': 'manager',
  'POST /control/keys/:prefix/:action': 'manager',
  'GET /control/settings': 'manager',
  'POST /control/settings': 'manager',
  'POST /control/settings/logo': 'manager',
  'POST /control/settings/logo/remove': 'manager',
  'POST /control/settings/pms': 'manager',
  'POST /control/settings/pms/disconnect': 'manager',
  'POST /control/settings/pms/reservations': 'manager',
  'GET /control/audit': 'manager',
  'GET /control/webhooks': 'manager',
  'POST /control/webhooks': 'manager',
  'GET /control/webhooks/:id': 'manager',
  'GET /control/webhooks/:id/confirm-disable': 'manager',
  'GET /control/webhooks/:id/confirm-rotate': 'manager',
  'POST /control/webhooks/:id/disable': 'manager',
  'POST /control/webhooks/:id/enable': 'manager',
  'POST /control/webhooks/:id/rotate': 'manager',
  'POST /control/webhooks/:id/deliveries/:delivery/resend': 'manager',
  'GET /control/team': 'manager',
  'POST /control/team/grant': 'manager',
  'POST /control/team/invite': 'manager',
  'POST /control/team/:userId/role': 'manager',
  'POST /control/team/:userId/remove': 'manager',
  // Every tenant: superusers
  'GET /control/tenants': 'superuser',
  'POST /control/tenants': 'superuser',
  'GET /control/users': 'superuser',
  'POST /control/users': 'superuser',
  'GET /control/users/:username': 'superuser',
  'POST /control/users/:username/:action': 'superuser',
  'GET /control/schedules': 'superuser',
  'POST /control/schedules/:job': 'superuser',
  'POST /control/schedules/:job/run': 'superuser',
};

/** What a signed-in user is, for the check: their role on the current tenant, or none. */
export type Standing = TenantRole | 'superuser' | null;

const RANK: Readonly<Record<Exclude<Need, 'public'>, number>> = {
  signed_in: 0,
  viewer: 1,
  frontdesk: 2,
  manager: 3,
  superuser: 4,
};

export function routeKey(method: string, url: string): string {
  // Fastify answers HEAD with the GET route.
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}

/**
 * The least role a request needs: `unlisted` (the route has no line: refused to all),
 * `unknown_action` (its action is not one the route has: 404), or the need.
 */
export function needOf(
  key: string,
  values: { params?: unknown; query?: unknown; body?: unknown },
): Need | 'unlisted' | 'unknown_action' {
  const line = ROUTE_ROLES[key];
  if (line === undefined) return 'unlisted';
  if (typeof line === 'string') return line;
  const raw = (values[line.from] as Record<string, unknown> | undefined)?.[line.name];
  const action = Array.isArray(raw) ? raw[0] : raw;
  return typeof action === 'string' && Object.hasOwn(line.roles, action)
    ? (line.roles[action] as Need)
    : 'unknown_action';
}

/** Whether a user of `standing` may do what needs `need`. */
export function allows(standing: Standing, need: Need): boolean {
  if (need === 'public') return true;
  if (standing === 'superuser') return true;
  const rank = standing === null ? 0 : RANK[standing];
  return rank >= RANK[need];
}

/**
 * The least role a route (and its action) needs, for a page to say who could do what the user
 * cannot; undefined for a route or action with no line.
 */
export function leastRoleFor(method: string, url: string, action?: string): Need | undefined {
  const need = needOf(routeKey(method, url), { params: { action }, query: { action }, body: { action } });
  return need === 'unlisted' || need === 'unknown_action' ? undefined : need;
}

/** For pages: whether the user may use a route (hide a nav item, a button they could not use). */
export function mayUse(standing: Standing, method: string, url: string, action?: string): boolean {
  const key = routeKey(method, url);
  const line = ROUTE_ROLES[key];
  const need = needOf(key, { params: { action }, query: { action }, body: { action } });
  if (line === undefined || need === 'unlisted' || need === 'unknown_action') return false;
  return allows(standing, need);
}
