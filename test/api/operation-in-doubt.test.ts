import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider, gate } from '../helpers/providers.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

// While one operation on a request is in doubt (the provider has not answered, and its view
// cannot tell yet), only a retry of that very operation (its own Idempotency-Key) may answer
// 504 outcome_unknown. Any other call (another action, the same action under another key or
// with none) was never sent: it gets 409 operation_in_progress naming what is in doubt, so a
// PMS never records "release possibly done" when a capture is what may have happened.
describe(`calls on a request whose operation is in doubt (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  const late = gate();
  before(async () => {
    t = await startTestApp({ provider: provider.provider, env: { PROVIDER_TIMEOUT_MS: '300' } });
  });
  after(async () => {
    late.open();
    await t.close();
  });

  const tenant = () => ({ tenantId: t.tenant.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 });
  const admin = { source: 'admin' as const, actor: 'user:test' };
  const find = (id: string) => t.repos.paymentRequests.find(t.tenant.tenantId, id);
  const call = (id: string, action: string, key?: string, method: 'POST' | 'DELETE' = 'POST') =>
    t.call({
      method,
      url: action === 'delete' ? `/api/payment-requests/${id}/` : `/api/payment-requests/${id}/${action}/`,
      ...(key ? { headers: { ...t.tenant.headers, 'idempotency-key': key } } : {}),
    });
  const ledgerKinds = async (id: string) =>
    (
      await t.db.query<{ kind: string; state: string }>(
        "SELECT kind, state FROM money_ledger WHERE payment_request_id = $1 AND kind <> 'hold' ORDER BY id",
        [id],
      )
    ).rows.map((r) => `${r.kind}:${r.state}`);

  async function held(amount: number) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    return c.uuid;
  }

  /** Runs `first` while the provider hangs past the timeout: its operation is left in doubt. */
  async function inDoubt<T>(first: () => Promise<T>): Promise<T> {
    provider.holdUntil(late.opened);
    try {
      return await first();
    } finally {
      provider.holdUntil(undefined);
    }
  }

  test('a capture in doubt: release, cancel, delete and captures under other keys get 409 naming it; its own retry 504', async () => {
    const id = await held(120.5);
    const first = await inDoubt(() => call(id, 'capture', 'pms-capture-A'));
    assert.equal(first.statusCode, 504, first.body);
    assert.equal(first.json().code, 'outcome_unknown');

    const others = [
      ['release', undefined],
      ['release', 'pms-release-B'],
      ['capture', 'pms-capture-B'],
      ['capture', undefined],
      ['cancel', undefined],
      ['delete', undefined],
    ] as const;
    for (const [action, key] of others) {
      const r = await call(id, action, key, action === 'delete' ? 'DELETE' : 'POST');
      assert.equal(r.statusCode, 409, `${action} ${key ?? 'without a key'}: ${r.body}`);
      const body = r.json();
      assert.equal(body.code, 'operation_in_progress');
      assert.equal(body.in_doubt?.action, 'capture', r.body);
      assert.equal(body.in_doubt?.amount, 120.5);
      assert.equal(body.in_doubt?.currency, 'EUR');
      assert.ok(!Number.isNaN(Date.parse(body.in_doubt?.requested_at)), r.body);
      assert.match(body.error, /capture .*in doubt/);
    }
    // Nothing was sent for any of them: the ledger and the provider know of one capture only.
    assert.deepEqual(await ledgerKinds(id), ['capture:in_doubt']);
    assert.equal(provider.count('release', id), 0);
    assert.equal(provider.count('capture', id), 1);

    const retry = await call(id, 'capture', 'pms-capture-A');
    assert.equal(retry.statusCode, 504, retry.body);
    assert.equal(retry.json().code, 'outcome_unknown');
    assert.equal(provider.count('capture', id), 1, 'the retry asked nobody');
  });

  test('a release in doubt: a capture gets 409 naming the release, without its amount', async () => {
    const id = await held(40);
    assert.equal((await inDoubt(() => call(id, 'release'))).statusCode, 504);
    const r = await call(id, 'capture', 'pms-capture-after-release');
    assert.equal(r.statusCode, 409, r.body);
    assert.deepEqual([r.json().in_doubt?.action, r.json().in_doubt?.amount], ['release', undefined]);
    assert.equal(provider.count('capture', id), 0);
  });

  test('a refund in doubt: another refund (another key) gets 409 naming it, its own retry 504', async () => {
    const id = await held(90);
    assert.equal((await call(id, 'capture')).statusCode, 200);
    const own = { retryKey: `control:${id}:1` };
    await assert.rejects(
      inDoubt(() => t.app.payreq.commands.refund(tenant(), id, 25, admin, own)),
      (err: { code?: string }) => err.code === 'outcome_unknown',
    );
    await assert.rejects(
      t.app.payreq.commands.refund(tenant(), id, 10, admin, { retryKey: `control:${id}:2` }),
      (err: { code?: string; httpStatus?: number; extra?: { in_doubt?: { action: string; amount?: number } } }) =>
        err.code === 'operation_in_progress' &&
        err.httpStatus === 409 &&
        err.extra?.in_doubt?.action === 'refund' &&
        err.extra.in_doubt.amount === 25,
    );
    await assert.rejects(
      t.app.payreq.commands.refund(tenant(), id, 25, admin, own),
      (err: { code?: string }) => err.code === 'outcome_unknown',
    );
    assert.equal(provider.count('refund', id), 1);
  });

  test('after a 504, the key stays bound to its body: another body is 422 naming it; the same body gets the true outcome', async () => {
    const id = await held(100);
    assert.equal((await call(id, 'capture')).statusCode, 200);
    const refund = (amount: number) =>
      t.call({
        method: 'POST',
        url: `/api/payment-requests/${id}/refund/`,
        headers: { ...t.tenant.headers, 'idempotency-key': 'pms-refund-K1' },
        payload: { amount },
      });
    // The refund of 10 reaches the provider and is done; its answer is lost.
    provider.loseAnswers(true);
    let first: Awaited<ReturnType<typeof refund>>;
    try {
      first = await refund(10);
    } finally {
      provider.loseAnswers(false);
    }
    assert.equal(first.statusCode, 504, first.body);
    const isReused = (r: Awaited<ReturnType<typeof refund>>) => {
      assert.equal(r.statusCode, 422, r.body);
      assert.equal(r.json().code, 'idempotency_key_reused');
      assert.match(r.json().details?.[0]?.message ?? '', new RegExp(`POST /api/payment-requests/${id}/refund/`));
    };
    isReused(await refund(90));
    // Settled by reconcile (the provider shows it done): still bound, twice over.
    await t.db.query("UPDATE money_ledger SET updated_at = now() - interval '1 day' WHERE payment_request_id = $1", [
      id,
    ]);
    await t.app.payreq.reconciler.reconcile();
    isReused(await refund(90));
    isReused(await refund(90));
    // The genuine retry gets the true outcome: done, once.
    const retry = await refund(10);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.json().status, 'CAPTURED', retry.body);
    assert.equal((await find(id))?.amount_refunded, 1000);
    assert.equal(provider.count('refund', id), 1, 'one refund asked of the provider');
  });

  test('once the late answer lands, the first capture is answered and the others see CAPTURED', async () => {
    const id = await held(60);
    assert.equal((await inDoubt(() => call(id, 'capture', 'pms-late'))).statusCode, 504);
    late.open();
    await eventually(async () => ((await find(id))?.status === 'CAPTURED' ? true : undefined), 'captured');
    assert.equal((await call(id, 'capture', 'pms-late')).statusCode, 200);
    const release = await call(id, 'release');
    assert.equal(release.statusCode, 400, release.body);
    assert.equal(release.json().code, 'invalid_status');
  });

  test('every response carried x-request-id; the only 5xx were the 504s of operations in doubt', () =>
    auditResponses(t, [504]));
});
