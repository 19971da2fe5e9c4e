import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database, QueryOptions } from '../../src/db/index.ts';
import {
  createDeferredPayments,
  type DeferredPaymentsOptions,
  deferredHoldsRepository,
} from '../../src/holds/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider, gate } from '../helpers/providers.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const D = '2026-12-10';
const CHECKIN = '2026-12-12';

/**
 * The app's own database connection, able to hold the next statement that matches before it is
 * sent: its caller stalls there, as a process does on a long pause, while others go on.
 */
function stallingDatabase() {
  let next: { match: RegExp; reached: () => void; until: Promise<void> } | undefined;
  return {
    stallNext(match: RegExp, reached: () => void, until: Promise<void>) {
      next = { match, reached, until };
    },
    wrap(real: Database): Database {
      return {
        engine: real.engine,
        async query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
          const stall = next;
          if (stall?.match.test(sql)) {
            next = undefined;
            stall.reached();
            await stall.until;
          }
          return real.query<T>(sql, params, options);
        },
        transaction: (fn, options) => real.transaction(fn, options),
        ...(real.listen ? { listen: real.listen.bind(real) } : {}),
        close: () => real.close(),
      };
    },
  };
}

// A claim names its holder (a token written with it): a holder that stalls until its claim is
// freed and taken by another never reaches the provider, and what it writes afterwards changes
// nothing. Money moves once.
describe(`fenced claims: a freed claim is never used by its old holder (${ENGINE})`, () => {
  let t: TestApp;
  let shiftMs = 0;
  const provider = countingProvider();
  const database = stallingDatabase();
  before(async () => {
    t = await startTestApp({
      provider: provider.provider,
      database: (real) => database.wrap(real),
      now: () => new Date(Date.now() + shiftMs),
    });
  });
  after(() => t.close());

  const tenant = () => ({ tenantId: t.tenant.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 });
  const admin = { source: 'admin' as const, actor: 'user:test' };
  const find = (id: string) => t.repos.paymentRequests.find(t.tenant.tenantId, id);
  const ledger = async (id: string, kind: string) =>
    (
      await t.db.query<{ state: string; amount: number; claim_token: string | null }>(
        'SELECT state, amount, claim_token::text FROM money_ledger WHERE payment_request_id = $1 AND kind = $2 ORDER BY id',
        [id, kind],
      )
    ).rows;
  const job = (options: DeferredPaymentsOptions = {}) =>
    createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
      options,
    );

  /** An IMPRINT with a registered card and a check-in two days after D. */
  async function registered() {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 120, reservation_data: { checkin: CHECKIN } });
    const token = `tok_${randomBytes(12).toString('hex')}`;
    await t.db.query(
      "INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year) VALUES ($1, '4242424242424242', 12, 2031)",
      [token],
    );
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

  test('a refund stalled between its claim and its ledger row, its claim reaped and taken: it never refunds', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 80 });
    const id = c.uuid;
    await arrangeStatus(t.db, id, 'CAPTURED', { amountCaptured: 8000 });
    const reached = gate();
    const resume = gate();
    database.stallNext(/INSERT INTO money_ledger/, reached.open, resume.opened);
    const stalled = t.app.payreq.commands.refund(tenant(), id, 30, admin).then(
      () => 'answered as done',
      (err: { code?: string }) => err.code,
    );
    await reached.opened;
    assert.equal((await find(id))?.pending_action, 'refund', 'the stalled caller holds the claim');

    // Past the stale-claim grace, reconcile frees a claim with no ledger row: nothing was asked.
    const r = await t.app.payreq.reconciler.reconcile({ staleClaimSeconds: 0 });
    assert.equal(r.claims_released, 1);
    // Another caller takes the request and refunds.
    await t.app.payreq.commands.refund(tenant(), id, 20, admin);

    resume.open();
    assert.equal(await stalled, 'operation_in_progress');
    assert.equal(provider.count('refund', id), 1, 'the stalled caller reached the provider');
    const row = await find(id);
    assert.deepEqual([row?.status, row?.amount_refunded, row?.pending_action], ['CAPTURED', 2000, null]);
    const rows = await ledger(id, 'refund');
    assert.deepEqual(
      rows.map((l) => [l.state, l.amount]),
      [['succeeded', 2000]],
    );
    assert.ok(rows[0]?.claim_token, 'the ledger row records its claim');
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
  });

  test('a hold waiting its turn behind a hung call, its claim freed and taken: it is never sent', async () => {
    const a = await registered();
    const b = await registered();
    const before = provider.calls.length;
    const hang = gate();
    provider.holdUntil(hang.opened);
    const firstRun = job({ concurrency: 1 });
    await eventually(async () => (provider.calls.length > before ? true : undefined), 'the first hold to be sent');
    provider.holdUntil(undefined);
    const sent = provider.calls[before]?.ref.paymentRequestId;
    const waiting = sent === a ? b : a;
    assert.equal(provider.count('hold', waiting), 0);

    // Its turn is late: past the in-doubt grace since its ledger row was written. Reconcile
    // then believes the provider's "not there", fails the row and frees the claim...
    const grace = t.config.inDoubtGraceSeconds + 60;
    shiftMs += grace * 1000;
    await t.db.query(
      "UPDATE money_ledger SET updated_at = updated_at - make_interval(secs => $2) WHERE payment_request_id = $1 AND kind = 'hold'",
      [waiting, grace],
    );
    await t.app.payreq.reconciler.reconcile();
    assert.equal((await find(waiting))?.pending_action, null);
    // ...and the next run takes the request and places its hold.
    const second = await job();
    assert.equal(second.held, 1);

    hang.open();
    const first = await firstRun;
    assert.equal(first.held, 1);
    assert.equal(provider.count('hold', waiting), 1, 'the old holder sent a second hold');
    assert.equal((await find(waiting))?.status, 'AUTHORISED_TO_VALIDATE');
    assert.deepEqual(
      (await ledger(waiting, 'hold')).map((l) => l.state),
      ['failed', 'succeeded'],
    );
    assert.equal(await t.app.payreq.reconciler.checkRequest(waiting), undefined);
  });
});
