import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import {
  auditResponses,
  countRows,
  createBody,
  createRequest,
  ENGINE,
  startTestApp,
  type TenantWithKey,
  type TestApp,
} from '../helpers/test-app.ts';

const LIST = '/api/payment-requests/';

function assertAuthError(r: { statusCode: number; json(): unknown }, status: number, text: string) {
  assert.equal(r.statusCode, status);
  const body = r.json() as Record<string, unknown>;
  // Both keys with the same text, nothing else but the optional stable code.
  assert.equal(body.detail, text);
  assert.equal(body.error, text);
  assert.deepEqual(
    Object.keys(body)
      .filter((k) => k !== 'code')
      .sort(),
    ['detail', 'error'],
  );
}

describe(`API key authentication (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('a valid key reaches the API', async () => {
    const r = await t.call({ method: 'GET', url: LIST });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), []);
  });

  test('a missing key is 401 Unauthorized on every route, and creates nothing', async () => {
    const id = (await createRequest(t)).uuid;
    const before = await countRows(t.db);
    const routes: [string, string][] = [
      ['POST', LIST],
      ['GET', LIST],
      ['GET', `${LIST}${id}/`],
      ['GET', `${LIST}statuses/?refs=RES-1001`],
      ['POST', `${LIST}${id}/capture/`],
      ['POST', `${LIST}${id}/release/`],
      ['POST', `${LIST}${id}/cancel/`],
      ['DELETE', `${LIST}${id}/`],
    ];
    for (const [method, url] of routes) {
      const r = await t.call({
        method: method as 'GET',
        url,
        tenant: null,
        ...(method === 'POST' && url === LIST ? { payload: createBody() } : {}),
      });
      assertAuthError(r, 401, 'Unauthorized');
    }
    assert.equal(await countRows(t.db), before);
    // Nothing above moved the request.
    const d = await t.call({ method: 'GET', url: `${LIST}${id}/` });
    assert.equal(d.json().status, 'NOT_INITIATED');
  });

  test('a malformed key is 401', async () => {
    const good = t.tenant.key;
    const [prefix, secret] = good.split('.') as [string, string];
    const malformed = [
      '',
      'nonsense',
      prefix,
      `${prefix}.`,
      `.${secret}`,
      `${prefix}${secret}`,
      `${prefix}.${secret}x`,
      `${prefix}.${secret.slice(1)}`,
      `${prefix.slice(1)}.${secret}`,
      `${prefix}.${secret.slice(1)}0`, // 0 is outside the key alphabet
      ` ${good}`,
      `Bearer ${good}`,
    ];
    for (const key of malformed) {
      const r = await t.call({ method: 'GET', url: LIST, tenant: null, headers: { 'x-api-key': key } });
      assertAuthError(r, 401, 'Unauthorized');
    }
  });

  test('an unknown prefix is 401', async () => {
    const [prefix, secret] = t.tenant.key.split('.') as [string, string];
    const other = prefix === 'ZZZZZZZZ' ? 'YYYYYYYY' : 'ZZZZZZZZ';
    const r = await t.call({ method: 'GET', url: LIST, tenant: null, headers: { 'x-api-key': `${other}.${secret}` } });
    assertAuthError(r, 401, 'Unauthorized');
  });

  test('a known prefix with the wrong secret is 401', async () => {
    const [prefix, secret] = t.tenant.key.split('.') as [string, string];
    const flipped = (secret[0] === 'A' ? 'B' : 'A') + secret.slice(1);
    const r = await t.call({
      method: 'GET',
      url: LIST,
      tenant: null,
      headers: { 'x-api-key': `${prefix}.${flipped}` },
    });
    assertAuthError(r, 401, 'Unauthorized');
  });

  test('a disabled key is 401 Unauthorized', async () => {
    const k = await t.newKey(t.tenant.tenantId);
    assert.equal((await t.call({ method: 'GET', url: LIST, tenant: k })).statusCode, 200);
    await t.repos.apiKeys.setStatus(k.prefix, 'disabled');
    assertAuthError(await t.call({ method: 'GET', url: LIST, tenant: k }), 401, 'Unauthorized');
  });

  test('a revoked key is 403 "API key revoked", and creates nothing', async () => {
    const k = await t.newKey(t.tenant.tenantId);
    assert.equal((await t.call({ method: 'GET', url: LIST, tenant: k })).statusCode, 200);
    await t.repos.apiKeys.setStatus(k.prefix, 'revoked');
    assertAuthError(await t.call({ method: 'GET', url: LIST, tenant: k }), 403, 'API key revoked');
    const before = await countRows(t.db);
    assertAuthError(
      await t.call({ method: 'POST', url: LIST, tenant: k, payload: createBody() }),
      403,
      'API key revoked',
    );
    assert.equal(await countRows(t.db), before);
  });

  test('a revoked key with a wrong secret is still 401: the status is only told to the key holder', async () => {
    const k = await t.newKey(t.tenant.tenantId);
    await t.repos.apiKeys.setStatus(k.prefix, 'revoked');
    const [prefix, secret] = k.key.split('.') as [string, string];
    const flipped = (secret[0] === 'A' ? 'B' : 'A') + secret.slice(1);
    const r = await t.call({
      method: 'GET',
      url: LIST,
      tenant: null,
      headers: { 'x-api-key': `${prefix}.${flipped}` },
    });
    assertAuthError(r, 401, 'Unauthorized');
  });

  test('an expired key is 403 "API key expired"; one expiring later works', async () => {
    const expired = await t.newKey(t.tenant.tenantId, { expiresAt: new Date(Date.now() - 1000) });
    assertAuthError(await t.call({ method: 'GET', url: LIST, tenant: expired }), 403, 'API key expired');
    const valid = await t.newKey(t.tenant.tenantId, { expiresAt: new Date(Date.now() + 3_600_000) });
    assert.equal((await t.call({ method: 'GET', url: LIST, tenant: valid })).statusCode, 200);
  });

  test('a key reads its own tenant only', async () => {
    const other = await t.newTenant('Other hotel');
    await createRequest(t, { reservation_ref: 'MINE' });
    const r = await t.call({ method: 'GET', url: LIST, tenant: other });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), []);
  });

  describe('last_used_at', () => {
    let k: TenantWithKey;
    let touches = 0;
    let restore: () => void;
    before(async () => {
      k = await t.newKey(t.tenant.tenantId);
      // Spy on the real database: count the statements that write last_used_at for any key.
      const original = t.db.query.bind(t.db);
      t.db.query = ((sql: string, params?: readonly unknown[]) => {
        if (/UPDATE api_keys SET last_used_at/.test(sql)) touches++;
        return original(sql, params);
      }) as typeof t.db.query;
      restore = () => {
        t.db.query = original as typeof t.db.query;
      };
    });
    after(() => restore());

    const lastUsed = async (prefix: string) => (await t.repos.apiKeys.find(prefix))?.last_used_at ?? null;
    async function waitForLastUsed(prefix: string): Promise<Date> {
      // The write is made off the request path: poll the database for it, briefly.
      for (let i = 0; i < 200; i++) {
        const v = await lastUsed(prefix);
        if (v) return v;
        await new Promise((r) => setImmediate(r));
      }
      assert.fail('last_used_at was never written');
    }

    test('is set by the first request', async () => {
      assert.equal(await lastUsed(k.prefix), null);
      const startedAt = Date.now();
      assert.equal((await t.call({ method: 'GET', url: LIST, tenant: k })).statusCode, 200);
      const v = await waitForLastUsed(k.prefix);
      // Written by the database clock: within a few seconds of the request.
      assert.ok(Math.abs(v.getTime() - startedAt) < 10_000, `last_used_at ${v.toISOString()}`);
    });

    test('is written at most once a minute, not on every request', async () => {
      const first = await waitForLastUsed(k.prefix);
      const touchesBefore = touches;
      for (let i = 0; i < 10; i++) {
        assert.equal((await t.call({ method: 'GET', url: LIST, tenant: k })).statusCode, 200);
      }
      await Promise.all(Array.from({ length: 10 }, () => t.call({ method: 'GET', url: LIST, tenant: k })));
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      assert.equal(touches - touchesBefore, 0, 'no write within the minute');
      assert.deepEqual(await lastUsed(k.prefix), first);
    });

    test('a second instance on the same database does not rewrite it within the minute either', async () => {
      const first = await waitForLastUsed(k.prefix);
      const second = await buildApp({ config: t.config, db: t.db });
      try {
        await second.ready();
        const r = await second.inject({ method: 'GET', url: LIST, headers: k.headers });
        assert.equal(r.statusCode, 200);
        assert.ok(r.headers['x-request-id']);
        for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
        assert.deepEqual(await lastUsed(k.prefix), first);
      } finally {
        await second.close();
      }
    });

    test('an old last_used_at is refreshed by the next request of a fresh instance', async () => {
      await t.db.query("UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE prefix = $1", [k.prefix]);
      const stale = await lastUsed(k.prefix);
      const third = await buildApp({ config: t.config, db: t.db });
      try {
        await third.ready();
        assert.equal((await third.inject({ method: 'GET', url: LIST, headers: k.headers })).statusCode, 200);
        // Written off the request path: awaited until it lands (a loaded host can take a while).
        const v = await eventually(async () => {
          const now = await lastUsed(k.prefix);
          return now && now.getTime() !== stale?.getTime() ? now : undefined;
        }, 'last_used_at written');
        assert.ok(stale && v.getTime() > stale.getTime() + 60_000, 'last_used_at was refreshed');
      } finally {
        await third.close();
      }
    });
  });

  test('with the key cache on, a revocation made through this process (forget) applies at once', async () => {
    const cached = await startTestApp({ env: { AUTH_CACHE_MS: '60000' } });
    try {
      const k = await cached.newKey(cached.tenant.tenantId);
      assert.equal((await cached.call({ method: 'GET', url: LIST, tenant: k })).statusCode, 200);
      await cached.repos.apiKeys.setStatus(k.prefix, 'revoked');
      cached.app.payreq.auth.forget(k.prefix);
      assertAuthError(await cached.call({ method: 'GET', url: LIST, tenant: k }), 403, 'API key revoked');
      // The other keys of the cache are unaffected.
      assert.equal((await cached.call({ method: 'GET', url: LIST })).statusCode, 200);
      auditResponses(cached);
    } finally {
      await cached.close();
    }
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
