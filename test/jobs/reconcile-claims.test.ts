import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LedgerKind } from '../../src/db/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { sandboxOf } from '../helpers/providers.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

// A process that died between writing an operation's ledger row and recording the provider's
// answer leaves the row `requested` and the request claimed; reconcile settles it by the
// provider's view of the order, found by the operation's own key.
describe(`reconcile operations left by a dead process (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { IN_DOUBT_GRACE_SECONDS: '60' } });
  });
  after(() => t.close());

  const run = () => t.app.payreq.reconciler.reconcile();
  const detail = async (id: string) => (await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json();

  /** A hold claimed for `action` ten minutes ago, its ledger row written, by a process that never came back. */
  async function orphaned(action: 'capture' | 'release', amount = 100, age = '10 minutes') {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    await t.db.query(
      `UPDATE payment_requests SET pending_action = $2, pending_since = now() - $3::interval WHERE id = $1`,
      [c.uuid, action, age],
    );
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
    const key = `${action}:${randomUUID()}`;
    const kind: LedgerKind = action;
    const [requested] = await t.repos.ledger.request([
      {
        paymentRequestId: c.uuid,
        tenantId: t.tenant.tenantId,
        kind,
        amount: action === 'capture' ? 9000 : 0,
        currency: 'EUR',
        provider: 'sandbox',
        providerTransactionId: row?.provider_transaction_id ?? null,
        idempotencyKey: key,
        actor: { source: 'api', actor: 'key:dead' },
      },
    ]);
    const ledgerId = requested?.id;
    await t.db.query(`UPDATE money_ledger SET updated_at = now() - $2::interval WHERE id = $1`, [ledgerId, age]);
    const call = {
      orderId: c.uuid,
      reference: c.reference,
      currency: 'EUR' as const,
      transactionId: row?.provider_transaction_id ?? '',
      idempotencyKey: key,
    };
    return { id: c.uuid, call, ledgerId };
  }

  const ledgerState = async (id: string | undefined) =>
    (await t.db.query<{ state: string }>('SELECT state FROM money_ledger WHERE id = $1', [id])).rows[0]?.state;

  test('a capture the provider did (found by its key) is recorded as CAPTURED, with its amount', async () => {
    const { id, call, ledgerId } = await orphaned('capture', 250);
    await sandboxOf(t.app).capture({ ...call, amountCents: 9000 }); // what the dead process got done
    const r = await run();
    assert.ok(r.settled >= 1, JSON.stringify(r));
    const d = await detail(id);
    assert.equal(d.status, 'CAPTURED');
    assert.equal(d.amount_captured, 90);
    assert.equal(await ledgerState(ledgerId), 'succeeded');
    const last = (await t.repos.paymentRequests.history(id)).at(-1);
    assert.deepEqual([last?.to_status, last?.source, last?.actor], ['CAPTURED', 'api', 'key:dead']);
    assert.equal(r.mismatches.filter((m) => m.payment_request_id === id).length, 0);
  });

  test('a release the provider did is recorded as CANCELLED', async () => {
    const { id, call } = await orphaned('release');
    await sandboxOf(t.app).release(call);
    await run();
    assert.equal((await detail(id)).status, 'CANCELLED');
  });

  test('a capture the provider never saw: the row fails, the claim is given back, the hotel can capture', async () => {
    const { id, ledgerId } = await orphaned('capture');
    await run();
    assert.equal(await ledgerState(ledgerId), 'failed');
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, id);
    assert.deepEqual([row?.status, row?.pending_action], ['AUTHORISED_TO_VALIDATE', null]);
    const r = await t.call({ method: 'POST', url: `/api/payment-requests/${id}/capture/` });
    assert.equal(r.statusCode, 200, r.body);
  });

  test('an operation younger than the grace period is left alone: its call may still land', async () => {
    const { id, ledgerId } = await orphaned('capture', 30, '5 seconds');
    await run();
    assert.equal(await ledgerState(ledgerId), 'requested');
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, id);
    assert.equal(row?.pending_action, 'capture');
  });

  test('a claim whose process died before writing any ledger row is freed: nothing was asked', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 30 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    await t.db.query(
      "UPDATE payment_requests SET pending_action = 'capture', pending_since = now() - interval '1 hour' WHERE id = $1",
      [c.uuid],
    );
    const r = await run();
    assert.ok(r.claims_released >= 1);
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
    assert.equal(row?.pending_action, null);
  });
});
