import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Status } from '../../src/domain/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { guestCall, plainSpaces, setLinkExpired, stubCheckout, visibleText } from './guest-helpers.ts';

const REFRESH = 'http-equiv="refresh"';

describe(`guest result page /payment/<uuid>/result/ (${ENGINE})`, () => {
  let t: TestApp;
  const checkout = stubCheckout();
  before(async () => {
    t = await startTestApp({ provider: checkout.provider });
  });
  after(async () => {
    auditResponses(t);
    await t.close();
  });

  const result = (uuid: string) => guestCall(t, `/payment/${uuid}/result/`);

  for (const status of ['NOT_INITIATED', 'PENDING'] as Status[]) {
    test(`${status} (the notification has not arrived yet): processing, a link to look again, no automatic refresh, nothing changed`, async () => {
      const c = await createRequest(t, { language: 'en' });
      if (status !== 'NOT_INITIATED') await arrangeStatus(t.db, c.uuid, status);
      const r = await result(c.uuid);
      assert.equal(r.statusCode, 200);
      assert.ok(!r.body.includes(REFRESH), 'no timed refresh (WCAG 2.2.1)');
      const text = visibleText(r.body);
      assert.ok(text.includes('Processing your payment'), text);
      assert.ok(r.body.includes(`href="/payment/${c.uuid}/result/"`), 'a link to look again');
      const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${c.uuid}/` })).json();
      assert.equal(d.status, status, 'the result page never moves a request');
    });
  }

  const CASES: { status: Status; type: 'IMPRINT' | 'DEPOSIT'; says: string; tone: string }[] = [
    { status: 'AUTHORISED', type: 'IMPRINT', says: 'Karte als Garantie hinterlegt', tone: 'success' },
    { status: 'AUTHORISED_TO_VALIDATE', type: 'IMPRINT', says: 'Karte als Garantie hinterlegt', tone: 'success' },
    { status: 'CAPTURED', type: 'DEPOSIT', says: 'Zahlung erhalten', tone: 'success' },
    { status: 'REFUSED', type: 'IMPRINT', says: 'Zahlung abgelehnt', tone: 'problem' },
    { status: 'CANCELLED', type: 'IMPRINT', says: 'Anfrage storniert', tone: 'info' },
    { status: 'EXPIRED', type: 'DEPOSIT', says: 'Link abgelaufen', tone: 'problem' },
    { status: 'REFUNDED', type: 'DEPOSIT', says: 'Zahlung erstattet', tone: 'info' },
  ];
  for (const c of CASES) {
    test(`${c.type} ${c.status}: "${c.says}", no refresh, no form`, async () => {
      const req = await createRequest(t, { language: 'de', request_type: c.type, amount: 150 });
      await arrangeStatus(t.db, req.uuid, c.status, c.status === 'CAPTURED' ? { amountCaptured: 15000 } : {});
      const r = await result(req.uuid);
      assert.equal(r.statusCode, 200);
      assert.match(r.body, /<html lang="de">/);
      assert.ok(visibleText(r.body).includes(c.says), visibleText(r.body));
      assert.ok(r.body.includes(`outcome-${c.tone}`));
      assert.ok(!r.body.includes(REFRESH));
      assert.ok(!r.body.includes('<form'));
    });
  }

  test('a captured DEPOSIT names the amount paid, formatted for the language', async () => {
    const c = await createRequest(t, { language: 'fr', request_type: 'DEPOSIT', amount: 150 });
    await arrangeStatus(t.db, c.uuid, 'CAPTURED', { amountCaptured: 15000 });
    const text = plainSpaces(visibleText((await result(c.uuid)).body));
    assert.ok(text.includes('Votre paiement de 150,00 € a bien été reçu'), text);
  });

  test('ERROR: a technical error with a link back to the form to try again', async () => {
    const c = await createRequest(t, { language: 'fr' });
    await arrangeStatus(t.db, c.uuid, 'ERROR');
    const r = await result(c.uuid);
    assert.ok(visibleText(r.body).includes('Erreur technique'));
    assert.match(r.body, new RegExp(`<a class="button" href="/payment/${c.uuid}/">Réessayer</a>`));
    assert.ok(!r.body.includes(REFRESH));
  });

  test('an expired link: expired, no retry link', async () => {
    const c = await createRequest(t, { language: 'en' });
    await arrangeStatus(t.db, c.uuid, 'ERROR');
    await setLinkExpired(t, c.uuid);
    const r = await result(c.uuid);
    assert.ok(visibleText(r.body).includes('Link expired'));
    assert.ok(!r.body.includes('Try again'));
  });

  test('a provider returning the guest by POST (any body) is sent on to the GET page', async () => {
    const c = await createRequest(t);
    const r = await guestCall(t, `/payment/${c.uuid}/result/`, {
      method: 'POST',
      payload: 'vads_result=00&signature=whatever',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(r.statusCode, 303);
    assert.equal(r.headers.location, `/payment/${c.uuid}/result/`);
    const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${c.uuid}/` })).json();
    assert.equal(d.status, 'NOT_INITIATED', 'what the guest brings back is never trusted');
  });
});
