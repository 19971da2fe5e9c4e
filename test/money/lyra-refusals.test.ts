import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { giveLyraAccount } from '../fakes/lyra/give-account.ts';
import { guestPaysOnLyra } from '../fakes/lyra/guest-pays.ts';
import { type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const D = '2026-12-10';
const CHECKIN = '2026-12-12';

// What Lyra refused, behind answers that never came: a refund refused (or cancelled) gave
// nothing back and the request can still be refunded; a CREDIT of an earlier refund is never
// taken for this one; and what reconcile cannot decide becomes, after IN_DOUBT_ESCALATE_HOURS,
// an incident a manager settles by hand, on the Books page or with `payreq books settle`.
describe(`Lyra: refusals read as refusals, and nothing waits for ever (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let fake: LyraFake;
  before(async () => {
    fake = await startLyraFake();
    t = await startTestApp({ env: { PROVIDER_TIMEOUT_MS: '1000', IN_DOUBT_ESCALATE_HOURS: '24' } });
    await giveLyraAccount(t, t.tenant.tenantId, fake);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  const tenant = () => ({ tenantId: t.tenant.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 });
  const admin = { source: 'admin' as const, actor: 'user:test' };
  const find = (id: string) => t.repos.paymentRequests.find(t.tenant.tenantId, id);
  const rejects504 = (p: Promise<unknown>) =>
    assert.rejects(p, (err: { code?: string }) => err.code === 'outcome_unknown');
  /** The grace is over: the operation's call can no longer be under way. */
  const graceOver = (id: string) =>
    t.db.query("UPDATE money_ledger SET updated_at = now() - interval '1 day' WHERE payment_request_id = $1", [id]);
  const cli = (argv: string[]) => runCommand(argv, { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq });
  const ledger = (id: string, kind: string) =>
    t.db.query<{ id: string; state: string; provider_status: string | null; decline_code: string | null }>(
      'SELECT id::text, state, provider_status, decline_code FROM money_ledger WHERE payment_request_id = $1 AND kind = $2 ORDER BY id',
      [id, kind],
    );

  const guestPays = (id: string, reference: string, type: 'IMPRINT' | 'DEPOSIT', cents: number, pan: string) =>
    guestPaysOnLyra(t, fake, { uuid: id, reference }, { type, cents, pan });

  /** A DEPOSIT paid on Lyra and sent to the bank (a refund is then a CREDIT). */
  async function remittedDeposit(amount: number) {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount });
    await arrangeStatus(t.db, c.uuid, 'PENDING');
    await guestPays(c.uuid, c.reference, 'DEPOSIT', amount * 100, LYRA_CARDS.accepted);
    fake.store.runBatch();
    const payment = fake.store.order(c.uuid)[0];
    assert.equal(payment?.detailedStatus, 'CAPTURED');
    return { id: c.uuid, payment: payment.uuid };
  }

  test('a refund Lyra refused, whose answer was lost: nothing given back, and the request can still be refunded', async () => {
    const { id, payment } = await remittedDeposit(90);
    fake.store.refuseNextRefund(payment);
    fake.failNext('Transaction/CancelOrRefund', 'lose');
    await rejects504(t.app.payreq.commands.refund(tenant(), id, 30, admin));
    await graceOver(id);
    const r = await t.app.payreq.reconciler.reconcile();
    assert.equal(r.refused, 1, JSON.stringify(r));
    const row = await find(id);
    assert.deepEqual([row?.status, row?.amount_refunded, row?.pending_action], ['CAPTURED', 0, null]);
    const [refund] = (await ledger(id, 'refund')).rows;
    assert.deepEqual(
      [refund?.state, refund?.provider_status, refund?.decline_code],
      ['refused', 'REFUSED', 'ACQ_001/05'],
    );
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined, 'the books agree with Lyra');
    // The refused CREDIT is never taken for the next refund of the same amount, lost too.
    fake.failNext('Transaction/CancelOrRefund', 'hang');
    await rejects504(t.app.payreq.commands.refund(tenant(), id, 30, admin));
    await graceOver(id);
    await t.app.payreq.reconciler.reconcile();
    assert.equal((await find(id))?.amount_refunded, 0, 'a refused CREDIT gave nothing back');
    // The request is free: a refund that goes through is counted once.
    await t.app.payreq.commands.refund(tenant(), id, 30, admin);
    assert.equal((await find(id))?.amount_refunded, 3000);
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
  });

  test('a CREDIT Lyra cancelled is no refund: the refund in doubt is settled refused', async () => {
    const { id, payment } = await remittedDeposit(60);
    fake.failNext('Transaction/CancelOrRefund', 'lose');
    await rejects504(t.app.payreq.commands.refund(tenant(), id, 20, admin));
    const credit = fake.store.order(id).find((x) => x.operationType === 'CREDIT');
    assert.ok(credit, 'Lyra made the CREDIT');
    fake.store.cancelCredit(credit.uuid);
    await graceOver(id);
    await t.app.payreq.reconciler.reconcile();
    assert.deepEqual([(await find(id))?.amount_refunded, (await ledger(id, 'refund')).rows[0]?.state], [0, 'refused']);
    assert.equal(fake.store.get(payment).refundAmount, 0);
  });

  test('a refund answered with the payment unchanged is in doubt, not done; reconcile reads what happened', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 50 });
    await arrangeStatus(t.db, c.uuid, 'PENDING');
    await guestPays(c.uuid, c.reference, 'DEPOSIT', 5000, LYRA_CARDS.accepted);
    // Lyra cancels the payment, but its answer shows it as it was (AUTHORISED, 5000): the
    // amount did not fall in the answer, so the answer proves nothing.
    fake.failNext('Transaction/CancelOrRefund', { answerStatus: 'AUTHORISED' });
    await rejects504(t.app.payreq.commands.refund(tenant(), c.uuid, undefined, admin));
    assert.equal((await find(c.uuid))?.amount_refunded, 0, 'not counted on an answer that shows nothing');
    await graceOver(c.uuid);
    await t.app.payreq.reconciler.reconcile();
    const row = await find(c.uuid);
    assert.deepEqual([row?.status, row?.amount_refunded], ['REFUNDED', 5000], 'the payment cancelled is the refund');
  });

  test('undecided past IN_DOUBT_ESCALATE_HOURS: an incident on the Books page, settled by hand, audited', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 70, reservation_data: { checkin: CHECKIN } });
    await arrangeStatus(t.db, c.uuid, 'PENDING');
    await guestPays(c.uuid, c.reference, 'IMPRINT', 0, LYRA_CARDS.accepted);
    // The hold is placed, its answer lost; Lyra then shows it in a status no table knows.
    fake.failNext('Charge/CreatePayment', 'lose');
    const run = await createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );
    assert.equal(run.in_doubt, 1);
    const hold = fake.store.order(c.uuid).find((x) => x.operationType === 'DEBIT');
    assert.ok(hold);
    fake.store.setStatus(hold.uuid, 'SOMETHING_NEW');
    await graceOver(c.uuid);
    const r = await t.app.payreq.reconciler.reconcile();
    assert.equal(r.unknown, 1, 'an unknown status decides nothing');
    const [row] = (await ledger(c.uuid, 'hold')).rows;
    assert.equal(row?.state, 'in_doubt');
    const operation = row?.id as string;

    await createUser(t, 'settle-manager', t.tenant.tenantId, 'manager');
    const office = await new ControlClient(t).signedIn('settle-manager');
    // Before the escalation delay: reconcile's to settle, no form.
    let page = await office.get('/control/books');
    assert.ok(page.body.includes(`#${operation}`), 'the operation is listed');
    assert.ok(!page.body.includes('action="/control/books/settle"'), 'no form before the delay');
    await t.db.query("UPDATE money_ledger SET created_at = now() - interval '25 hours' WHERE id = $1", [operation]);
    page = await office.get('/control/books');
    assert.ok(page.body.includes('action="/control/books/settle"'), 'the form, once undecided for 24 hours');
    assert.match(page.body, /Undecided for more than 24 hours/);

    // Bad input changes nothing: no reason, an unknown decision, another hotel's operation.
    const bad = await office.post('/control/books/settle', { operation, as: 'maybe', reason: 'x' });
    assert.equal(bad.statusCode, 303);
    const other = await t.newTenant('Hôtel Voisin');
    await createUser(t, 'other-manager', other.tenantId, 'manager');
    const stranger = await new ControlClient(t).signedIn('other-manager');
    await stranger.get('/control/books');
    const theirs = await stranger.post('/control/books/settle', { operation, as: 'done', reason: 'seen' });
    assert.equal(theirs.statusCode, 303);
    assert.equal((await ledger(c.uuid, 'hold')).rows[0]?.state, 'in_doubt', 'nothing settled by bad input');

    // The manager saw the hold refused in Lyra's back office: a failed guarantee.
    await office.get('/control/books');
    const ok = await office.post('/control/books/settle', {
      operation,
      as: 'refused',
      reason: 'Back office shows REFUSED, code 51',
    });
    assert.equal(ok.statusCode, 303);
    assert.equal((await ledger(c.uuid, 'hold')).rows[0]?.state, 'refused');
    const request = await find(c.uuid);
    assert.deepEqual([request?.status, request?.pending_action], ['ERROR', null]);
    const audit = await t.db.query<{ username: string; detail: { as: string; reason: string } }>(
      "SELECT username, detail FROM admin_audit WHERE action = 'ledger.settle' AND target = $1",
      [operation],
    );
    assert.deepEqual(
      audit.rows.map((a) => [a.username, a.detail.as, a.detail.reason]),
      [['settle-manager', 'refused', 'Back office shows REFUSED, code 51']],
    );
    // Settled: no second decision, by the page or the command.
    const again = await cli(['books', 'settle', '--operation', operation, '--as', 'done', '--reason', 'oops']);
    assert.equal(again.exitCode, 1);
    assert.match(again.stderr, /not undecided/);
  });

  test('payreq books settle: a refund in doubt settled done by hand counts once; bad input is a clear error', async () => {
    const { id } = await remittedDeposit(40);
    fake.failNext('Transaction/CancelOrRefund', 'lose');
    await rejects504(t.app.payreq.commands.refund(tenant(), id, 10, admin));
    const [row] = (await ledger(id, 'refund')).rows;
    const operation = row?.id as string;
    for (const argv of [
      ['--operation', 'abc', '--as', 'done', '--reason', 'x'],
      ['--operation', operation, '--as', 'maybe', '--reason', 'x'],
      ['--operation', operation, '--as', 'done'],
      ['--operation', '999999999', '--as', 'done', '--reason', 'x'],
      ['--operation', operation, '--as', 'refused', '--reason', 'nul \u0000 inside'],
    ]) {
      const r = await cli(['books', 'settle', ...argv]);
      assert.equal(r.exitCode, 1, argv.join(' '));
      assert.ok(r.stderr.length > 0 && !/at \w+ \(/.test(r.stderr), r.stderr);
      assert.match(r.stderr, /--(operation|as|reason)|no operation/, 'the error says what is wrong');
    }
    const credit = fake.store.order(id).find((x) => x.operationType === 'CREDIT');
    assert.ok(credit);
    // Too young: reconcile may still settle it. Refused, saying what Lyra shows: the CREDIT.
    const young = await cli(['books', 'settle', '--operation', operation, '--as', 'done', '--reason', 'seen']);
    assert.equal(young.exitCode, 1);
    assert.match(young.stderr, /minutes old.*--force.*the provider shows: done \(transaction /);
    assert.ok(young.stderr.includes(credit.uuid), young.stderr);
    await t.db.query("UPDATE money_ledger SET created_at = now() - interval '25 hours' WHERE id = $1::bigint", [
      operation,
    ]);
    const r = await cli([
      'books',
      'settle',
      '--operation',
      operation,
      '--as',
      'done',
      '--reason',
      'CREDIT accepted in the back office',
      '--transaction',
      credit.uuid,
      '--username',
      'accountant',
      '--json',
    ]);
    assert.equal(r.exitCode, 0, r.stderr);
    const { provider_shows: shows, ...settled } = JSON.parse(r.stdout);
    assert.deepEqual(settled, {
      operation,
      payment_request_id: id,
      kind: 'refund',
      state: 'succeeded',
      transaction_id: credit.uuid,
      forced: false,
    });
    assert.match(shows, new RegExp(`^done \\(transaction ${credit.uuid}`));
    assert.deepEqual([(await find(id))?.amount_refunded, (await find(id))?.pending_action], [1000, null]);
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
  });

  /** An IMPRINT whose card is registered on Lyra, ready for the daily job's hold. */
  async function registered(amount: number) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount, reservation_data: { checkin: CHECKIN } });
    await arrangeStatus(t.db, c.uuid, 'PENDING');
    await guestPays(c.uuid, c.reference, 'IMPRINT', 0, LYRA_CARDS.accepted);
    return c.uuid;
  }
  const holdJob = () =>
    createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );

  test('a silent hold Lyra takes as a payment (AUTHORISED) is never kept as a hold: cancelled, a failed guarantee', async () => {
    const id = await registered(90);
    fake.store.capturesAutomatically = true;
    try {
      const run = await holdJob();
      assert.equal(run.held, 0, JSON.stringify(run));
    } finally {
      fake.store.capturesAutomatically = false;
    }
    const debit = fake.store.order(id).find((x) => x.operationType === 'DEBIT');
    assert.equal(debit?.detailedStatus, 'CANCELLED', 'cancelled before the nightly batch takes it');
    fake.store.runBatch();
    assert.equal(fake.store.get(debit.uuid).detailedStatus, 'CANCELLED', 'nothing remitted');
    const row = await find(id);
    assert.deepEqual([row?.status, row?.guarantee_failures], ['ERROR', 1], 'a failed guarantee, the guest asked again');
    const hold = await t.db.query<{ state: string; error: string }>(
      "SELECT state, error FROM money_ledger WHERE payment_request_id = $1 AND kind = 'hold'",
      [id],
    );
    assert.equal(hold.rows[0]?.state, 'refused');
    assert.match(hold.rows[0]?.error ?? '', /captured automatically/, 'the reason the hotel can act on');
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
  });

  for (const outcome of ['AUTHORISED', 'REFUSED'] as const) {
    test(`a capture answered WAITING_AUTHORISATION is in flight until Lyra decides: ${outcome}`, async () => {
      const id = await registered(60);
      await holdJob();
      const hold = (await find(id))?.provider_transaction_id as string;
      fake.store.validateWaits(hold, outcome);
      await rejects504(t.app.payreq.commands.capture(tenant(), id, undefined, admin));
      await graceOver(id);
      const waiting = await t.app.payreq.reconciler.reconcile();
      assert.equal(waiting.unknown, 1, 'in flight: it waits, whatever the grace');
      assert.equal((await find(id))?.pending_action, 'capture');
      fake.remit();
      await t.app.payreq.reconciler.reconcile();
      const row = await find(id);
      if (outcome === 'AUTHORISED') {
        assert.deepEqual([row?.status, row?.amount_captured, row?.pending_action], ['CAPTURED', 6000, null]);
        assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
      } else {
        // Refused at the batch: nothing was captured, and the hold is gone with it.
        assert.deepEqual([row?.status, row?.amount_captured, row?.pending_action], ['AUTHORISED_TO_VALIDATE', 0, null]);
        const [capture] = (await ledger(id, 'capture')).rows;
        assert.deepEqual([capture?.state, capture?.provider_status], ['refused', 'REFUSED']);
        const problem = await t.app.payreq.reconciler.checkRequest(id);
        assert.match(problem?.problem ?? '', /the request's hold is not open at the provider/);
      }
    });
  }
});
