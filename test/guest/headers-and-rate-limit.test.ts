import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { GUEST_RATE_LIMIT } from '../../src/guest/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { guestCall, stubCheckout, visibleText } from './guest-helpers.ts';

const PUBLIC = 'https://pay.hotel.test';

function assertGuestHeaders(r: LightMyRequestResponse, what: string): void {
  assert.equal(r.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(r.headers['referrer-policy'], 'no-referrer', what);
  assert.equal(r.headers['x-frame-options'], 'DENY', what);
  assert.equal(r.headers['cache-control'], 'no-store', what);
  const csp = String(r.headers['content-security-policy']);
  for (const directive of [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ]) {
    assert.ok(csp.split('; ').includes(directive), `${what}: ${directive} in ${csp}`);
  }
  assert.match(csp, /form-action 'self'/, what);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|script-src/, what);
  assert.ok(typeof r.headers['x-request-id'] === 'string', what);
}

describe(`guest pages: security headers and the 30 a minute limit (${ENGINE})`, () => {
  let t: TestApp;
  const checkout = stubCheckout();
  before(async () => {
    t = await startTestApp({ provider: checkout.provider, env: { PUBLIC_BASE_URL: PUBLIC } });
  });
  after(async () => {
    auditResponses(t, [503]);
    await t.close();
  });

  test('the form page: a strict CSP whose form-action allows only us, our public origin and the provider', async () => {
    const c = await createRequest(t);
    const r = await guestCall(t, c.payment_link);
    assert.equal(r.statusCode, 200);
    assertGuestHeaders(r, 'form page');
    assert.equal(
      r.headers['content-security-policy'],
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self' https://pay.hotel.test https://pay.example.test; frame-ancestors 'none'; base-uri 'none'",
    );
  });

  test('every other guest answer carries the headers too: outcome, result, 404, 503', async () => {
    const c = await createRequest(t);
    await arrangeStatus(t.db, c.uuid, 'REFUSED');
    assertGuestHeaders(await guestCall(t, c.payment_link), 'outcome');
    assertGuestHeaders(await guestCall(t, `${c.payment_link}result/`), 'result');
    assertGuestHeaders(await guestCall(t, '/payment/nope/'), '404');
    const open = await createRequest(t);
    checkout.failWith('unavailable');
    try {
      const r = await guestCall(t, open.payment_link);
      assert.equal(r.statusCode, 503);
      assertGuestHeaders(r, '503');
    } finally {
      checkout.failWith(undefined);
    }
  });

  test('the stylesheet: served from our origin as text/css, nosniff, cacheable', async () => {
    const r = await guestCall(t, '/payment/assets/guest.css');
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^text\/css/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.match(String(r.headers['cache-control']), /max-age=\d+/);
    assert.match(r.body, /:focus-visible/);
  });

  test('a provider form action that is not http(s) is never rendered: the unavailable page instead', async () => {
    const c = await createRequest(t, { language: 'en' });
    checkout.setAction('javascript:alert(1)');
    try {
      const r = await guestCall(t, c.payment_link);
      assert.equal(r.statusCode, 503);
      assert.ok(!r.body.includes('javascript:'));
      assert.ok(visibleText(r.body).includes('Payment temporarily unavailable'));
    } finally {
      checkout.setAction('https://pay.example.test/hosted/card');
    }
  });

  test(`${GUEST_RATE_LIMIT} requests a minute per IP across both pages, then a 429 page in the request's language with Retry-After`, async () => {
    const c = await createRequest(t, { language: 'de' });
    const ip = '192.0.2.10';
    for (let i = 0; i < GUEST_RATE_LIMIT; i++) {
      const url = i % 2 === 0 ? c.payment_link : `${c.payment_link}result/`;
      const r = await guestCall(t, url, { ip });
      assert.equal(r.statusCode, 200, `request ${i + 1}`);
    }
    const limited = await guestCall(t, c.payment_link, { ip });
    assert.equal(limited.statusCode, 429);
    assert.match(String(limited.headers['content-type']), /^text\/html/);
    assert.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After');
    assert.match(limited.body, /<html lang="de">/);
    assert.ok(visibleText(limited.body).includes('Zu viele Anfragen'));
    assert.ok(!limited.body.includes('<form'));
    assertGuestHeaders(limited, '429');

    // The same address on a link nobody has opened here: French and English.
    const unknown = await guestCall(t, '/payment/00000000-0000-4000-8000-000000000000/result/', { ip });
    assert.equal(unknown.statusCode, 429);
    assert.match(unknown.body, /<html lang="fr">/);
    const text = visibleText(unknown.body);
    assert.ok(text.includes('Trop de requêtes') && text.includes('Too many requests'), text);

    // Another guest is not affected, and the API is not limited by the guest budget.
    assert.equal((await guestCall(t, c.payment_link, { ip: '192.0.2.11' })).statusCode, 200);
    assert.equal((await t.call({ method: 'GET', url: `/api/payment-requests/${c.uuid}/` })).statusCode, 200);
  });
});
