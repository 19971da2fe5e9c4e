import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { redisMissing } from '../helpers/prerequisites.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createBody, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const skip = await redisMissing(REDIS_URL);

/**
 * A host that takes connections and never answers, until told to pass them to the real Redis:
 * a frozen Redis at start, then one that comes back.
 */
async function frozenThenRedis(target: URL) {
  let thawed = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (!thawed) return;
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    /** New connections reach Redis; the frozen ones are cut, so the client connects again. */
    thaw() {
      thawed = true;
      for (const s of sockets) s.destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

// A restart during a Redis outage must not become a payreq outage: the service starts, serves
// with its rate limits failing open, says so on /readyz, and uses Redis once it answers.
describe(`started while Redis never answers (${ENGINE})`, { timeout: 120_000 }, () => {
  let frozen: Awaited<ReturnType<typeof frozenThenRedis>>;
  let t: TestApp;
  let startedInMs = 0;
  before(async () => {
    if (skip) return;
    frozen = await frozenThenRedis(new URL(REDIS_URL));
    const t0 = Date.now();
    t = await startTestApp({
      env: { REDIS_URL: `redis://127.0.0.1:${frozen.port}`, REDIS_TIMEOUT_MS: '300', CREATE_RATE_LIMIT: '2' },
    });
    startedInMs = Date.now() - t0;
  });
  after(async () => {
    await t?.close();
    await frozen?.close();
  });

  const create = () =>
    t.app.inject({ method: 'POST', url: '/api/payment-requests/', headers: t.tenant.headers, payload: createBody() });
  const ready = async () => (await t.app.inject({ method: 'GET', url: '/readyz' })).json();

  test('it starts and serves a create at once, rate limits failing open, /readyz degraded; then uses Redis', {
    skip,
  }, async () => {
    assert.ok(startedInMs < 15_000, `started in ${startedInMs} ms`);
    // More creates than the limit allows: nothing counts them while Redis is away.
    for (let i = 0; i < 4; i++) assert.equal((await create()).statusCode, 201);
    const readiness = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(readiness.statusCode, 200, 'ready: only the rate limits are missing');
    assert.equal(readiness.json().checks.redis, 'unavailable');
    assert.match(readiness.json().degraded?.redis ?? '', /rate limits are not enforced/);

    frozen.thaw();
    await eventually(async () => ((await ready()).checks.redis === 'ok' ? true : undefined), 'redis answers');
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await create()).statusCode);
    assert.ok(codes.includes(429), `the limit is enforced again through Redis: ${codes.join(', ')}`);
  });
});
