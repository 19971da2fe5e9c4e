import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  auditResponses,
  countRows,
  createBody,
  ENGINE,
  startTestApp,
  type TenantWithKey,
  type TestApp,
} from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

describe(`create rate limit (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    // An instance default of 2 per minute, so the tenant settings below visibly override it.
    t = await startTestApp({ env: { CREATE_RATE_LIMIT: '2' } });
  });
  after(() => t.close());

  const create = (tenant: TenantWithKey, ref = 'RL') =>
    t.call({ method: 'POST', url: BASE, payload: createBody({ reservation_ref: ref }), tenant });

  test('a tenant limit of 3: three creates, then a 429 with Retry-After, RateLimit-* and {error}; nothing stored', async () => {
    const tenant = await t.newTenant('Limited hotel', { createRateLimit: 3 });
    const ok = [await create(tenant), await create(tenant), await create(tenant)];
    assert.deepEqual(
      ok.map((r) => r.statusCode),
      [201, 201, 201],
    );
    assert.equal(ok[0]?.headers['ratelimit-limit'], '3');
    assert.equal(ok[2]?.headers['ratelimit-remaining'], '0');
    const before = await countRows(t.db, tenant.tenantId);
    const limited = await create(tenant);
    assert.equal(limited.statusCode, 429);
    assert.match(String(limited.headers['content-type']), /^application\/json/);
    assert.equal(typeof limited.json().error, 'string');
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${limited.headers['retry-after']}`);
    assert.equal(limited.headers['ratelimit-limit'], '3');
    assert.equal(limited.headers['ratelimit-remaining'], '0');
    assert.ok(Number(limited.headers['ratelimit-reset']) > 0);
    assert.ok(limited.headers['x-request-id']);
    assert.equal(await countRows(t.db, tenant.tenantId), before);
  });

  test('the limit is per key: another tenant, and the read routes, are not affected', async () => {
    const busy = await t.newTenant('Busy hotel', { createRateLimit: 1 });
    assert.equal((await create(busy)).statusCode, 201);
    assert.equal((await create(busy)).statusCode, 429);
    const quiet = await t.newTenant('Quiet hotel', { createRateLimit: 1 });
    assert.equal((await create(quiet)).statusCode, 201);
    // Reads are not rate limited by the create limit.
    for (let i = 0; i < 5; i++)
      assert.equal((await t.call({ method: 'GET', url: BASE, tenant: busy })).statusCode, 200);
  });

  test('a tenant without its own limit gets the instance default (here 2)', async () => {
    const tenant = await t.newTenant('Default hotel');
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await create(tenant)).statusCode);
    assert.deepEqual(codes, [201, 201, 429]);
  });

  test('a tenant limit of 0 means unlimited, above the instance default', async () => {
    const tenant = await t.newTenant('Unlimited hotel', { createRateLimit: 0 });
    const before = await countRows(t.db, tenant.tenantId);
    const rs = await Promise.all(Array.from({ length: 12 }, (_, i) => create(tenant, `UNL-${i}`)));
    assert.ok(
      rs.every((r) => r.statusCode === 201),
      rs.map((r) => r.statusCode).join(','),
    );
    assert.equal(await countRows(t.db, tenant.tenantId), before + 12);
  });

  test('concurrent creates never exceed the limit', async () => {
    const tenant = await t.newTenant('Racing hotel', { createRateLimit: 5 });
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => create(tenant, `RACE-${i}`)));
    const codes = rs.map((r) => r.statusCode);
    assert.equal(codes.filter((s) => s === 201).length, 5, codes.join(','));
    assert.equal(codes.filter((s) => s === 429).length, 15);
    assert.equal(await countRows(t.db, tenant.tenantId), 5);
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
