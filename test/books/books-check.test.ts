import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BooksCheckBusy, type BooksCheckResult, checkBooks, defaultSince } from '../../src/money-audit/index.ts';
import type { PaymentProvider, ProviderRegistry } from '../../src/providers/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { arrangeHold, arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider, gate, sandboxOf } from '../helpers/providers.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';

const TOKEN = 'metrics-token-books-0123456789';

// `payreq books check`'s core, in-process, on the real app and database, against the sandbox:
// a clean run agrees; each kind of disagreement, planted through the sandbox's own side (a
// capture or a hold made at the provider that payreq never asked for, an answer lost on the way),
// is reported with its reference; disagreements open an incident on the request, counted by
// payreq_books_disagreements and listed on the back office's Books page.
describe(`books check against the sandbox (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  const provider = countingProvider();
  /** Order views asked of the provider by the check, by order id. */
  const asked: string[] = [];
  /** While set, order views wait for it (a slow provider). */
  let slow: Promise<void> | undefined;
  /** Told when an order view is asked. */
  let onAsk: (() => void) | undefined;
  let providers: ProviderRegistry;

  before(async () => {
    t = await startTestApp({
      provider: provider.provider,
      env: { METRICS_TOKEN: TOKEN, IN_DOUBT_GRACE_SECONDS: '60' },
    });
    const real = t.app.payreq.providers;
    const counted = (p: PaymentProvider): PaymentProvider => ({
      ...p,
      getOrder: async (orderId) => {
        asked.push(orderId);
        onAsk?.();
        await slow;
        return p.getOrder(orderId);
      },
    });
    providers = {
      ...real,
      forTenant: async (id) => counted(await real.forTenant(id)),
      forAccount: async (id, name, account) => counted(await real.forAccount(id, name, account)),
      byName: (name) => {
        const p = real.byName(name);
        return p && counted(p);
      },
    };
  });
  after(() => t.close());

  const check = (tenant: TenantWithKey, more: Partial<Parameters<typeof checkBooks>[1]> = {}) =>
    checkBooks({ repos: t.repos, providers }, { tenantId: tenant.tenantId, since: defaultSince(new Date()), ...more });

  /** An IMPRINT whose hold is placed (sandbox hold and ledger row, as the daily job leaves them). */
  async function held(tenant: TenantWithKey, amount = 80) {
    const r = await createRequest(t, { request_type: 'IMPRINT', amount }, tenant);
    await t.db.query("UPDATE payment_requests SET status = 'AUTHORISED_TO_VALIDATE' WHERE id = $1", [r.uuid]);
    const hold = await arrangeHold(t.db, r.uuid);
    return { ...r, ...hold };
  }

  const api = (tenant: TenantWithKey, id: string, action: string, payload?: object) =>
    t.call({ method: 'POST', url: `/api/payment-requests/${id}/${action}/`, tenant, ...(payload ? { payload } : {}) });

  const lineOf = (r: BooksCheckResult, reference: string) => r.problems.find((p) => p.detail.reference === reference);

  test('a clean run agrees: captured, partly captured, released, held, paid', async () => {
    const hotel = await t.newTenant('Hôtel Propre');
    const full = await held(hotel);
    const part = await held(hotel);
    const released = await held(hotel);
    await held(hotel);
    const deposit = await createRequest(t, { request_type: 'DEPOSIT', amount: 120 }, hotel);
    await arrangeStatus(t.db, deposit.uuid, 'CAPTURED', { amountCaptured: 12_000 });
    assert.equal((await api(hotel, full.uuid, 'capture')).statusCode, 200);
    assert.equal((await api(hotel, part.uuid, 'capture', { amount: 30 })).statusCode, 200);
    assert.equal((await api(hotel, released.uuid, 'release')).statusCode, 200);

    const r = await check(hotel);
    assert.deepEqual(r.summary, { orders: 5, agree: 5, disagree: 0, in_doubt: 0 });
    assert.deepEqual(r.problems, []);
    assert.equal(r.complete, true);
    assert.equal(r.opened, 0);
  });

  test('money the ledger does not know (a capture made at the provider directly) is a disagreement', async () => {
    const hotel = await t.newTenant('Hôtel Capture');
    const r1 = await held(hotel);
    // The hotel captured in the provider's own back office: payreq was never asked.
    await sandboxOf(t.app).capture({
      orderId: r1.uuid,
      reference: r1.reference,
      currency: 'EUR',
      idempotencyKey: `provider-side:${r1.uuid}`,
      transactionId: r1.transactionId,
      amountCents: 8000,
    });
    const r = await check(hotel);
    assert.deepEqual(r.summary, { orders: 1, agree: 0, disagree: 1, in_doubt: 0 });
    const line = lineOf(r, r1.reference);
    assert.ok(line, JSON.stringify(r.problems));
    assert.equal(line.verdict, 'disagree');
    assert.equal(line.detail.provider_net, 8000);
    assert.equal(line.detail.payreq_net, 0);
    // Both ways: the money taken, and the hold the request shows no longer open.
    assert.deepEqual(line.detail.problems, ['net_differs', 'hold_missing']);
    assert.equal(r.opened, 1);
    // Seen again: the same incident, not a second one.
    assert.equal((await check(hotel)).opened, 0);
    const open = await t.repos.books.openIncidents(hotel.tenantId, 10);
    assert.deepEqual(
      open.map((i) => [i.reference, i.provider_net, i.payreq_net]),
      [[r1.reference, 8000, 0]],
    );
  });

  test('a hold left open at the provider while the request is CANCELLED is a disagreement', async () => {
    const hotel = await t.newTenant('Hôtel Empreinte');
    const r1 = await held(hotel);
    assert.equal((await api(hotel, r1.uuid, 'release')).statusCode, 200);
    // A hold placed at the provider on the stored card, which payreq never asked for.
    await sandboxOf(t.app).silentHold({
      orderId: r1.uuid,
      reference: r1.reference,
      currency: 'EUR',
      idempotencyKey: `provider-side:${r1.uuid}`,
      cardToken: r1.token,
      amountCents: 8000,
    });
    const r = await check(hotel);
    assert.deepEqual(r.summary, { orders: 1, agree: 0, disagree: 1, in_doubt: 0 });
    const line = lineOf(r, r1.reference);
    assert.ok(line);
    assert.deepEqual(line.detail.problems, ['hold_open']);
    assert.equal(line.detail.open_holds, 1);
    assert.equal(line.detail.status, 'CANCELLED');
  });

  test('an operation in doubt is reported as such; settled by reconcile, the order agrees', async () => {
    const hotel = await t.newTenant('Hôtel Incertain');
    const r1 = await held(hotel);
    provider.loseAnswers(true);
    try {
      assert.equal((await api(hotel, r1.uuid, 'capture')).statusCode, 504);
    } finally {
      provider.loseAnswers(false);
    }
    const r = await check(hotel);
    assert.deepEqual(r.summary, { orders: 1, agree: 0, disagree: 0, in_doubt: 1 });
    const line = lineOf(r, r1.reference);
    assert.ok(line);
    assert.equal(line.verdict, 'in_doubt');
    assert.equal(line.detail.in_doubt_rows, 1);
    assert.deepEqual(line.detail.problems, ['unsettled', 'net_differs', 'hold_missing']);
    // In doubt is not a disagreement: no incident; the Books page lists the operation instead.
    assert.equal(r.opened, 0);
    const doubt = await t.repos.books.inDoubtOperations(hotel.tenantId, 0, 10);
    assert.deepEqual(
      doubt.map((d) => [d.reference, d.kind]),
      [[r1.reference, 'capture']],
    );

    await t.app.payreq.reconciler.reconcile();
    assert.deepEqual((await check(hotel)).summary, { orders: 1, agree: 1, disagree: 0, in_doubt: 0 });
  });

  test('a run stopped midway is carried on by the next: no order is asked twice', async () => {
    const hotel = await t.newTenant('Hôtel Reprise');
    const ids = [(await held(hotel)).uuid, (await held(hotel)).uuid, (await held(hotel)).uuid];
    const stop = new AbortController();
    asked.length = 0;
    const first = await check(hotel, { concurrency: 1, signal: stop.signal, onChecked: () => stop.abort() });
    assert.equal(first.complete, false);
    assert.equal(first.asked, 1);
    assert.deepEqual(first.summary, { orders: 3, agree: 1, disagree: 0, in_doubt: 0 });

    const second = await check(hotel);
    assert.equal(second.resumed, true);
    assert.equal(second.complete, true);
    assert.equal(second.asked, 2);
    assert.deepEqual(second.summary, { orders: 3, agree: 3, disagree: 0, in_doubt: 0 });
    assert.deepEqual([...asked].sort(), [...ids].sort(), 'each order asked once over both runs');

    // Finished, a new run checks again (and only one run of a scope is open at a time).
    assert.equal((await check(hotel)).resumed, false);
  });

  test('two checks of one scope at once: one runs, the other is told a check is under way', async () => {
    const hotel = await t.newTenant('Hôtel Double');
    await held(hotel);
    const late = gate();
    const reached = gate();
    slow = late.opened;
    onAsk = reached.open;
    const first = check(hotel);
    try {
      // The first holds the scope's run: it is asking the provider.
      await reached.opened;
      await assert.rejects(check(hotel), BooksCheckBusy);
    } finally {
      slow = undefined;
      onAsk = undefined;
      late.open();
    }
    assert.deepEqual((await first).summary, { orders: 1, agree: 1, disagree: 0, in_doubt: 0 });
    // Another scope is not held back.
    assert.equal((await check(t.tenant)).complete, true);
  });

  test('an incident resolves once the books agree again', async () => {
    const hotel = await t.newTenant('Hôtel Réparé');
    const r1 = await held(hotel);
    // A second hold on the order, made at the provider: the request owns only its first.
    const stray = `txn_stray_${r1.uuid.slice(0, 8)}`;
    await t.db.query(
      `INSERT INTO sandbox_transactions (id, order_id, kind, status, amount, currency, token)
       SELECT $2, order_id, 'hold', 'authorised', amount, currency, token FROM sandbox_transactions WHERE id = $1`,
      [r1.transactionId, stray],
    );
    const before = await check(hotel);
    assert.equal(before.summary.disagree, 1);
    assert.deepEqual(lineOf(before, r1.reference)?.detail.problems, ['hold_open']);
    // Put right at the provider: the second hold released there. The ledger does not move,
    // and the next check still looks at the order, because its incident is open.
    await sandboxOf(t.app).release({
      orderId: r1.uuid,
      reference: r1.reference,
      currency: 'EUR',
      idempotencyKey: `provider-side-release:${r1.uuid}`,
      transactionId: stray,
    });
    const r = await check(hotel, { since: new Date(Date.now() + 60_000) });
    assert.deepEqual(r.summary, { orders: 1, agree: 1, disagree: 0, in_doubt: 0 });
    assert.deepEqual(await t.repos.books.openIncidents(hotel.tenantId, 10), []);
    const [incident] = await t.repos.books.incidentsOfRequest(r1.uuid);
    assert.ok(incident?.resolved_at);
  });

  test('the metric counts the open disagreements; the Books page lists them, each tenant its own', async () => {
    const open = await t.repos.books.openIncidents(undefined, 100);
    assert.equal(open.length, 2, 'the capture and the hold planted above');
    const metrics = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.match(metrics.body, /^payreq_books_disagreements 2$/m);

    await createUser(t, 'books-root');
    const root = await new ControlClient(t).signedIn('books-root');
    const page = await root.get('/control/books');
    assert.equal(page.statusCode, 200);
    for (const i of open) {
      assert.ok(page.body.includes(`/control/requests/${i.payment_request_id}`), `${i.reference} listed`);
    }
    assert.match(page.body, /more than payreq counts/);
    assert.match(page.body, /cancel it in the provider/);
    // The operation left in doubt above was settled by reconcile: nothing in doubt.
    assert.match(page.body, /No operation in doubt/);

    const [capture, hold] = open;
    assert.ok(capture && hold);
    await createUser(t, 'books-desk', capture.tenant_id);
    const desk = await new ControlClient(t, '127.0.0.2').signedIn('books-desk');
    const own = await desk.get('/control/books', { 'accept-language': 'fr' });
    assert.equal(own.statusCode, 200);
    assert.ok(own.body.includes(`/control/requests/${capture.payment_request_id}`));
    assert.ok(!own.body.includes(hold.payment_request_id), "another tenant's incident is not shown");
    assert.match(own.body, /Désaccords ouverts/);
    assert.equal((await desk.get(`/control/books?tenant=${hold.tenant_id}`)).statusCode, 404);

    // The request's own page shows its incident.
    const detail = await desk.get(`/control/requests/${capture.payment_request_id}`);
    assert.match(detail.body, /id="books-h"/);
  });

  test('money that arrived where it should not, not given back yet, is listed with what to do', async () => {
    const hotel = await t.newTenant('Hôtel Égaré');
    const r1 = await createRequest(t, { request_type: 'DEPOSIT', amount: 50 }, hotel);
    assert.equal((await api(hotel, r1.uuid, 'cancel')).statusCode, 200);
    // The guest paid on an old tab anyway; the automatic give-back cannot reach the provider.
    provider.failWith('unavailable');
    try {
      const outcome = await t.app.payreq.notifications.apply('sandbox', {
        eventId: `evt_${r1.uuid}`,
        paymentRequestId: r1.uuid,
        outcome: 'paid',
        transactionId: `txn_${r1.uuid.slice(0, 8)}`,
        amountCents: 5000,
        currency: 'EUR',
      });
      assert.equal(outcome, 'incident');
    } finally {
      provider.failWith(undefined);
    }
    const rows = await t.repos.books.misplacedMoney(hotel.tenantId, 10);
    assert.deepEqual(
      rows.map((m) => [m.reference, m.amount]),
      [[r1.reference, 5000]],
    );
    await createUser(t, 'books-lost', hotel.tenantId);
    const c = await new ControlClient(t, '127.0.0.3').signedIn('books-lost');
    const page = await c.get('/control/books');
    assert.ok(page.body.includes(r1.reference));
    assert.match(page.body, /payreq gives it back automatically/);
  });
});
