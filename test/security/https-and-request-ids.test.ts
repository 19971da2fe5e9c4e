import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PRODUCTION_SECRET_KEY } from '../helpers/production-secret.ts';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const PRODUCTION = { NODE_ENV: 'production', SECRET_KEY: PRODUCTION_SECRET_KEY, SANDBOX_IN_PRODUCTION: 'true' };

describe(`production HTTPS rules (${ENGINE})`, () => {
  let direct: TestApp;
  let proxied: TestApp;
  before(async () => {
    direct = await startTestApp({ env: PRODUCTION });
    // The proxy by its address (app.inject speaks from 127.0.0.1): `true` is refused in production.
    proxied = await startTestApp({ env: { ...PRODUCTION, TRUST_PROXY: '127.0.0.1' } });
  });
  after(async () => {
    await direct.close();
    await proxied.close();
  });

  test('plain HTTP is refused with 403 HTTPS required, before authentication, and carries HSTS', async () => {
    const r = await direct.call({ method: 'GET', url: '/api/payment-requests/' });
    assert.equal(r.statusCode, 403);
    assert.match(r.json().error, /^HTTPS required: .*TRUST_PROXY.*NODE_ENV=development/, 'the cause and both ways out');
    assert.match(String(r.headers['strict-transport-security']), /max-age=\d+/);
    const anonymous = await direct.app.inject({ method: 'GET', url: '/api/payment-requests/' });
    assert.equal(anonymous.statusCode, 403, 'no key: still the HTTPS answer, nothing about keys');
  });

  test('X-Forwarded-Proto is ignored unless the proxy is trusted', async () => {
    const r = await direct.call({
      method: 'GET',
      url: '/api/payment-requests/',
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(r.statusCode, 403);
  });

  test('behind a trusted proxy that ended TLS, requests go through', async () => {
    const r = await proxied.call({
      method: 'GET',
      url: '/api/payment-requests/',
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), []);
    const plain = await proxied.call({
      method: 'GET',
      url: '/api/payment-requests/',
      headers: { 'x-forwarded-proto': 'http' },
    });
    assert.equal(plain.statusCode, 403);
  });
});

describe(`request ids (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('a sane incoming X-Request-Id is echoed, anything else is replaced by a fresh one', async () => {
    const kept = await t.call({
      method: 'GET',
      url: '/api/payment-requests/',
      headers: { 'x-request-id': 'pms-42.a:b' },
    });
    assert.equal(kept.headers['x-request-id'], 'pms-42.a:b');
    const odd = await t.call({
      method: 'GET',
      url: '/api/payment-requests/',
      headers: { 'x-request-id': 'a b\u00e9<script>' },
    });
    assert.match(String(odd.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const a = await t.call({ method: 'GET', url: '/nowhere' });
    const b = await t.call({ method: 'GET', url: '/nowhere' });
    assert.equal(a.statusCode, 404);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });
});
