import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RouteOptions } from 'fastify';
import { SIGN_IN_LIMITS } from '../../src/control/index.ts';
import { SCHEDULED_JOBS } from '../../src/jobs/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { startPausableProxy } from '../helpers/pausable-proxy.ts';
import { redisMissing } from '../helpers/prerequisites.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const noRedis = await redisMissing(REDIS_URL);

/** Rows in the tables a back-office visit could write to. */
async function stateRows(t: TestApp): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of [
    'admin_sessions',
    'sign_in_throttle',
    'admin_audit',
    'admin_users',
    'tenants',
    'api_keys',
    'admin_two_factor',
    'admin_recovery_codes',
  ]) {
    const r = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    counts[table] = r.rows[0]?.n ?? -1;
  }
  return counts;
}

describe(`back office: no state before sign-in, CSRF on every form (${ENGINE})`, { timeout: 300_000 }, () => {
  let t: TestApp;
  const routes: { method: string; url: string }[] = [];
  before(async () => {
    t = await startTestApp({
      onRoute: (r: RouteOptions) => {
        for (const method of [r.method].flat())
          if (r.url.startsWith('/control') && method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS')
            routes.push({ method, url: r.url });
      },
    });
    await createUser(t, 'root');
    await createUser(t, 'other-root');
    await createUser(t, 'victim', t.tenant.tenantId);
  });
  after(() => t.close());

  test('200 anonymous visits of the sign-in page and of other pages write no row', async () => {
    const before = await stateRows(t);
    const pages = [
      '/control/sign-in',
      '/control/requests',
      '/control/',
      '/control/sign-in?expired=1',
      '/control/nowhere',
    ];
    for (let i = 0; i < 200; i++) {
      const r = await t.app.inject({
        method: 'GET',
        url: pages[i % pages.length] ?? '',
        remoteAddress: `10.9.${i % 250}.1`,
      });
      assert.ok([200, 303, 404].includes(r.statusCode), `${r.statusCode}`);
    }
    // With the cookie the page gave, too (a browser coming back).
    const c = new ControlClient(t, '10.9.255.1');
    for (let i = 0; i < 20; i++) await c.get(pages[i % pages.length] ?? '');
    assert.deepEqual(await stateRows(t), before);
  });

  test('the scheduled purge deletes expired sessions and throttle keys a day old, and nothing else', async () => {
    const live = await new ControlClient(t, '10.9.2.1').signedIn('root');
    await t.db.query(
      `INSERT INTO admin_sessions (id_hash, data, expires_at) VALUES ('gone', '{}', now() - interval '1 minute')`,
    );
    await t.db.query(
      `INSERT INTO sign_in_throttle (key, failures, last_failure_at) VALUES
         ('user:old', 3, now() - interval '25 hours'), ('user:recent', 3, now() - interval '1 hour')`,
    );
    const job = SCHEDULED_JOBS.purge_admin_sessions;
    assert.ok(job);
    const counts = await job(t.app.payreq, new Date(), 'Europe/Paris');
    assert.deepEqual(counts, { sessions: 1, throttle_keys: 1 });
    const keys = await t.db.query<{ key: string }>('SELECT key FROM sign_in_throttle ORDER BY key');
    assert.deepEqual(
      keys.rows.map((r) => r.key),
      ['user:recent'],
    );
    assert.equal((await live.get('/control/requests')).statusCode, 200, 'a live session is kept');
    await t.db.query('DELETE FROM sign_in_throttle');
  });

  test('a username holding control characters (a NUL) is a refused sign-in, counted, never a 500', async () => {
    const c = new ControlClient(t, '10.9.3.1');
    const r = await c.signIn('root\u0000\u001b[2J', 'whatever it is');
    assert.equal(r.statusCode, 401);
    const keys = await t.db.query<{ key: string }>("SELECT key FROM sign_in_throttle WHERE key LIKE 'user:root%'");
    assert.deepEqual(
      keys.rows.map((k) => k.key),
      ['user:root\\u0000\\u001b[2j@10.9.3.1'],
    );
    await t.db.query('DELETE FROM sign_in_throttle');
  });

  test('sign-in refuses a missing or foreign CSRF token, and writes nothing then', async () => {
    const before = await stateRows(t);
    const c = new ControlClient(t, '10.9.0.2');
    await c.get('/control/sign-in');
    const missing = await c.post('/control/sign-in', {
      _csrf: '',
      username: 'root',
      password: 'correct horse battery staple',
    });
    assert.equal(missing.statusCode, 403);
    const stranger = new ControlClient(t, '10.9.0.3');
    await stranger.get('/control/sign-in');
    const foreign = await c.post('/control/sign-in', {
      _csrf: stranger.csrf,
      username: 'root',
      password: 'correct horse battery staple',
    });
    assert.equal(foreign.statusCode, 403);
    assert.match(foreign.body, /This form has expired/);
    const bare = await t.app.inject({
      method: 'POST',
      url: '/control/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(stranger.csrf)}&username=root&password=x`,
    });
    assert.equal(bare.statusCode, 403, 'a token without its cookie');
    assert.deepEqual(await stateRows(t), before);
  });

  test('every state-changing back-office route refuses a missing or a foreign CSRF token', async () => {
    const { uuid } = await createRequest(t, { reservation_ref: 'CSRF-1' });
    const key = await t.newKey(t.tenant.tenantId);
    const values: Record<string, string> = { id: uuid, username: 'victim', prefix: key.prefix, job: 'purge_events' };
    const actions: Record<string, string> = { users: 'disable', keys: 'revoke', requests: 'cancel' };
    const fill = (url: string) =>
      url
        .replace('/control', '')
        .replace(/:(\w+)/g, (_m, name: string) =>
          name === 'action' ? (actions[url.split('/')[2] ?? ''] ?? 'x') : (values[name] ?? 'x'),
        );
    const root = await new ControlClient(t, '10.9.1.1').signedIn('root');
    await root.get('/control/requests');
    const other = await new ControlClient(t, '10.9.1.2').signedIn('other-root');
    await other.get('/control/requests');
    // `action`: the bulk form's (its role is read from it, and an action it lacks is a 404 first).
    const fields = {
      tenant: t.tenant.tenantId,
      username: 'newcomer',
      password: 'a new password 1',
      name: 'New hotel',
      action: 'capture',
    };

    assert.ok(routes.length >= 10, `found ${routes.length} routes`);
    // The second step of the sign-in and "Your account" are among them (a table that lost them
    // would pass without checking them).
    for (const path of [
      '/control/sign-in/code',
      '/control/sign-in/recovery',
      '/control/account/password',
      '/control/account/two-factor/start',
      '/control/account/two-factor/confirm',
      '/control/account/two-factor/recovery-codes',
      '/control/account/two-factor/disable',
      '/control/account/sessions/end',
      '/control/account/sessions/end-others',
      '/control/users/:username/:action',
    ])
      assert.ok(
        routes.some((r) => r.url === path),
        `${path} is checked`,
      );
    const before = await stateRows(t);
    const seen: string[] = [];
    for (const route of routes) {
      const url = `/control${fill(route.url)}`;
      for (const [kind, token] of [
        ['missing', ''],
        ['foreign', other.csrf],
      ] as const) {
        let r = await root.post(url, { ...fields, _csrf: token });
        // The logo upload reads multipart forms only.
        if (r.statusCode === 415) r = await root.postMultipart(url, { ...fields, _csrf: token });
        assert.equal(r.statusCode, 403, `${route.method} ${url} with a ${kind} token: ${r.statusCode}`);
        assert.match(r.body, /This form has expired/);
        seen.push(`${kind} ${url}`);
      }
    }
    assert.deepEqual(await stateRows(t), before, 'nothing changed');
    assert.equal((await root.get('/control/requests')).statusCode, 200, 'the sign-out route did not sign out');
    const request = await t.call({ method: 'GET', url: `/api/payment-requests/${uuid}` });
    assert.equal(request.json().status, 'NOT_INITIATED');
  });
});

describe(`back office sign-in throttling holds with Redis gone (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let proxy: Awaited<ReturnType<typeof startPausableProxy>>;
  before(async () => {
    if (noRedis) return;
    const { hostname, port } = new URL(REDIS_URL);
    proxy = await startPausableProxy(hostname, Number(port || 6379));
    t = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
    await createUser(t, 'guarded');
  });
  after(async () => {
    await t?.close();
  });

  test('with Redis unreachable, guesses at one username are still slowed, per address', {
    skip: noRedis,
  }, async () => {
    // Redis goes away after the start: every connection cut, nothing listening any more.
    await proxy.close();
    const codes: number[] = [];
    for (let i = 0; i < SIGN_IN_LIMITS.freePerUsername + 3; i++)
      codes.push((await new ControlClient(t, '10.8.0.1').signIn('guarded', 'a wrong password')).statusCode);
    assert.deepEqual(codes, [...Array(SIGN_IN_LIMITS.freePerUsername).fill(401), 429, 429, 429]);
    const address = new ControlClient(t, '10.8.1.1');
    let last = 0;
    for (let i = 0; i < SIGN_IN_LIMITS.freePerAddress + 1; i++)
      last = (await address.signIn(`nobody${i}`, 'a wrong password')).statusCode;
    assert.equal(last, 429, 'and one address guessing many usernames');
  });
});
