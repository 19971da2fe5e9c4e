import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type PausableProxy, startPausableProxy } from '../helpers/pausable-proxy.ts';
import { redisMissing } from '../helpers/prerequisites.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createBody, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const skip = await redisMissing(REDIS_URL);

/** Far above the bound (REDIS_TIMEOUT_MS 300 ms): only a wait with no bound reaches it. */
const NO_ANSWER_MS = 10_000;

/** The request's answer, or a failure if none came before NO_ANSWER_MS (a wait with no bound). */
async function answered<T>(what: string, request: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer after ${NO_ANSWER_MS} ms`)), NO_ANSWER_MS);
  });
  try {
    return await Promise.race([request, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

// A Redis that takes connections and never answers (a frozen host, a partition: bytes held,
// sockets open) must not freeze payreq. Every Redis command is bounded by REDIS_TIMEOUT_MS; the
// rate limits it serves fail open; /readyz names Redis and what its absence means.
describe(`a frozen Redis freezes nothing (${ENGINE})`, { timeout: 120_000 }, () => {
  let proxy: PausableProxy;
  let t: TestApp;
  before(async () => {
    if (skip) return;
    const { hostname, port } = new URL(REDIS_URL);
    proxy = await startPausableProxy(hostname, Number(port || 6379));
    t = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_TIMEOUT_MS: '300' } });
  });
  after(async () => {
    proxy?.resume();
    await t?.close();
    await proxy?.close();
  });

  const create = () =>
    t.app.inject({ method: 'POST', url: '/api/payment-requests/', headers: t.tenant.headers, payload: createBody() });
  const ready = async () => (await t.app.inject({ method: 'GET', url: '/readyz' })).json();

  test('creates, the guest page and IPNs are answered while Redis holds every byte; /readyz says so', {
    skip,
  }, async () => {
    assert.equal((await create()).statusCode, 201);
    assert.equal((await ready()).checks.redis, 'ok');

    proxy.pause();
    try {
      const created = await answered('a create', create());
      assert.equal(created.statusCode, 201, created.body);
      const { uuid } = created.json() as { uuid: string };
      const page = await answered('the guest page', t.app.inject({ method: 'GET', url: `/payment/${uuid}/` }));
      assert.equal(page.statusCode, 200);
      const ipn = await answered(
        'an IPN',
        t.app.inject({
          method: 'POST',
          url: '/ipn/sandbox/',
          headers: { 'content-type': 'application/json' },
          payload: '{"event_id":"evt_x"}',
        }),
      );
      assert.ok(ipn.statusCode < 500, `${ipn.statusCode} ${ipn.body}`);
      const readiness = await answered('/readyz', t.app.inject({ method: 'GET', url: '/readyz' }));
      assert.equal(readiness.statusCode, 200, 'still ready: rate limits fail open');
      assert.equal(readiness.json().checks.redis, 'unavailable');
      assert.match(readiness.json().degraded?.redis ?? '', /rate limits are not enforced/);
    } finally {
      proxy.resume();
    }
    await eventually(async () => ((await ready()).checks.redis === 'ok' ? true : undefined), 'redis back');
    assert.equal((await create()).statusCode, 201);
  });
});
