import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { redisMissing } from '../helpers/prerequisites.ts';
import { createBody, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

// With REDIS_URL, every instance counts against the same limit. CI starts Redis.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

// Where no Redis answers, the test is reported skipped with the reason (and nothing is started).
const skip = await redisMissing(REDIS_URL);

describe(`create rate limit shared through Redis by two instances (${ENGINE})`, () => {
  let first: TestApp;
  let second: FastifyInstance;
  before(async () => {
    if (skip) return;
    first = await startTestApp({ env: { REDIS_URL } });
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: first.testDb.url, AUTH_CACHE_MS: '0', REDIS_URL });
    second = await buildApp({ config, db: first.db });
    await second.ready();
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });

  test('a limit of 3 per minute holds across instances: the fourth create, wherever it lands, is a 429', {
    skip,
  }, async () => {
    const tenant = await first.newTenant('Busy hotel', { createRateLimit: 3 });
    const post = (app: FastifyInstance) =>
      app.inject({ method: 'POST', url: '/api/payment-requests/', headers: tenant.headers, payload: createBody() });
    const codes = [await post(first.app), await post(second), await post(first.app)].map((r) => r.statusCode);
    assert.deepEqual(codes, [201, 201, 201]);
    const limited = await post(second);
    assert.equal(limited.statusCode, 429);
    assert.equal(typeof limited.json().error, 'string');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    const rows = await first.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM payment_requests WHERE tenant_id = $1',
      [tenant.tenantId],
    );
    assert.equal(rows.rows[0]?.n, 3, 'the refused create wrote nothing');
  });
});
