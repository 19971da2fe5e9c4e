import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

/** The provider's refusal of the guest's card, as its notification brings it. */
async function refuseCard(
  t: TestApp,
  id: string,
  provider: 'sandbox' | 'lyra',
  declineCode: string | undefined,
): Promise<void> {
  const outcome = await t.app.payreq.notifications.apply(provider, {
    eventId: `evt_${randomBytes(8).toString('hex')}`,
    paymentRequestId: id,
    outcome: 'refused',
    detail: 'card refused by the issuer',
    ...(declineCode ? { declineCode } : {}),
  });
  assert.equal(outcome, 'applied');
}

// A refused card ends the request (REFUSED is final): its page says what the bank answered and
// what staff can do, in the reader's language, where it said "No provider operation recorded".
describe(`a refused request's page (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  before(async () => {
    t = await startTestApp();
    await createUser(t, 'desk-refused', t.tenant.tenantId);
    c = await new ControlClient(t, '10.6.2.9').signedIn('desk-refused');
  });
  after(() => t.close());

  const text = async (id: string) => {
    const page = await c.get(`/control/requests/${id}`);
    assert.equal(page.statusCode, 200, page.body);
    return page.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
  };

  test("Lyra's ACQ_001/51: insufficient funds, its code, and the next step, in English and French", async () => {
    const r = await createRequest(t, { request_type: 'DEPOSIT', amount: 80 });
    await refuseCard(t, r.uuid, 'lyra', 'ACQ_001/51');
    const en = await text(r.uuid);
    assert.match(en, /The bank refused the guest’s card/);
    assert.match(en, /Insufficient funds\. ACQ_001\/51/);
    assert.match(en, /A refused request is final/);
    assert.match(en, /No money moved: the bank refused the card before anything was taken/);
    assert.doesNotMatch(en, /No provider operation recorded/);
    await c.get('/control/language/fr?back=/control/requests');
    const fr = await text(r.uuid);
    assert.match(fr, /La banque a refusé la carte du client/);
    assert.match(fr, /Provision insuffisante\. ACQ_001\/51/);
    await c.get('/control/language/en?back=/control/requests');
  });

  test('a refusal without a code: "reason not known" on the closed list; the sandbox reason shown once', async () => {
    const bare = await createRequest(t, { request_type: 'IMPRINT', amount: 50 });
    await refuseCard(t, bare.uuid, 'lyra', undefined);
    assert.match(await text(bare.uuid), /Refused, reason not known\./);
    const sandbox = await createRequest(t, { request_type: 'DEPOSIT', amount: 50 });
    await refuseCard(t, sandbox.uuid, 'sandbox', 'lost_or_stolen');
    const page = await text(sandbox.uuid);
    assert.match(page, /Card reported lost or stolen\./);
    assert.doesNotMatch(
      page,
      /Card reported lost or stolen\. lost_or_stolen/,
      'a code that is the reason is not said twice',
    );
  });

  test('a request that was not refused has no such notice', async () => {
    const r = await createRequest(t, { request_type: 'DEPOSIT', amount: 50 });
    const page = await text(r.uuid);
    assert.doesNotMatch(page, /The bank refused the guest’s card/);
    assert.match(page, /No provider operation recorded/);
  });
});
