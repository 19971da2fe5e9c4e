import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider } from '../helpers/providers.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

// The provider did the job but its answer was lost. The service never says "nothing was
// changed" then: the operation is in doubt (504 outcome_unknown), the request stays claimed, and
// a retry under the same Idempotency-Key, or reconcile, settles it by the provider's view.
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
  const post = (id: string, action: string, payload?: object, key?: string) =>
    t.call({
      method: 'POST',
      url: `/api/payment-requests/${id}/${action}/`,
      ...(payload ? { payload } : {}),
      ...(key ? { headers: { ...t.tenant.headers, 'idempotency-key': key } } : {}),
    });
  const detail = async (id: string) => (await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json();
  const ledger = async (id: string) =>
    (
      await t.db.query<{ kind: string; state: string; amount: number }>(
        "SELECT kind, state, amount FROM money_ledger WHERE payment_request_id = $1 AND kind <> 'hold' ORDER BY id",
        [id],
      )
    ).rows;

  test('a capture whose answer was lost: 504 outcome_unknown, then the same Idempotency-Key answers 200 without a second call', async () => {
    const id = await held(300);
    provider.loseAnswers(true);
    let first: Awaited<ReturnType<typeof post>>;
    try {
      first = await post(id, 'capture', { amount: 120 }, 'pms-capture-1');
    } finally {
      provider.loseAnswers(false);
    }
    assert.equal(first.statusCode, 504, first.body);
    assert.equal(first.json().code, 'outcome_unknown');
    assert.deepEqual(await ledger(id), [{ kind: 'capture', state: 'in_doubt', amount: 12000 }]);
    assert.equal((await detail(id)).status, 'AUTHORISED_TO_VALIDATE');

    const retry = await post(id, 'capture', { amount: 120 }, 'pms-capture-1');
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.json().status, 'CAPTURED');
    assert.equal((await detail(id)).amount_captured, 120);
    assert.equal(provider.count('capture', id), 1, 'the provider was asked once');
    assert.deepEqual(await ledger(id), [{ kind: 'capture', state: 'succeeded', amount: 12000 }]);
  });

  test('a release whose answer was lost is settled by reconcile as CANCELLED', async () => {
    const id = await held(80);
    provider.loseAnswers(true);
    try {
      assert.equal((await post(id, 'release')).statusCode, 504);
    } finally {
      provider.loseAnswers(false);
    }
    const r = await t.app.payreq.reconciler.reconcile();
    assert.ok(r.settled >= 1);
    assert.equal((await detail(id)).status, 'CANCELLED');
  });

  test('a refund whose answer was lost is in doubt, then recorded by reconcile', async () => {
    const id = await held(90);
    assert.equal((await post(id, 'capture')).statusCode, 200);
    const tenant = { tenantId: t.tenant.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 };
    provider.loseAnswers(true);
    try {
      await assert.rejects(
        t.app.payreq.commands.refund(tenant, id, undefined, { source: 'admin', actor: 'user:test' }),
        (err: { code?: string }) => err.code === 'outcome_unknown',
      );
    } finally {
      provider.loseAnswers(false);
    }
    await t.app.payreq.reconciler.reconcile();
    const d = await detail(id);
    assert.deepEqual([d.status, d.amount_refunded], ['REFUNDED', 90]);
  });

  test('when the provider says it did nothing (unavailable), it is a 502 and the request is as it was', async () => {
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
