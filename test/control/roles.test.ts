import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { allows, needOf, ROUTE_ROLES } from '../../src/control/shell/route-roles.ts';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

/**
 * Roles, route by route: every route registered under /control/ has a line in route-roles.ts
 * (a new route without one fails here), the contract holds for the routes it names, and
 * each role is let through or refused with a 403 naming the role needed, audited, over HTTP on
 * the real app.
 */

type Who = 'none' | 'viewer' | 'frontdesk' | 'manager' | 'superuser';
const WHO: readonly Who[] = ['none', 'viewer', 'frontdesk', 'manager', 'superuser'];
/** The test's own order of roles (not the source's): who reaches a route that needs `need`. */
const RANK: Record<string, number> = { signed_in: 0, viewer: 1, frontdesk: 2, manager: 3, superuser: 4 };
const RANK_OF: Record<Who, number> = { none: 0, viewer: 1, frontdesk: 2, manager: 3, superuser: 4 };
const ROLE_WORD: Record<string, string> = {
  viewer: 'Viewer',
  frontdesk: 'Front desk',
  manager: 'Manager',
  superuser: 'Superuser',
};

/** What the issue and docs/back-office.md say, written out again: the source must agree. */
const CONTRACT: Record<string, string> = {
  'GET /control/requests': 'viewer',
  'GET /control/requests/:id': 'viewer',
  'GET /control/requests/new': 'frontdesk',
  'POST /control/requests/new': 'frontdesk',
  'POST /control/requests/:id/:action resend': 'frontdesk',
  'POST /control/requests/:id/:action cancel': 'frontdesk',
  'POST /control/requests/:id/:action capture': 'frontdesk',
  'POST /control/requests/:id/:action release': 'frontdesk',
  'POST /control/requests/:id/:action refund': 'manager',
  'GET /control/requests/:id/confirm refund': 'manager',
  'GET /control/requests/:id/confirm capture': 'frontdesk',
  'POST /control/bulk capture': 'frontdesk',
  'POST /control/bulk release': 'frontdesk',
  'POST /control/bulk cancel': 'frontdesk',
  'POST /control/bulk refund': 'manager',
  'GET /control/books': 'manager',
  'GET /control/payouts': 'manager',
  'POST /control/payouts/import': 'manager',
  'GET /control/keys': 'manager',
  'POST /control/keys': 'manager',
  'GET /control/settings': 'manager',
  'POST /control/settings': 'manager',
  'GET /control/audit': 'manager',
  'GET /control/webhooks': 'manager',
  'POST /control/webhooks/:id/rotate': 'manager',
  'GET /control/requests/export': 'viewer',
  'GET /control/team': 'manager',
  'POST /control/team/grant': 'manager',
  'GET /control/tenants': 'superuser',
  'GET /control/users': 'superuser',
  'GET /control/schedules': 'superuser',
};

/** The words of the role check's 403 page (en), and only of it. */
const ROLE_REFUSAL = /This needs the role|No role may open this page/;

/** A request to make for a route: params filled with values that exist nowhere (nothing changes). */
interface Case {
  key: string;
  method: 'GET' | 'POST';
  url: string;
  fields: Record<string, string>;
  need: string;
}

function casesOf(key: string): Case[] {
  const line = ROUTE_ROLES[key];
  const [method, pattern] = key.split(' ') as ['GET' | 'POST', string];
  const fill = (action?: string) =>
    pattern
      .replace(':id', randomUUID())
      .replace(':batch', randomUUID())
      .replace(':delivery', randomUUID())
      .replace(':userId', randomUUID())
      .replace(':prefix', 'nokey000')
      .replace(':username', 'nobody-here')
      .replace(':job', 'no_such_job')
      .replace(':language', 'en')
      .replace(':action', action ?? 'disable');
  if (line === undefined) return [];
  if (typeof line === 'string') return [{ key, method, url: fill(), fields: {}, need: line }];
  return Object.entries(line.roles).map(([action, need]) => ({
    key: `${key} ${action}`,
    method,
    url: line.from === 'query' ? `${fill()}?action=${action}` : fill(action),
    fields: line.from === 'body' ? { action, batch: randomUUID() } : ({} as Record<string, string>),
    need,
  }));
}

