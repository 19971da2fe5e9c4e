import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reconcileStaleClaims } from '../../src/jobs/index.js';
import { arrangeStatus } from '../helpers/fixtures.js';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.js';

// A process that died between claiming a row and recording the provider's answer leaves a
// claim behind; the reconcile job settles it by the provider's own view.
describe(`reconcile claims left by a dead process (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const run = () => reconcileStaleClaims({ requests: t.repos.paymentRequests, provider: t.app.payreq.provider });
  const detail = async (id: string) => (await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json();

  /** A hold claimed by `action` ten minutes ago, by a process that never came back. */
  async function orphaned(action: 'capture' | 'release', amount = 100) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    await t.db.query(
      "UPDATE payment_requests SET pending_action = $2, pending_since = now() - interval '10 minutes' WHERE id = $1",
      [c.uuid, action],
    );
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
    const ref = {
      paymentRequestId: c.uuid,
      reference: c.reference,
      currency: 'EUR',
      transactionId: row?.provider_transaction_id,
    };
    return { id: c.uuid, ref };
  }

  test('a capture the provider did is recorded as CAPTURED, with its amount', async () => {
    const { id, ref } = await orphaned('capture', 250);
    await t.app.payreq.provider.capture(ref, 9000); // what the dead process got done
    const r = await run();
    assert.equal(r.settled >= 1, true);
    const d = await detail(id);
    assert.equal(d.status, 'CAPTURED');
    assert.equal(d.amount_captured, 90);
    const last = (await t.repos.paymentRequests.history(id)).at(-1);
    assert.deepEqual([last?.source, last?.actor], ['job', 'reconcile_claims']);
  });

  test('a release the provider did is recorded as CANCELLED', async () => {
    const { id, ref } = await orphaned('release');
    await t.app.payreq.provider.release(ref);
    await run();
    assert.equal((await detail(id)).status, 'CANCELLED');
  });

  test('a capture the provider never saw: the claim is given back and the hotel can capture', async () => {
    const { id } = await orphaned('capture');
    const blocked = await t.call({ method: 'POST', url: `/api/payment-requests/${id}/capture/` });
    assert.equal(blocked.statusCode, 409, 'before: stuck behind the dead claim');
    await run();
    assert.equal((await detail(id)).status, 'AUTHORISED_TO_VALIDATE');
    const r = await t.call({ method: 'POST', url: `/api/payment-requests/${id}/capture/` });
    assert.equal(r.statusCode, 200);
  });

  test('a fresh claim (a command still running) is left alone', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 30 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    await t.db.query("UPDATE payment_requests SET pending_action = 'capture', pending_since = now() WHERE id = $1", [
      c.uuid,
    ]);
    await run();
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
    assert.equal(row?.pending_action, 'capture');
  });

  test('a hold claim cannot be told (no transaction recorded): left for an operator and counted', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 30 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED');
    await t.db.query(
      "UPDATE payment_requests SET pending_action = 'hold', pending_since = now() - interval '1 hour' WHERE id = $1",
      [c.uuid],
    );
    const r = await run();
    assert.ok(r.unknown >= 1);
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
    assert.equal(row?.pending_action, 'hold');
  });
});
