import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { dateIn, SCHEDULED_JOBS } from '../../src/jobs/index.ts';
import type { StripeObject } from '../fakes/stripe/fake-store.ts';
import { useStripeAccount } from '../fakes/stripe/give-account.ts';
import { openCheckout, submitCheckout } from '../fakes/stripe/guest-pays.ts';
import { type StripeFake, startStripeFake } from '../fakes/stripe/stripe-fake.ts';
import { STRIPE_CARDS } from '../fakes/stripe/test-cards.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

type Counts = { remittances: number; lines: number; matched: number; unmatched: number };

/**
 * `payreq payouts fetch` (and its alias `settlements fetch`) against the Stripe fake over real
 * HTTP: a payout of two guests' payments, a refund, Stripe's fees and a sale payreq never made,
 * stored as a remittance and matched line by line.
 */
describe(`a Stripe payout fetched and matched line by line (${ENGINE})`, { timeout: 300_000 }, () => {
  let t: ListeningApp;
  let fake: StripeFake;
  before(async () => {
    fake = await startStripeFake();
    t = await startListeningApp({ env: { PROVIDER_TIMEOUT_MS: '3000' } });
    await useStripeAccount(t, t.tenant.tenantId, fake);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  const cli = (...argv: string[]) =>
    runCommand(argv, { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq });
  const fetchJson = async (...argv: string[]): Promise<Counts> => {
    const r = await cli('payouts', 'fetch', '--tenant', t.tenant.tenantId, ...argv, '--json');
    assert.equal(r.exitCode, 0, r.stderr);
    return JSON.parse(r.stdout) as Counts;
  };
  const status = async (id: string) => {
    const r = await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` });
    return (r.json() as { status: string }).status;
  };

  /** A DEPOSIT the guest pays on Checkout; the webhook records it. */
  async function paid(amount: number) {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount });
    const visit = await openCheckout(t, c.payment_link);
    assert.ok(visit);
    const done = await submitCheckout(visit, STRIPE_CARDS.visa);
    assert.equal(done.status, 303, JSON.stringify(done));
    await eventually(async () => ((await status(c.uuid)) === 'CAPTURED' ? true : undefined), 'paid');
    return c;
  }

  /** An IMPRINT saved on Checkout, held by the daily job (check-in in two days), captured in part. */
  async function captured(amount: number, capture: number) {
    const today = dateIn('Europe/Paris', new Date());
    const checkin = new Date(Date.parse(`${today}T12:00:00Z`) + 2 * 86_400_000).toISOString().slice(0, 10);
    const c = await createRequest(t, { request_type: 'IMPRINT', amount, reservation_data: { checkin } });
    const visit = await openCheckout(t, c.payment_link);
    assert.ok(visit);
    assert.equal((await submitCheckout(visit, STRIPE_CARDS.visa)).status, 303);
    await eventually(async () => ((await status(c.uuid)) === 'AUTHORISED' ? true : undefined), 'registered');
    const job = await SCHEDULED_JOBS.create_deferred_payments(t.app.payreq, new Date(), 'Europe/Paris');
    assert.equal(job.held, 1, JSON.stringify(job));
    const r = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${c.uuid}/capture/`,
      payload: { amount: capture },
    });
    assert.equal(r.statusCode, 200, r.body);
    return c;
  }

  /** A sale the hotel made in Stripe's dashboard: a charge payreq never asked for. */
  function dashboardSale(amount: number) {
    const pm = fake.ops.paymentMethod(STRIPE_CARDS.visa, 12, 2030);
    return fake.ops.createPaymentIntent(
      {
        amount,
        currency: 'eur',
        customer: null,
        paymentMethod: pm.id,
        captureMethod: 'automatic',
        confirm: true,
        offSession: false,
        metadata: {},
      },
      null,
    );
  }

  const balanceOf = (payoutId: string) =>
    [...fake.account.objects.values()].filter((o) => o.object === 'balance_transaction' && o.payout === payoutId);

  test('payments, a capture, a refund, fees and an unknown charge: one remittance, gross/fees/net, matched and unmatched; twice stores nothing', async () => {
    const a = await paid(120.5);
    const refund = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${a.uuid}/refund/`,
      payload: { amount: 40 },
    });
    assert.equal(refund.statusCode, 200, refund.body);
    const b = await paid(30);
    const sale = dashboardSale(5000);
    const h = await captured(150, 60);
    await fake.idle();
    const payout = fake.ops.payout(new Date()) as StripeObject;
    assert.ok(payout);
    const lines = balanceOf(payout.id);
    assert.deepEqual(lines.map((l) => l.type).sort(), ['charge', 'charge', 'charge', 'charge', 'payout', 'refund']);

    const before = fake.calls.length;
    assert.deepEqual(await fetchJson(), { remittances: 1, lines: 5, matched: 4, unmatched: 1 });
    const used = fake.calls.slice(before);
    assert.deepEqual(
      used.map((c) => c.route),
      ['GET /v1/payouts', 'GET /v1/balance_transactions'],
    );
    assert.equal(used[0]?.params.status, 'paid');
    assert.equal(used[1]?.params.payout, payout.id);
    assert.deepEqual(used[1]?.params.expand, ['data.source']);

    // gross = charges - refunds, fees over every line (the unknown sale's included), net = the payout.
    const charges = lines.filter((l) => l.type === 'charge');
    const fees = charges.reduce((n, l) => n + (l.fee as number), 0);
    assert.equal(fees, 206 + 70 + 100 + 115, "the fake's fee: 1.5 % + 25 a charge");
    const listed = await cli('payouts', 'list', '--tenant', t.tenant.tenantId, '--json');
    assert.equal(listed.exitCode, 0, listed.stderr);
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(JSON.parse(listed.stdout), {
      remittances: [
        {
          remittance_nb: payout.id,
          remittance_date: today,
          currency: 'EUR',
          gross: 220.5,
          fees: 4.91,
          net: 215.59,
          lines: 5,
          matched: 4,
          unmatched: 1,
        },
      ],
    });
    assert.equal(payout.amount, 21559, 'net is the amount Stripe paid out');

    // Line by line: each payment and the refund to its own ledger row; the sale to nothing.
    const stored = await t.db.query<{
      transaction_id: string;
      direction: string;
      amount: number;
      fee: number;
      ledger_kind: string | null;
      payment_request_id: string | null;
      unmatched_reason: string | null;
      match_status: string;
    }>(
      `SELECT l.transaction_id, l.direction, l.amount::float8 AS amount, l.fee::float8 AS fee, m.kind AS ledger_kind,
              l.payment_request_id::text AS payment_request_id, l.unmatched_reason, l.match_status
         FROM remittance_lines l JOIN remittances r ON r.id = l.remittance_id
         LEFT JOIN money_ledger m ON m.id = l.ledger_id
        WHERE r.remittance_nb = $1 ORDER BY l.amount DESC`,
      [payout.id],
    );
    const ledger = await t.db.query<{ payment_request_id: string; kind: string; provider_transaction_id: string }>(
      `SELECT payment_request_id::text AS payment_request_id, kind, provider_transaction_id FROM money_ledger
        WHERE payment_request_id = ANY($1::uuid[]) AND kind IN ('payment', 'capture', 'refund') ORDER BY id`,
      [[a.uuid, b.uuid, h.uuid]],
    );
    const txn = (order: string, kind: string) =>
      ledger.rows.find((r) => r.payment_request_id === order && r.kind === kind)?.provider_transaction_id;
    assert.deepEqual(
      stored.rows.map((r) => [
        r.transaction_id,
        r.direction,
        r.amount,
        r.ledger_kind,
        r.payment_request_id,
        r.unmatched_reason,
        r.match_status,
      ]),
      [
        [txn(a.uuid, 'payment'), 'debit', 12050, 'payment', a.uuid, null, 'charge'],
        [txn(h.uuid, 'capture'), 'debit', 6000, 'capture', h.uuid, null, 'charge'],
        [sale.id, 'debit', 5000, null, null, 'unknown_order', 'charge'],
        [txn(a.uuid, 'refund'), 'credit', 4000, 'refund', a.uuid, null, 'refund'],
        [txn(b.uuid, 'payment'), 'debit', 3000, 'payment', b.uuid, null, 'charge'],
      ],
    );
    assert.equal(stored.rows[2]?.fee, 100, "the unknown sale's fee is the hotel's cost too");

    // Fetching again reads the list of payouts only, and stores nothing.
    const again = fake.calls.length;
    assert.deepEqual(await fetchJson(), { remittances: 0, lines: 0, matched: 0, unmatched: 0 });
    assert.deepEqual(
      fake.calls.slice(again).map((c) => c.route),
      ['GET /v1/payouts'],
    );
    const counted = await t.db.query<{ r: number; l: number }>(
      `SELECT (SELECT count(*)::int FROM remittances WHERE tenant_id = $1) AS r,
              (SELECT count(*)::int FROM remittance_lines WHERE tenant_id = $1) AS l`,
      [t.tenant.tenantId],
    );
    assert.deepEqual(counted.rows[0], { r: 1, l: 5 });
  });

  test('a payout of more lines than a page: every page read; the alias `settlements fetch`, outside the service, prints the same in words', async () => {
    for (let i = 0; i < 130; i++) dashboardSale(1000 + i);
    const payout = fake.ops.payout(new Date()) as StripeObject;
    const before = fake.calls.length;
    // As the command line alone runs it: no service's context, one built on the database.
    const r = await runCommand(['settlements', 'fetch', '--tenant', t.tenant.tenantId], {
      config: t.config,
      db: t.db,
      repos: t.repos,
    });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.stdout, '1 payout, 130 lines: 0 matched, 130 unmatched\n');
    const pages = fake.calls.slice(before).filter((c) => c.route === 'GET /v1/balance_transactions');
    assert.equal(pages.length, 2, 'a hundred a page');
    const row = await t.db.query<{ net: number; line_count: number }>(
      'SELECT net::float8 AS net, line_count FROM remittances WHERE remittance_nb = $1',
      [payout.id],
    );
    assert.deepEqual(row.rows[0], { net: payout.amount as number, line_count: 130 });
  });

  test('a line unmatched while the books were behind is matched by the next fetch, from what is stored: no Stripe call for it', async () => {
    const c = await paid(25);
    await fake.idle();
    // payreq's books behind Stripe's: the payment's row not settled yet when the payout is fetched.
    const behind = (state: string) =>
      t.db.query("UPDATE money_ledger SET state = $2 WHERE payment_request_id = $1 AND kind = 'payment'", [
        c.uuid,
        state,
      ]);
    await behind('in_doubt');
    const payout = fake.ops.payout(new Date()) as StripeObject;
    assert.deepEqual(await fetchJson(), { remittances: 1, lines: 1, matched: 0, unmatched: 1 });
    await behind('succeeded');
    const before = fake.calls.length;
    assert.deepEqual(await fetchJson(), { remittances: 0, lines: 0, matched: 0, unmatched: 0 });
    assert.deepEqual(
      fake.calls.slice(before).map((x) => x.route),
      ['GET /v1/payouts'],
    );
    const line = await t.db.query<{ kind: string; request: string; matched: number; reason: string | null }>(
      `SELECT m.kind, l.payment_request_id::text AS request, r.matched_count AS matched, l.unmatched_reason AS reason
         FROM remittances r JOIN remittance_lines l ON l.remittance_id = r.id JOIN money_ledger m ON m.id = l.ledger_id
        WHERE r.remittance_nb = $1`,
      [payout.id],
    );
    assert.deepEqual(line.rows, [{ kind: 'payment', request: c.uuid, matched: 1, reason: null }]);
  });

  test('--since: payouts that arrived before it are not read; bad input is refused and stores nothing', async () => {
    dashboardSale(7000);
    const old = fake.ops.payout(new Date(Date.now() - 40 * 86_400_000)) as StripeObject;
    // Not within the default window (30 days back): not read.
    assert.deepEqual(await fetchJson(), { remittances: 0, lines: 0, matched: 0, unmatched: 0 });
    const day = new Date(Date.now() - 41 * 86_400_000).toISOString().slice(0, 10);
    assert.deepEqual(await fetchJson('--since', day), { remittances: 1, lines: 1, matched: 0, unmatched: 1 });
    const stored = await t.db.query('SELECT 1 FROM remittances WHERE remittance_nb = $1', [old.id]);
    assert.equal(stored.rows.length, 1);

    const count = async () =>
      (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM remittance_lines')).rows[0]?.n;
    const n = await count();
    const bad = await cli('payouts', 'fetch', '--tenant', t.tenant.tenantId, '--since', '2026-13-01');
    assert.equal(bad.exitCode, 1);
    assert.match(bad.stderr, /--since must be/);
    const future = await cli('payouts', 'fetch', '--tenant', t.tenant.tenantId, '--since', '2999-01-01');
    assert.equal(future.exitCode, 1);
    assert.match(future.stderr, /--since must/);
    const nobody = await cli('payouts', 'fetch', '--tenant', '00000000-0000-4000-8000-000000000000');
    assert.equal(nobody.exitCode, 1);
    assert.match(nobody.stderr, /no tenant with id/);
    const sandbox = await t.newTenant('Hôtel bac à sable');
    const notStripe = await cli('payouts', 'fetch', '--tenant', sandbox.tenantId, '--json');
    assert.equal(notStripe.exitCode, 1);
    assert.match(notStripe.stderr, /is not on Stripe/);
    assert.equal(await count(), n, 'nothing stored');
  });
});
