import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createPayreqClient, verifyWebhookSignature } from '../../clients/typescript/src/index.ts';
import { signatureHeader } from '../../src/webhooks/index.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { ENGINE } from '../helpers/test-app.ts';

/**
 * A loopback proxy in front of the real service: it counts what reaches it and, while
 * `failNext` > 0, answers that status itself instead of forwarding (a service in trouble).
 */
async function startProxy(target: string) {
  const state = { seen: [] as { method: string; url: string; key: string | undefined }[], failNext: 0, failWith: 503 };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    state.seen.push({ method: req.method ?? '', url: req.url ?? '', key: req.headers['idempotency-key'] as string });
    if (state.failNext > 0) {
      state.failNext--;
      res.writeHead(state.failWith, { 'content-type': 'application/json' }).end('{"error":"trouble"}');
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
    ) as Record<string, string>;
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const r = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
    const out: Record<string, string> = {};
    r.headers.forEach((v, k) => {
      if (!['content-encoding', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
    });
    res.writeHead(r.status, out).end(Buffer.from(await r.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe(`typed TypeScript client against the real service (${ENGINE})`, () => {
  let t: ListeningApp;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  const waits: number[] = [];
  before(async () => {
    t = await startListeningApp();
    proxy = await startProxy(t.baseUrl);
  });
  after(async () => {
    await proxy.close();
    await t.close();
  });

  const client = (apiKey = t.tenant.key) =>
    createPayreqClient({
      baseUrl: proxy.url,
      apiKey,
      baseDelayMs: 10,
      random: () => 1,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
  const body = {
    request_type: 'DEPOSIT' as const,
    amount: 120.5,
    guest_email: 'jeanne.martin@example.com',
    guest_first_name: 'Jeanne',
    guest_last_name: 'Martin',
    reservation_ref: 'BK-CLIENT',
  };

  test('the generated types are those of the document the service serves today', async () => {
    const served = (await t.call({ method: 'GET', url: '/api/openapi.json', tenant: null })).json();
    const committed = JSON.parse(await readFile('clients/typescript/openapi.json', 'utf8'));
    // The servers entry names the deployment; everything else must match (run `npm run generate`).
    assert.deepEqual({ ...committed, servers: [] }, { ...served, servers: [] });
  });

  test('a typed create carries an Idempotency-Key, and a 5xx before it is retried with the same key', async () => {
    proxy.state.seen.length = 0;
    proxy.state.failNext = 2;
    proxy.state.failWith = 503;
    const { data, error, response } = await client().POST('/api/payment-requests/', { body });
    assert.equal(error, undefined);
    assert.equal(response.status, 201);
    assert.equal(data?.status, 'NOT_INITIATED');
    const keys = proxy.state.seen.map((s) => s.key);
    assert.equal(keys.length, 3);
    assert.ok(keys[0] && keys.every((k) => k === keys[0]), 'one key for every attempt');
    const detail = await client().GET('/api/payment-requests/{uuid}/', {
      params: { path: { uuid: data?.uuid ?? '' } },
    });
    assert.equal(detail.data?.amount, 120.5);
  });

  test('a retried create whose first answer was lost makes one request: the key replays it', async () => {
    const before = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM payment_requests WHERE reservation_ref = 'BK-LOST'",
    );
    const key = 'client-lost-answer';
    const first = await client().POST('/api/payment-requests/', {
      body: { ...body, reservation_ref: 'BK-LOST' },
      headers: { 'idempotency-key': key },
    });
    const again = await client().POST('/api/payment-requests/', {
      body: { ...body, reservation_ref: 'BK-LOST' },
      headers: { 'idempotency-key': key },
    });
    assert.equal(again.data?.uuid, first.data?.uuid);
    const after = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM payment_requests WHERE reservation_ref = 'BK-LOST'",
    );
    assert.equal((after.rows[0]?.n ?? 0) - (before.rows[0]?.n ?? 0), 1);
  });

  test('429 waits at least Retry-After, then goes through', async () => {
    const tenant = await t.newTenant('Hôtel Limité', { createRateLimit: 1 });
    const c = createPayreqClient({
      baseUrl: proxy.url,
      apiKey: tenant.key,
      baseDelayMs: 10,
      random: () => 0,
      sleep: async (ms) => {
        waits.push(ms);
        // The wait is over for the service too: lift the limit rather than sleep a minute.
        await t.repos.tenants.setCreateRateLimit(tenant.tenantId, 0);
      },
    });
    assert.equal((await c.POST('/api/payment-requests/', { body })).response.status, 201);
    waits.length = 0;
    const r = await c.POST('/api/payment-requests/', { body: { ...body, reservation_ref: 'BK-429' } });
    assert.equal(r.response.status, 201);
    assert.equal(waits.length, 1);
    assert.ok((waits[0] ?? 0) >= 1000, `waited ${waits[0]} ms, Retry-After is in seconds`);
  });

  test('400, 401 and 404 are answered at once, never retried', async () => {
    for (const [call, status] of [
      [() => client().POST('/api/payment-requests/', { body: { ...body, amount: 0 } }), 400],
      [() => client('AbCdEfGh.nope').GET('/api/payment-requests/', {}), 401],
      [
        () =>
          client().GET('/api/payment-requests/{uuid}/', {
            params: { path: { uuid: '00000000-0000-4000-8000-000000000000' } },
          }),
        404,
      ],
    ] as const) {
      proxy.state.seen.length = 0;
      const r = await call();
      assert.equal(r.response.status, status);
      assert.ok(r.error, 'a typed error body');
      assert.equal(proxy.state.seen.length, 1, `status ${status} is not retried`);
    }
  });

  test('a service still failing after the retries: the last answer comes back', async () => {
    proxy.state.seen.length = 0;
    proxy.state.failNext = 100;
    proxy.state.failWith = 502;
    const r = await client().GET('/api/events/', {});
    proxy.state.failNext = 0;
    assert.equal(r.response.status, 502);
    assert.equal(proxy.state.seen.length, 5, 'the first attempt and 4 retries');
  });

  test('the webhook verifier accepts what the service signs, and nothing else', () => {
    const body = '{"id":1,"type":"payment_request.captured"}';
    const now = Math.floor(Date.now() / 1000);
    const header = signatureHeader('whsec_test', body, now);
    assert.ok(verifyWebhookSignature('whsec_test', body, header));
    assert.ok(!verifyWebhookSignature('whsec_other', body, header));
    assert.ok(!verifyWebhookSignature('whsec_test', `${body} `, header));
    assert.ok(!verifyWebhookSignature('whsec_test', body, signatureHeader('whsec_test', body, now - 3600)));
    assert.ok(!verifyWebhookSignature('whsec_test', body, undefined));
    // During a secret rotation's grace period the service signs with both: either secret verifies.
    const both = signatureHeader(['whsec_new', 'whsec_test'], body, now);
    assert.ok(verifyWebhookSignature('whsec_new', body, both));
    assert.ok(verifyWebhookSignature('whsec_test', body, both));
    assert.ok(!verifyWebhookSignature('whsec_other', body, both));
  });
});
