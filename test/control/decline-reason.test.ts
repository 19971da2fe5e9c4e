import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { registerSandboxCard } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

const D = '2026-12-10';

// The request's page says why the bank declined its hold, in the reader's language, and that a
// soft decline is tried again; a hard one is the failed guarantee's row.
describe(`a declined hold on the request's page (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  before(async () => {
    t = await startTestApp();
    await createUser(t, 'desk-decline', t.tenant.tenantId);
    c = await new ControlClient(t, '10.6.1.9').signedIn('desk-decline');
  });
  after(() => t.close());

  async function registered(card: string, checkin: string) {
    const r = await createRequest(t, { request_type: 'IMPRINT', amount: 90, reservation_data: { checkin } });
    await registerSandboxCard(t, r.uuid, card);
    return r.uuid;
  }

  /** The history table's text, tags removed. */
  const history = async (id: string) => {
    const page = await c.get(`/control/requests/${id}`);
    assert.equal(page.statusCode, 200, page.body);
    const table = page.body.slice(page.body.lastIndexOf('<table>'));
    return table.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
  };

  test('a soft decline: its reason and "tried again"; a stolen card: its reason on the failed guarantee', async () => {
    const soft = await registered('4000000000009995', '2026-12-12');
    const stolen = await registered('4000000000009979', '2026-12-12');
    const run = await createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );
    assert.deepEqual({ declined: run.declined, refused: run.refused }, { declined: 1, refused: 1 });
    assert.match(await history(soft), /Insufficient funds · tried again at the next run/);
    const hard = await history(stolen);
    assert.match(hard, /Card reported lost or stolen/);
    assert.doesNotMatch(hard, /tried again/);
    await c.get('/control/language/fr?back=/control/requests');
    assert.match(await history(soft), /Provision insuffisante · nouvel essai au prochain passage/);
  });
});
