import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { auditResponses, createBody, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

describe(`X-Request-Id on every response, malformed URLs (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('every kind of answer carries a distinct x-request-id', async () => {
    const c = await createRequest(t);
    const answers = [
      await t.call({ method: 'POST', url: BASE, payload: createBody() }), // 201
      await t.call({ method: 'GET', url: BASE }), // 200
      await t.call({ method: 'GET', url: BASE, tenant: null }), // 401
      await t.call({ method: 'GET', url: `${BASE}6f1c2a52-7d3e-4a41-9a55-0c8f5b0e2d11/` }), // 404
      await t.call({ method: 'GET', url: `${BASE}${c.uuid}/` }), // 200
      await t.call({ method: 'GET', url: '/nowhere' }), // 404 route
      await t.call({ method: 'POST', url: BASE, payload: {} }), // 422
      await t.call({ method: 'POST', url: BASE, payload: '{', headers: { 'content-type': 'application/json' } }), // 400
      await t.call({ method: 'POST', url: BASE, payload: 'x', headers: { 'content-type': 'text/plain' } }), // 415
      await t.call({ method: 'GET', url: '/api/openapi.json', tenant: null }),
      await t.call({ method: 'GET', url: '/api/docs/', tenant: null }),
    ];
    const ids = answers.map((r) => r.headers['x-request-id']);
    for (const [i, id] of ids.entries()) assert.ok(typeof id === 'string' && id.length > 0, `answer ${i}`);
    assert.equal(new Set(ids).size, ids.length);
  });

  test('a malformed percent-encoding in the path is a 400 {error} with an x-request-id', async () => {
    for (const url of [`${BASE}%zz/`, `${BASE}%E0%A4%A/cancel/`, '/api/%zz']) {
      const r = await t.call({ method: url.endsWith('cancel/') ? 'POST' : 'GET', url });
      assert.equal(r.statusCode, 400, url);
      assert.match(String(r.headers['content-type']), /^application\/json/);
      assert.equal(r.json().error, 'Malformed URL');
      assert.ok(r.headers['x-request-id'], url);
    }
  });

  test('an over-long path segment is a 404 {error} with an x-request-id on every route', async () => {
    const long = 'a'.repeat(300);
    for (const [method, url] of [
      ['GET', `${BASE}${long}/`],
      ['DELETE', `${BASE}${long}/`],
      ['POST', `${BASE}${long}/capture/`],
      ['POST', `${BASE}${long}/release/`],
      ['POST', `${BASE}${long}/cancel/`],
    ] as const) {
      const r = await t.call({ method, url });
      assert.equal(r.statusCode, 404, `${method} ${url.slice(0, 40)}`);
      assert.equal(typeof r.json().error, 'string');
      assert.equal(r.json().message, undefined, 'no framework body shape');
      assert.ok(r.headers['x-request-id']);
    }
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
