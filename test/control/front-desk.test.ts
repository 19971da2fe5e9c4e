import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

/** The text of a page's actions card, tags dropped. */
function actionsCard(body: string): string {
  const start = body.indexOf('id="actions-h"');
  return body
    .slice(start, body.indexOf('</section>', start))
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');
}

describe(`the front desk's pages say what they mean (${ENGINE})`, { timeout: 180_000 }, () => {
  let t: TestApp;
  const as = async (username: string, language = 'en') => {
    const c = new ControlClient(t);
    c.headers = { 'accept-language': language };
    return c.signedIn(username);
  };

  before(async () => {
    t = await startTestApp();
    await createUser(t, 'desk', t.tenant.tenantId, 'frontdesk');
    await createUser(t, 'clerk', t.tenant.tenantId, 'viewer');
    await createUser(t, 'boss', t.tenant.tenantId, 'manager');
  });
  after(() => t.close());

  /** A deposit the guest paid: only a refund is left, and it is a manager's. */
  async function paidDeposit(amount: number) {
    const r = await createRequest(t, { request_type: 'DEPOSIT', amount });
    await arrangeStatus(t.db, r.uuid, 'CAPTURED', { amountCaptured: amount * 100 });
    return r;
  }

  test('a role that cannot act reads what a higher role could do, in its language', async () => {
    const paid = await paidDeposit(120);
    const desk = actionsCard((await (await as('desk')).get(`/control/requests/${paid.uuid}`)).body);
    assert.doesNotMatch(desk, /No action is possible/);
    assert.match(desk, /Your role \(Front desk\) cannot act on this request in its status\./);
    assert.match(desk, /The role Manager could refund the guest\./);
    const fr = actionsCard((await (await as('desk', 'fr')).get(`/control/requests/${paid.uuid}`)).body);
    assert.match(fr, /Le rôle Responsable pourrait rembourser le client\./);
    const de = actionsCard((await (await as('desk', 'de')).get(`/control/requests/${paid.uuid}`)).body);
    assert.match(de, /Die Rolle Leitung könnte dem Gast erstatten\./);

    // A viewer on a hold: each higher role with what it could do.
    const held = await createRequest(t, { request_type: 'IMPRINT', amount: 250 });
    await arrangeStatus(t.db, held.uuid, 'AUTHORISED_TO_VALIDATE');
    const viewer = actionsCard((await (await as('clerk')).get(`/control/requests/${held.uuid}`)).body);
    assert.match(viewer, /Your role \(Viewer\) cannot act/);
    assert.match(viewer, /The role Front desk could capture the hold or release the hold\./);

    // The manager has the button, and no sentence about others.
    const boss = (await (await as('boss')).get(`/control/requests/${paid.uuid}`)).body;
    assert.match(boss, /name="action" value="refund"/);
    assert.doesNotMatch(actionsCard(boss), /could|No action/);

    // Where the status allows nothing at all, that is still what the page says.
    const refunded = await createRequest(t, { request_type: 'DEPOSIT' });
    await arrangeStatus(t.db, refunded.uuid, 'REFUNDED');
    const none = actionsCard((await (await as('boss')).get(`/control/requests/${refunded.uuid}`)).body);
    assert.match(none, /No action is possible in this status\./);
  });
});
