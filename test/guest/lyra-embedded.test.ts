import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { InvalidNotificationError } from '../../src/providers/index.ts';
import { signAnswer } from '../../src/providers/lyra/index.ts';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { giveLyraAccount } from '../fakes/lyra/give-account.ts';
import { DEMO_SHOP, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { guestCall, visibleText } from './guest-helpers.ts';

const PUBLIC = 'https://pay.hotel.test';

/** The one value of attribute `name` in `html` (attributes are double-quoted and escaped). */
function attribute(html: string, name: string): string {
  const found = [...html.matchAll(new RegExp(`\\s${name}="([^"]*)"`, 'g'))].map((m) => m[1] ?? '');
  assert.equal(found.length, 1, `one ${name} in the page`);
  return (found[0] ?? '').replaceAll('&amp;', '&').replaceAll('&#39;', "'").replaceAll('&quot;', '"');
}

describe(`the guest page of a Lyra tenant: Lyra's embedded form, its CSP, the browser return (${ENGINE})`, () => {
  let t: TestApp;
  let fake: LyraFake;
  let lyraOrigin = '';

  before(async () => {
    fake = await startLyraFake();
    lyraOrigin = new URL(fake.staticUrl).origin;
    t = await startTestApp({ env: { PUBLIC_BASE_URL: PUBLIC } });
    await giveLyraAccount(t, t.tenant.tenantId, fake);
  });
  after(async () => {
    auditResponses(t);
    await t.close();
    await fake.close();
  });

  test("the page loads Lyra's script with the public key, the result page and the language, and marks the form's place with the token", async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', language: 'de', amount: 80 });
    const r = await guestCall(t, c.payment_link);
    assert.equal(r.statusCode, 200);
    const page = r.body;
    assert.equal(
      /<script src="([^"]*)" kr-public-key=/.exec(page)?.[1],
      `${fake.staticUrl}js/krypton-client/V4.0/stable/kr-payment-form.min.js`,
    );
    assert.match(page, new RegExp(`<script src="${fake.staticUrl}js/krypton-client/V4.0/ext/neon.js"></script>`));
    assert.equal(attribute(page, 'kr-public-key'), DEMO_SHOP.publicKey);
    assert.equal(attribute(page, 'kr-post-url-success'), `${PUBLIC}/payment/${c.uuid}/result/`);
    assert.equal(attribute(page, 'kr-language'), 'de-DE');
    const token = attribute(page, 'kr-form-token');
    assert.equal(fake.store.form(token)?.ipnTargetUrl, `${PUBLIC}/ipn/lyra/`, 'a token Lyra handed out for this order');
    assert.match(
      page,
      new RegExp(`<link rel="stylesheet" href="${fake.staticUrl}js/krypton-client/V4.0/ext/neon-reset.min.css">`),
    );
    // No card field of payreq's own: the card is typed in Lyra's frames only.
    assert.doesNotMatch(page, /name="card_number"|<form/);
    assert.match(visibleText(page), /Hier erscheint das Kartenformular/);
    assert.equal((await t.call({ method: 'GET', url: `/api/payment-requests/${c.uuid}/` })).json().status, 'PENDING');
  });

  test("the CSP admits Lyra's static host, and nothing else, on that page only", async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT' });
    const r = await guestCall(t, c.payment_link);
    const o = lyraOrigin;
    assert.equal(
      r.headers['content-security-policy'],
      `default-src 'none'; script-src ${o}; style-src 'self' ${o}; img-src 'self' data: ${o}; font-src ${o}; frame-src ${o}; connect-src ${o}; form-action 'self' ${PUBLIC}; frame-ancestors 'none'; base-uri 'none'`,
    );
    // The result page of the same request, and a sandbox tenant's payment page: the strict policy.
    const result = await guestCall(t, `${c.payment_link}result/`);
    assert.doesNotMatch(String(result.headers['content-security-policy']), /script-src|frame-src/);
    const sandboxTenant = await t.newTenant('Sans compte');
    const other = await createRequest(t, {}, sandboxTenant);
    const sandboxPage = await guestCall(t, other.payment_link);
    assert.equal(sandboxPage.statusCode, 200);
    assert.doesNotMatch(String(sandboxPage.headers['content-security-policy']), /script-src|frame-src|127\.0\.0\.1/);
  });

  test('the browser return: verified with the HMAC key, and whatever it says, the status does not move', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 80 });
    const token = attribute((await guestCall(t, c.payment_link)).body, 'kr-form-token');
    // The guest paid at Lyra, whose notification has not reached payreq (not sent here).
    const { ipnBody } = fake.completeForm(token, LYRA_CARDS.accepted);
    const answer = new URLSearchParams(ipnBody).get('kr-answer') as string;
    const signedReturn = (key: string) =>
      new URLSearchParams({
        'kr-hash-key': 'sha256_hmac',
        'kr-hash-algorithm': 'sha256_hmac',
        'kr-answer-type': 'V4/Payment',
        'kr-answer': answer,
        'kr-hash': signAnswer(key, answer),
      }).toString();

    const lyra = await t.app.payreq.providers.forTenant(t.tenant.tenantId);
    assert.equal(lyra.readBrowserReturn(signedReturn(DEMO_SHOP.hmacKey))?.outcome, 'paid', 'a genuine return reads');
    assert.throws(() => lyra.readBrowserReturn(signedReturn('not-the-hmac-key')), InvalidNotificationError);
    assert.throws(() => lyra.readBrowserReturn(ipnBody), InvalidNotificationError, 'the IPN is no browser return');

    for (const [why, body] of [
      ['genuine', signedReturn(DEMO_SHOP.hmacKey)],
      ['forged', signedReturn('not-the-hmac-key')],
      ['the notification itself, replayed by a browser', ipnBody],
      ['garbage', 'kr-answer=%7B&kr-hash=zz'],
    ] as const) {
      const r = await guestCall(t, `${c.payment_link}result/`, {
        method: 'POST',
        payload: body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(r.statusCode, 303, why);
      assert.equal(r.headers.location, `/payment/${c.uuid}/result/`, why);
      const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${c.uuid}/` })).json();
      assert.equal(d.status, 'PENDING', `${why}: only the notification moves the request`);
    }
  });
});
