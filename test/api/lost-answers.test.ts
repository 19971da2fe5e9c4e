import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.js';
import { countingProvider } from '../helpers/providers.js';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.js';

// The provider did the job but its answer was lost: the service asks the provider's own view
// of the transaction before giving up, so money that moved is recorded, not forgotten.
describe(`money commands whose answer was lost (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  before(async () => {
    t = await startTestApp({ provider: provider.provider });
  });
  after(() => t.close());

  async function held(amount: number) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    return c.uuid;
  }
  const post = (id: string, action: string, payload?: object) =>
    t.call({ method: 'POST', url: `/api/payment-requests/${id}/${action}/`, ...(payload ? { payload } : {}) });
  const detail = async (id: string) => (await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json();

  test('a capture done at the provider is recorded as CAPTURED for what was captured', async () => {
    const id = await held(300);
    provider.loseAnswers(true);
    try {
      const r = await post(id, 'capture', { amount: 120 });
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.json().status, 'CAPTURED');
    } finally {
      provider.loseAnswers(false);
    }
    const d = await detail(id);
    assert.equal(d.amount_captured, 120);
    assert.equal(provider.count('capture', id), 1);
  });

  test('a release done at the provider is recorded as CANCELLED', async () => {
    const id = await held(80);
    provider.loseAnswers(true);
    try {
      assert.equal((await post(id, 'release')).json().status, 'CANCELLED');
    } finally {
      provider.loseAnswers(false);
    }
  });

  test('a refund done at the provider is recorded', async () => {
    const id = await held(90);
    assert.equal((await post(id, 'capture')).statusCode, 200);
    provider.loseAnswers(true);
    try {
      const r = await t.app.payreq.commands.refund(
        { tenantId: t.tenant.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 },
        id,
        undefined,
        { source: 'admin', actor: 'user:test' },
      );
      assert.equal(r.status, 'REFUNDED');
    } finally {
      provider.loseAnswers(false);
    }
    assert.equal((await detail(id)).amount_refunded, 90);
  });

  test('when the provider really did nothing, it is still a 502 and the request is as it was', async () => {
    const id = await held(70);
    provider.failWith('unavailable');
    try {
      assert.equal((await post(id, 'capture')).statusCode, 502);
    } finally {
      provider.failWith(undefined);
    }
    assert.equal((await detail(id)).status, 'AUTHORISED_TO_VALIDATE');
    assert.equal((await post(id, 'capture')).statusCode, 200);
  });
});
