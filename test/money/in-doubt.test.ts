import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider, gate } from '../helpers/providers.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const D = '2026-12-10';
const CHECKIN = '2026-12-12';

// A provider that answers after the timeout, or whose answer is lost: every money operation is
// in doubt until someone knows, never "nothing changed" while it may have happened.
describe(`operations in doubt: capture, release, refund and the daily hold (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  before(async () => {
    t = await startTestApp({ provider: provider.provider, env: { PROVIDER_TIMEOUT_MS: '200' } });
  });
  after(() => t.close());

  const tenant = () => ({ tenantId: t.tenant.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 });
  const admin = { source: 'admin' as const, actor: 'user:test' };
  const find = (id: string) => t.repos.paymentRequests.find(t.tenant.tenantId, id);
  const statusBecomes = (id: string, status: string) =>
    eventually(async () => ((await find(id))?.status === status ? true : undefined), `${id} ${status}`);
  const ledgerStates = async (id: string, kind: string) =>
    (
      await t.db.query<{ state: string }>(
        'SELECT state FROM money_ledger WHERE payment_request_id = $1 AND kind = $2 ORDER BY id',
        [id, kind],
      )
    ).rows.map((r) => r.state);
  const isOutcomeUnknown = (err: { code?: string; httpStatus?: number }) =>
    err.code === 'outcome_unknown' && err.httpStatus === 504;

  async function held(amount = 90) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    return c.uuid;
  }

  /** An IMPRINT with a registered card and a check-in two days after D. */
  async function registered(card = '4242424242424242') {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 120, reservation_data: { checkin: CHECKIN } });
    const token = `tok_${randomBytes(12).toString('hex')}`;
    await t.db.query('INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year) VALUES ($1, $2, 12, 2031)', [
      token,
      card,
    ]);
    await t.app.payreq.notifications.apply('sandbox', {
      eventId: `evt_${randomBytes(8).toString('hex')}`,
      paymentRequestId: c.uuid,
      outcome: 'registered',
      cardToken: token,
      maskedPan: '424242XXXXXX4242',
      expiryMonth: 12,
      expiryYear: 2031,
    });
    return c.uuid;
  }
  const job = () =>
    createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );

  test('release after the timeout: in doubt, claim kept, then the late answer makes it CANCELLED', async () => {
    const id = await held();
    const late = gate();
    provider.holdUntil(late.opened);
    try {
      await assert.rejects(t.app.payreq.commands.release(tenant(), id, admin), isOutcomeUnknown);
    } finally {
      provider.holdUntil(undefined);
    }
    assert.deepEqual(await ledgerStates(id, 'release'), ['in_doubt']);
    assert.equal((await find(id))?.pending_action, 'release');
    late.open();
    await statusBecomes(id, 'CANCELLED');
    assert.deepEqual(await ledgerStates(id, 'release'), ['succeeded']);
  });

  test('refund after the timeout: in doubt, then the late answer makes it REFUNDED with its amount', async () => {
    const id = await held(75);
    await t.app.payreq.commands.capture(tenant(), id, undefined, admin);
    const late = gate();
    provider.holdUntil(late.opened);
    try {
      await assert.rejects(t.app.payreq.commands.refund(tenant(), id, 25, admin), isOutcomeUnknown);
    } finally {
      provider.holdUntil(undefined);
    }
    late.open();
    await eventually(async () => ((await find(id))?.amount_refunded === 2500 ? true : undefined), 'refund recorded');
    assert.equal((await find(id))?.status, 'CAPTURED', 'a partial refund keeps CAPTURED');
  });

  test('the daily hold in doubt: no second hold across two runs, the late answer places it', async () => {
    const id = await registered();
    const late = gate();
    provider.holdUntil(late.opened);
    let first: Awaited<ReturnType<typeof job>>;
    try {
      first = await job();
    } finally {
      provider.holdUntil(undefined);
    }
    assert.equal(first.in_doubt, 1, JSON.stringify(first));
    const second = await job();
    assert.equal(second.held, 0, JSON.stringify(second));
    assert.equal(provider.count('hold', id), 1, 'one hold asked across two runs');
    late.open();
    await statusBecomes(id, 'AUTHORISED_TO_VALIDATE');
    const holds = await t.db.query("SELECT 1 FROM sandbox_transactions WHERE order_id = $1 AND kind = 'hold'", [id]);
    assert.equal(holds.rows.length, 1);
  });

  test('the daily hold in doubt, then refused late: a failed guarantee all the same (ERROR, event, e-mails queued)', async () => {
    const id = await registered('4000000000000341');
    const late = gate();
    provider.holdUntil(late.opened);
    try {
      assert.equal((await job()).in_doubt, 1);
    } finally {
      provider.holdUntil(undefined);
    }
    late.open();
    await statusBecomes(id, 'ERROR');
    const row = await find(id);
    assert.equal(row?.guarantee_failures, 1);
    const events = await t.db.query<{ type: string }>(
      'SELECT type FROM events WHERE payment_request_id = $1 ORDER BY id DESC LIMIT 1',
      [id],
    );
    assert.equal(events.rows[0]?.type, 'payment_request.guarantee_failed');
    const mails = await t.db.query<{ kind: string }>(
      "SELECT kind FROM email_outbox WHERE payment_request_id = $1 AND kind LIKE 'guarantee_failed%'",
      [id],
    );
    assert.deepEqual(
      mails.rows.map((m) => m.kind),
      ['guarantee_failed_guest'],
      'the guest is asked (the tenant has no contact address: no hotel e-mail)',
    );
  });

  test('a hold whose answer is lost for good: reconcile finds it by its key; the next run places none', async () => {
    const id = await registered();
    provider.loseAnswers(true);
    try {
      assert.equal((await job()).in_doubt, 1);
    } finally {
      provider.loseAnswers(false);
    }
    assert.equal((await job()).held, 0);
    const r = await t.app.payreq.reconciler.reconcile();
    assert.ok(r.settled >= 1, JSON.stringify(r));
    const row = await find(id);
    assert.equal(row?.status, 'AUTHORISED_TO_VALIDATE');
    assert.ok(row?.hold_expires_at);
    assert.equal(provider.count('hold', id), 1);
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
  });

  test('a capture retried with the same Idempotency-Key while in doubt calls the provider once', async () => {
    const id = await held(60);
    const late = gate();
    provider.holdUntil(late.opened);
    const headers = { ...t.tenant.headers, 'idempotency-key': `retry-${id}` };
    const url = `/api/payment-requests/${id}/capture/`;
    try {
      assert.equal((await t.call({ method: 'POST', url, headers })).statusCode, 504);
      // Retried at once: still in doubt, still no second call.
      const again = await t.call({ method: 'POST', url, headers });
      assert.equal(again.statusCode, 504, again.body);
    } finally {
      provider.holdUntil(undefined);
    }
    late.open();
    await statusBecomes(id, 'CAPTURED');
    const done = await t.call({ method: 'POST', url, headers });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(provider.count('capture', id), 1);
  });

  test('a partial refund submitted twice under one key refunds once (the status would allow a second)', async () => {
    const id = await held(100);
    await t.app.payreq.commands.capture(tenant(), id, undefined, admin);
    const once = { retryKey: `control:${id}` };
    const first = await t.app.payreq.commands.refund(tenant(), id, 30, admin, once);
    const second = await t.app.payreq.commands.refund(tenant(), id, 30, admin, once);
    assert.deepEqual(second, first);
    const row = await find(id);
    assert.deepEqual([row?.status, row?.amount_refunded, row?.pending_action], ['CAPTURED', 3000, null]);
    assert.equal(provider.count('refund', id), 1);
    // Another key is another refund.
    await t.app.payreq.commands.refund(tenant(), id, 30, admin, { retryKey: `control:${id}:2` });
    assert.equal((await find(id))?.amount_refunded, 6000);
  });
});
