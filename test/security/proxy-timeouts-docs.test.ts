import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { IPN_RATE_LIMIT } from '../../src/ipn/index.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { PRODUCTION_SECRET_KEY } from '../helpers/production-secret.ts';
import { countRows, createBody, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const PRODUCTION = {
  NODE_ENV: 'production',
  SECRET_KEY: PRODUCTION_SECRET_KEY,
  SANDBOX_IN_PRODUCTION: 'true',
  LOG_LEVEL: 'silent',
};

/**
 * Writes `data` on a raw connection and never finishes the request; resolves with what the
 * server sent once it closes the socket. No sleep: the close is the event awaited.
 */
function sendAndAwaitClose(baseUrl: string, data: string): Promise<{ answer: string; ms: number }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const socket = connect(Number(port), hostname, () => socket.write(data));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, ms: Date.now() - t0 }));
  });
}

describe(`TRUST_PROXY hops, request timeouts, API docs in production (${ENGINE})`, () => {
  const apps: TestApp[] = [];
  let slow: ListeningApp;
  let oneHop: TestApp;
  before(async () => {
    slow = await startListeningApp({ env: { REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '500' } });
    oneHop = await start({ ...PRODUCTION, TRUST_PROXY: '1' });
  });
  after(async () => {
    await slow.close();
    for (const a of apps) await a.close();
  });
  const start = async (env: Record<string, string>) => {
    const a = await startTestApp({ env });
    apps.push(a);
    return a;
  };

  test('TRUST_PROXY=1 trusts the one proxy in front (its X-Forwarded-Proto); an address list trusts only those', async () => {
    const viaProxy = await oneHop.call({
      method: 'GET',
      url: '/api/payment-requests/',
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(viaProxy.statusCode, 200, viaProxy.body);
    // app.inject speaks from 127.0.0.1: a list without it means the header is the client's own word.
    const otherProxy = await start({ ...PRODUCTION, TRUST_PROXY: '10.9.9.9,192.168.0.0/16' });
    const forged = await otherProxy.call({
      method: 'GET',
      url: '/api/payment-requests/',
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(forged.statusCode, 403);
    assert.match(forged.json().error, /^HTTPS required: /);
  });

  test('an address list: X-Forwarded-Proto from a listed proxy counts; X-Forwarded-For is walked through listed hops only', async () => {
    const listed = await start({ ...PRODUCTION, TRUST_PROXY: 'loopback,10.0.0.0/8' });
    const https = { 'x-forwarded-proto': 'https' };
    const viaProxy = await listed.call({ method: 'GET', url: '/api/payment-requests/', headers: https });
    assert.equal(viaProxy.statusCode, 200, viaProxy.body);
    // The refused notifications' limit counts by the client's address: it shows which one was taken.
    const refused = (forwardedFor: string) =>
      listed.app.inject({
        method: 'POST',
        url: '/ipn/sandbox/',
        headers: { ...https, 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        payload: '{"event_id":"x"}',
      });
    for (let i = 0; i < IPN_RATE_LIMIT; i++) {
      assert.equal((await refused('198.51.100.1, 10.1.2.3')).statusCode, 401, `notification ${i + 1}`);
    }
    assert.equal((await refused('198.51.100.1, 10.1.2.3')).statusCode, 429, 'the client behind the listed proxy');
    assert.equal((await refused('198.51.100.2, 10.1.2.3')).statusCode, 401, 'another client behind the same proxy');
    // 172.16.0.9 is not listed: it is the client, whatever it says came before it.
    assert.equal((await refused('198.51.100.1, 172.16.0.9')).statusCode, 401, 'an unlisted hop is the client');
  });

  test('API docs: absent in production unless API_DOCS=on; present in development', async () => {
    const prod = oneHop;
    const https = { 'x-forwarded-proto': 'https' };
    for (const url of ['/api/docs', '/api/openapi.json']) {
      const r = await prod.app.inject({ method: 'GET', url, headers: https });
      assert.equal(r.statusCode, 404, url);
    }
    const prodWithDocs = await start({ ...PRODUCTION, TRUST_PROXY: '1', API_DOCS: 'on' });
    const doc = await prodWithDocs.app.inject({ method: 'GET', url: '/api/openapi.json', headers: https });
    assert.equal(doc.statusCode, 200);
    assert.equal(doc.json().openapi, '3.1.0');
    // `slow` runs as in development.
    assert.equal((await slow.app.inject({ method: 'GET', url: '/api/openapi.json' })).statusCode, 200);
  });

  test('a client that sends its headers and half a body is answered 408 and cut off; nothing is stored', async () => {
    const body = JSON.stringify(createBody({ reservation_ref: 'SLOW-BODY' }));
    const before = await countRows(slow.db);
    const head = [
      'POST /api/payment-requests/ HTTP/1.1',
      `Host: ${new URL(slow.baseUrl).host}`,
      `X-API-Key: ${slow.tenant.key}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      '',
    ].join('\r\n');
    const { answer } = await sendAndAwaitClose(slow.baseUrl, head + body.slice(0, body.length / 2));
    assert.match(answer, /^HTTP\/1\.1 408 /, answer);
    assert.equal(await countRows(slow.db), before);
  });

  test('a client that never finishes its headers is cut off too', async () => {
    const { answer } = await sendAndAwaitClose(slow.baseUrl, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 1');
    assert.match(answer, /^HTTP\/1\.1 408 /, answer);
  });
});
