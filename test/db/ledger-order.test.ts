import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * A request's ledger rows come back in the order they were written, by their bigint id: the
 * id travels as text, and a bare `ORDER BY id` sorted that text ("10" before "9"), so the last
 * row read was not the last one written, and reconcile's "nothing moved since" never held for a
 * request past its ninth row (a stray hold then never given back).
 */
describe(`a request's ledger, in the order written (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t?.close());

  test('twelve rows: read back 1 to 12, not 1, 10, 11, 12, 2…', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 10 });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push(
        await t.repos.ledger.recordReported(t.db, {
          paymentRequestId: c.uuid,
          tenantId: t.tenant.tenantId,
          kind: 'verification',
          amount: 0,
          currency: 'EUR',
          provider: 'sandbox',
          providerTransactionId: `txn_${i}`,
          idempotencyKey: `order-test-${c.uuid}-${i}`,
          actor: { source: 'ipn', actor: 'test' },
        }),
      );
    }
    const read = (await t.repos.ledger.forRequest(c.uuid)).map((e) => e.id);
    assert.deepEqual(read, ids);
    assert.ok(
      ids.some((id) => id.length !== ids[0]?.length) || ids.length === 12,
      'ids of several lengths, or at least twelve',
    );
  });
});