describe(`roles on every back-office route (${ENGINE})`, { timeout: 300_000 }, () => {
  let t: TestApp;
  /** Every route the app registers under /control, as `METHOD /path` (Fastify's onRoute). */
  const controlRoutes: string[] = [];
  const clients = {} as Record<Who, ControlClient>;
  before(async () => {
    t = await startTestApp({
      onRoute: (route) => {
        if (!route.url.startsWith('/control')) return;
        for (const m of [route.method].flat()) if (m !== 'HEAD') controlRoutes.push(`${m} ${route.url}`);
      },
    });
    const other = await t.newTenant('Hôtel Voisin');
    await createUser(t, 'root');
    for (const role of ['viewer', 'frontdesk', 'manager'] as const) {
      // Each also holds another role elsewhere: only the current tenant's counts.
      await createUser(t, role, [
        { tenantId: t.tenant.tenantId, role },
        { tenantId: other.tenantId, role: role === 'manager' ? 'viewer' : 'manager' },
      ]);
    }
    // A user whose only role was removed: signed in, but no role anywhere (and not a superuser).
    const id = await createUser(t, 'nobody', t.tenant.tenantId, 'viewer');
    await t.repos.adminUsers.setRole(id, t.tenant.tenantId, null);
    let n = 0;
    for (const who of WHO) {
      const c = new ControlClient(t, `10.7.0.${++n}`);
      const signedIn = await c.signIn(who === 'superuser' ? 'root' : who === 'none' ? 'nobody' : who);
      assert.equal(signedIn.statusCode, 303, signedIn.body);
      await c.get('/control/account');
      // Their first tenant by name is the other one: work on this one (the header's switch).
      if (who !== 'none' && who !== 'superuser') {
        const switched = await c.post('/control/tenant', { tenant: t.tenant.tenantId });
        assert.equal(switched.statusCode, 303, switched.body);
        await c.get('/control/account');
      }
      clients[who] = c;
    }
  });
  after(() => t.close());

  test('every registered route has a line in the role table, and every line a route', () => {
    const registered = new Set(controlRoutes);
    const missing = [...registered].filter((r) => !(r in ROUTE_ROLES));
    assert.deepEqual(missing, [], 'routes without a role: add a line to src/control/shell/route-roles.ts');
    const stale = Object.keys(ROUTE_ROLES).filter((k) => !registered.has(k));
    assert.deepEqual(stale, [], 'lines of the role table with no route');
  });

  test('a route with no line is refused to everyone, superusers too (deny by default)', async () => {
    assert.equal(needOf('GET /control/not-in-the-table', {}), 'unlisted');
    assert.equal(needOf('POST /control/bulk', { body: { action: 'explode' } }), 'unknown_action');
    // Over HTTP: a registered route whose line is taken out of the table (the running app reads
    // the same table) is refused, audited, to the superuser as to anyone.
    const table = ROUTE_ROLES as Record<string, unknown>;
    const line = table['GET /control/books'];
    delete table['GET /control/books'];
    try {
      for (const who of ['superuser', 'manager'] as const) {
        const r = await clients[who].get('/control/books');
        assert.equal(r.statusCode, 403, who);
        assert.match(r.body, /No role may open this page\./);
      }
      const last = await t.db.query<{ detail: Record<string, unknown> }>(
        `SELECT detail FROM admin_audit WHERE action = 'access_refused' ORDER BY id DESC LIMIT 1`,
      );
      assert.equal(last.rows[0]?.detail.need, 'unlisted');
    } finally {
      table['GET /control/books'] = line;
    }
    assert.equal((await clients.superuser.get('/control/books')).statusCode, 200);
  });

  test('the role table says what the issue says', () => {
    for (const [key, role] of Object.entries(CONTRACT)) {
      const [method, path, action] = key.split(' ');
      const need = needOf(`${method} ${path}`, {
        params: { action },
        query: { action },
        body: { action },
      });
      assert.equal(need, role, key);
    }
    // The source's check agrees with this file's order of roles.
    for (const who of WHO)
      for (const need of Object.keys(RANK))
        assert.equal(
          allows(who === 'none' ? null : who, need as 'viewer'),
          who === 'superuser' || RANK_OF[who] >= (RANK[need] ?? 99),
          `${who} / ${need}`,
        );
  });

  test('each role on each route: through, or a 403 naming the role needed, audited', async () => {
    const keys = controlRoutes.filter((k) => ROUTE_ROLES[k] !== 'public');
    // Signing out last: it ends the session the other cases use.
    keys.sort((a, b) => Number(a === 'POST /control/sign-out') - Number(b === 'POST /control/sign-out'));
    const cases = keys.flatMap(casesOf);
    assert.ok(cases.length > 50, `${cases.length} cases`);
    let refusals = 0;
    const before = await countRefusals();
    for (const c of cases) {
      for (const who of WHO) {
        const client = clients[who];
        const fields = c.key === 'POST /control/tenant' ? { tenant: t.tenant.tenantId } : c.fields;
        const r = c.method === 'GET' ? await client.get(c.url) : await client.post(c.url, fields);
        const through = who === 'superuser' || RANK_OF[who] >= (RANK[c.need] ?? 99);
        const label = `${who} ${c.key} (${c.url}) → ${r.statusCode}`;
        if (through) {
          assert.ok(r.statusCode < 500, `${label}: ${r.body.slice(0, 300)}`);
          // A handler may refuse for its own reasons (a wrong password, no second factor): never the role's.
          assert.doesNotMatch(r.body, ROLE_REFUSAL, label);
          // Still signed in (a dead session would let every case through as a redirect).
          if (c.key !== 'POST /control/sign-out')
            assert.doesNotMatch(String(r.headers.location ?? ''), /sign-in/, label);
        } else {
          refusals++;
          assert.equal(r.statusCode, 403, label);
          assert.match(r.body, new RegExp(`This needs the role “${ROLE_WORD[c.need]}”`), label);
          if (who === 'none') assert.match(r.body, /You have no role at any hotel yet/, label);
          else assert.match(r.body, new RegExp(`Your role at Hôtel des Tests: ${ROLE_WORD[who]}\\.`), label);
        }
      }
    }
    assert.equal((await countRefusals()) - before, refusals, 'every refusal is in the audit');
    const last = await t.db.query<{ username: string; detail: Record<string, unknown>; tenant_id: string }>(
      `SELECT username, detail, tenant_id FROM admin_audit WHERE action = 'access_refused' ORDER BY id DESC LIMIT 1`,
    );
    assert.ok(last.rows[0]?.detail.need, 'the need is recorded');
    assert.ok(last.rows[0]?.detail.route, 'the route is recorded');
  });

  async function countRefusals(): Promise<number> {
    const r = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM admin_audit WHERE action = 'access_refused' AND outcome = 'refused'`,
    );
    return r.rows[0]?.n ?? 0;
  }
});
