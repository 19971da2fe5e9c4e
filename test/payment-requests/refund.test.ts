import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/domain/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider, gate } from '../helpers/providers.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

// Refunds are the administration interface's action, so they are driven through the
// shared command, against the real sandbox.
describe(`refund through the provider (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  before(async () => {
    t = await startTestApp({ provider: provider.provider });
  });
  after(() => t.close());

  const admin = { source: 'admin' as const, actor: 'user:test' };
  const tenant = () => ({ tenantId: t.tenant.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 });
  const detail = async (id: string) => (await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json();

  async function captured(amount: number, capture?: number) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    const r = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${c.uuid}/capture/`,
      ...(capture === undefined ? {} : { payload: { amount: capture } }),
    });
    assert.equal(r.statusCode, 200, r.body);
    return c.uuid;
  }

  test('a full refund makes the request REFUNDED with amount_refunded = amount_captured', async () => {
    const id = await captured(120);
    const r = await t.app.payreq.commands.refund(tenant(), id, undefined, admin);
    assert.equal(r.status, 'REFUNDED');
    const d = await detail(id);
    assert.equal(d.amount_refunded, 120);
    assert.equal(d.order_cycle, 'CLOSED');
    const last = (await t.repos.paymentRequests.history(id)).at(-1);
    assert.deepEqual([last?.from_status, last?.to_status, last?.source], ['CAPTURED', 'REFUNDED', 'admin']);
  });

  test('partial refunds keep it CAPTURED until the last cent is back', async () => {
    const id = await captured(200, 80);
    assert.equal((await t.app.payreq.commands.refund(tenant(), id, 30, admin)).status, 'CAPTURED');
    assert.equal((await detail(id)).amount_refunded, 30);
    await assert.rejects(t.app.payreq.commands.refund(tenant(), id, 50.01, admin), (e: unknown) => {
      return e instanceof AppError && e.httpStatus === 400;
    });
    assert.equal((await t.app.payreq.commands.refund(tenant(), id, 50, admin)).status, 'REFUNDED');
    assert.equal((await detail(id)).amount_refunded, 80);
  });

  test('only a captured request can be refunded, and another tenant cannot', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 10 });
    await assert.rejects(t.app.payreq.commands.refund(tenant(), c.uuid, undefined, admin), (e: unknown) => {
      return e instanceof AppError && e.httpStatus === 400 && /allowed: CAPTURED/.test(e.message);
    });
    const id = await captured(40);
    const other = await t.newTenant('Other');
    await assert.rejects(
      t.app.payreq.commands.refund({ ...tenant(), tenantId: other.tenantId }, id, undefined, admin),
      (e: unknown) => e instanceof AppError && e.httpStatus === 404,
    );
  });

  test('two concurrent refunds: one wins, the provider is asked once', async () => {
    const id = await captured(60);
    const g = gate();
    provider.holdUntil(g.opened);
    const entered = provider.entered;
    const first = t.app.payreq.commands.refund(tenant(), id, undefined, admin);
    // The second starts once the first holds the claim and waits on the provider.
    for (let i = 0; provider.entered === entered && i < 500; i++) await new Promise((r) => setTimeout(r, 10));
    const second = t.app.payreq.commands.refund(tenant(), id, undefined, admin).then(
      () => 'won',
      (e: unknown) => (e instanceof AppError ? e.httpStatus : 'other'),
    );
    assert.equal(await second, 409, 'the second finds the request claimed');
    g.open();
    provider.holdUntil(undefined);
    assert.equal((await first).status, 'REFUNDED');
    assert.equal(provider.count('refund', id), 1);
  });
});
