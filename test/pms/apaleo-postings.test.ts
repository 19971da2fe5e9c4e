import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { type ApaleoFake, startApaleoFake } from '../fakes/apaleo/apaleo-fake.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, detail, eventually, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

const CLIENT = { client_id: 'PAYREQ-SP-HOTEL', client_secret: 's3cr3t-of-the-custom-app' };
const VISA = '4242424242424242';

// A hotel connected to its Apaleo property (the fake, over real HTTP), the sandbox taking the
// guests' money: every payment and refund reaches the reservation's main guest folio once,
// whatever Apaleo does meanwhile (down, 503, an answer lost, tokens revoked).
describe(`Apaleo: a hotel's payments and refunds on its folios (${ENGINE})`, () => {
  let t: ListeningApp;
  let apaleo: ApaleoFake;

  const cli = (argv: string[], stdin?: string) =>
    runCommand(argv, { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq }, undefined, stdin);
  const connect = (secrets: object, property = 'MUC') =>
    cli(
      [
        'tenant',
        'set-pms',
        '--tenant',
        t.tenant.tenantId,
        '--pms',
        'apaleo',
        '--property-id',
        property,
        '--api-url',
        apaleo.url,
        '--identity-url',
        apaleo.url,
        '--secrets-stdin',
        '--json',
      ],
      JSON.stringify(secrets),
    );

  /** A DEPOSIT for `reservation`, paid by the guest with a Visa through the sandbox. */
  async function paidDeposit(reservation: string, amount: number): Promise<{ uuid: string; reference: string }> {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount, reservation_ref: reservation });
    const paid = await submitCard(await checkoutForm(t, c.uuid), { number: VISA });
    assert.equal(paid.status, 303, paid.body);
    await eventually(
      async () => ((await detail(t, c.uuid)).status === 'CAPTURED' ? true : undefined),
      'the deposit paid',
    );
    return c;
  }

  const postings = async (failed = false) => {
    const r = await cli(['pms', 'postings', '--tenant', t.tenant.tenantId, '--json', ...(failed ? ['--failed'] : [])]);
    assert.equal(r.exitCode, 0, r.stderr);
    return (JSON.parse(r.stdout) as { postings: Record<string, unknown>[] }).postings;
  };

  before(async () => {
    apaleo = await startApaleoFake();
    apaleo.store.addClient(CLIENT.client_id, CLIENT.client_secret);
    apaleo.store.addProperty('MUC', 'Hotel München');
    apaleo.store.addProperty('BER', 'Hotel Berlin');
    apaleo.store.addReservation({ id: 'RES-1', propertyId: 'MUC' });
    // A second folio of the same reservation, listed first: the main guest folio is found wherever it is.
    apaleo.store.listFirst(apaleo.store.addFolio({ reservationId: 'RES-1', type: 'Guest', isMainFolio: false }));
    apaleo.store.addReservation({ id: 'RES-2', propertyId: 'BER' });
    apaleo.store.addReservation({ id: 'RES-3', propertyId: 'MUC' });
    apaleo.store.addReservation({ id: 'RES-4', propertyId: 'MUC' });
    t = await startListeningApp({ env: { WORKERS: 'on' } });
  });
  after(async () => {
    await t?.close();
    await apaleo?.close();
  });

  test('a wrong secret is refused, nothing stored; the right one connects, and show tells it, never the secret', async () => {
    const wrong = await connect({ ...CLIENT, client_secret: 'not-it' });
    assert.equal(wrong.exitCode, 1);
    assert.match(wrong.stderr, /refused the client id and secret.*invalid_client.*nothing stored/);
    const unknown = await connect(CLIENT, 'NOPE');
    assert.equal(unknown.exitCode, 1);
    assert.match(unknown.stderr, /no property "NOPE".*nothing stored/);
    const stored = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pms_connections');
    assert.equal(stored.rows[0]?.n, 0);

    const ok = await connect(CLIENT);
    assert.equal(ok.exitCode, 0, ok.stderr);
    const shown = await cli(['tenant', 'show', '--tenant', t.tenant.tenantId, '--json']);
    const pms = (JSON.parse(shown.stdout) as { pms: Record<string, unknown> }).pms;
    assert.deepEqual(
      { kind: pms.kind, property_id: pms.property_id, last_posting: pms.last_posting },
      { kind: 'apaleo', property_id: 'MUC', last_posting: null },
    );
    assert.doesNotMatch(shown.stdout + ok.stdout, new RegExp(CLIENT.client_secret));
  });

  test("a deposit for RES-1 appears once on its main guest folio, the reference in the receipt, Visa's method", async () => {
    const c = await paidDeposit('RES-1', 120.5);
    const main = apaleo.store.mainFolio('RES-1');
    assert.ok(main);
    const landed = await eventually(
      async () => (main.payments.length > 0 ? main.payments : undefined),
      'the posting',
      30_000,
    );
    assert.equal(landed.length, 1);
    const [p] = landed;
    assert.match(p?.receipt ?? '', new RegExp(`^${c.reference}/\\d+$`));
    assert.deepEqual(p?.amount, { amount: 120.5, currency: 'EUR' });
    assert.equal(p?.method, 'VisaCredit');
    const other = apaleo.store.folios.find((f) => f.reservationId === 'RES-1' && !f.isMainFolio);
    assert.equal(other?.payments.length, 0);
    // Apaleo has it; payreq records its answer a moment later.
    const posting = await eventually(async () => {
      const [first] = await postings();
      return first?.state === 'posted' ? first : undefined;
    }, 'the posting recorded');
    assert.deepEqual(
      { ...posting, operation: typeof posting?.operation, posted_at: typeof posting?.posted_at },
      {
        request: c.uuid,
        reference: c.reference,
        operation: 'string',
        kind: 'payment',
        amount: 120.5,
        currency: 'EUR',
        state: 'posted',
        reason: null,
        apaleo_id: p?.id,
        posted_at: 'string',
      },
    );
  });

  test('a reservation of another property, and a reference that is no reservation, post nothing', async () => {
    await paidDeposit('RES-2', 50);
    await paidDeposit('BK-4711', 60);
    const settled = await eventually(
      async () => {
        const r = await t.db.query<{ reservation_id: string; state: string; reason: string }>(
          `SELECT reservation_id, state, reason FROM pms_postings WHERE reservation_id IN ('RES-2', 'BK-4711') ORDER BY reservation_id`,
        );
        return r.rows.length === 2 && r.rows.every((x) => x.state !== 'pending') ? r.rows : undefined;
      },
      'both postings decided',
      30_000,
    );
    assert.deepEqual(
      settled.map((s) => s.state),
      ['skipped', 'skipped'],
    );
    assert.equal(apaleo.store.mainFolio('RES-2')?.payments.length, 0);
    assert.ok(!apaleo.calls.some((c) => c.route === 'post-payment' && c.path.includes('RES-2')));
    assert.deepEqual(
      (await postings()).map((p) => p.reference).filter((r) => r !== undefined).length,
      1,
      'skipped postings are not listed',
    );
  });

  test('a partial refund appears as a folio refund, never through the payment provider', async () => {
    const c = await paidDeposit('RES-1', 80);
    const main = apaleo.store.mainFolio('RES-1');
    await eventually(async () => (main?.payments.length === 2 ? true : undefined), 'the second payment', 30_000);
    const tenant = await t.repos.tenants.find(t.tenant.tenantId);
    assert.ok(tenant);
    await t.app.payreq.commands.refund(
      { tenantId: tenant.id, timezone: tenant.timezone, linkLifetimeDays: tenant.link_lifetime_days },
      c.uuid,
      30,
      { source: 'admin', actor: 'tests' },
    );
    const refunds = await eventually(
      async () => (main?.refunds.length ? main.refunds : undefined),
      'the refund',
      30_000,
    );
    assert.equal(refunds.length, 1);
    assert.deepEqual(refunds[0]?.amount, { amount: 30, currency: 'EUR' });
    assert.match(refunds[0]?.receipt ?? '', new RegExp(`^${c.reference}/\\d+$`));
    assert.equal(main?.pspRefunds.length, 0);
    const kinds = (await postings()).filter((p) => p.reference === c.reference).map((p) => p.kind);
    assert.deepEqual(kinds.sort(), ['payment', 'refund']);
  });

  test('a no-show captured in part is posted as a payment of what was captured; the hold itself never', async () => {
    apaleo.store.addReservation({ id: 'RES-9', propertyId: 'MUC' });
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 200,
      reservation_ref: 'RES-9',
      reservation_data: { checkin: '2026-12-24', checkout: '2026-12-27' },
    });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    const r = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${c.uuid}/capture/`,
      payload: { amount: 80 },
    });
    assert.equal(r.statusCode, 200, r.body);
    const main = apaleo.store.mainFolio('RES-9');
    await eventually(async () => (main?.payments.length ? true : undefined), 'the capture posted', 30_000);
    assert.deepEqual(
      main?.payments.map((p) => [p.amount.amount, p.method]),
      [[80, 'VisaCredit']],
    );
    const kinds = await t.db.query<{ kind: string }>(
      `SELECT l.kind FROM pms_postings p JOIN money_ledger l ON l.id = p.ledger_id WHERE p.reservation_id = 'RES-9'`,
    );
    assert.deepEqual(
      kinds.rows.map((k) => k.kind),
      ['capture'],
      'the hold (a ledger row too) is not money',
    );
  });

  test('Apaleo answering 503 three times, then one answer lost: the posting lands exactly once within 60 s', async () => {
    for (let i = 0; i < 3; i++) apaleo.failNext('post-payment', { status: 503 });
    apaleo.failNext('post-payment', 'lose');
    const started = Date.now();
    const c = await paidDeposit('RES-3', 95);
    const main = apaleo.store.mainFolio('RES-3');
    await eventually(
      async () => {
        const p = (await postings()).find((x) => x.reference === c.reference);
        return p?.state === 'posted' ? p : undefined;
      },
      'the posting',
      60_000,
    );
    assert.ok(Date.now() - started < 60_000);
    assert.equal(main?.payments.length, 1);
    assert.equal(main?.payments[0]?.amount.amount, 95);
    const posts = apaleo.calls.filter((x) => x.route === 'post-payment' && x.path.includes('RES-3'));
    assert.equal(posts.length, 4, 'three 503s, one lost answer, and no fifth: the lost one was read back');
    assert.ok(posts.every((x) => x.idempotencyKey && x.idempotencyKey === posts[0]?.idempotencyKey));
  });

  test('every token revoked: the next posting gets a new token and lands once', async () => {
    const issued = apaleo.store.issued();
    apaleo.store.revokeAllTokens();
    const c = await paidDeposit('RES-4', 44);
    const main = apaleo.store.mainFolio('RES-4');
    await eventually(async () => (main?.payments.length ? true : undefined), 'the posting', 30_000);
    await eventually(async () => {
      const p = (await postings()).find((x) => x.reference === c.reference);
      return p?.state === 'posted' ? true : undefined;
    }, 'the posting recorded');
    assert.equal(main?.payments.length, 1);
    assert.equal(apaleo.store.issued(), issued + 1, 'one new token');
    const shown = await cli(['tenant', 'show', '--tenant', t.tenant.tenantId, '--json']);
    const last = (JSON.parse(shown.stdout) as { pms: { last_posting: Record<string, unknown> } }).pms.last_posting;
    assert.equal(last.state, 'posted');
  });

  test('Apaleo down: the first retry within 2 s, and the posting lands once it is back', async () => {
    apaleo.store.addReservation({ id: 'RES-6', propertyId: 'MUC' });
    apaleo.setDown(true);
    const c = await paidDeposit('RES-6', 33);
    const tries = await eventually(
      async () => {
        const seen = apaleo.calls.filter((x) => x.route === 'reservation' && x.path.endsWith('/RES-6'));
        return seen.length >= 2 ? seen : undefined;
      },
      'two tries while down',
      30_000,
    );
    assert.ok((tries[1]?.at ?? 0) - (tries[0]?.at ?? 0) < 2000, 'the first retry within 2 s');
    const waiting = (await postings()).find((x) => x.reference === c.reference);
    assert.equal(waiting?.state, 'pending');
    assert.match(String(waiting?.reason), /not reached/);
    apaleo.setDown(false);
    await eventually(
      async () => {
        const p = (await postings()).find((x) => x.reference === c.reference);
        return p?.state === 'posted' ? true : undefined;
      },
      'posted once Apaleo is back',
      30_000,
    );
    assert.equal(apaleo.store.mainFolio('RES-6')?.payments.length, 1);
  });

  test('a 401 renews the token once: a second 401 is an answer (refused), never a loop', async () => {
    apaleo.store.addReservation({ id: 'RES-8', propertyId: 'MUC' });
    const issued = apaleo.store.issued();
    apaleo.failNext('post-payment', { status: 401 });
    apaleo.failNext('post-payment', { status: 401 });
    const c = await paidDeposit('RES-8', 21);
    const failed = await eventually(
      async () => {
        const p = (await postings(true)).find((x) => x.reference === c.reference);
        return p ?? undefined;
      },
      'the refusal',
      30_000,
    );
    assert.match(String(failed.reason), /HTTP 401/);
    assert.equal(apaleo.calls.filter((x) => x.route === 'post-payment' && x.path.includes('RES-8')).length, 2);
    assert.equal(apaleo.store.issued(), issued + 1, 'one token more, not one per try');
    assert.equal(apaleo.store.mainFolio('RES-8')?.payments.length, 0);
  });

  test('a posting Apaleo refuses for good (a closed folio) is failed with its reason, and lands once retried', async () => {
    apaleo.store.addReservation({ id: 'RES-5', propertyId: 'MUC' });
    const main = apaleo.store.mainFolio('RES-5');
    assert.ok(main);
    main.status = 'Closed';
    const c = await paidDeposit('RES-5', 70);
    const failed = await eventually(
      async () => (await postings(true)).find((f) => f.reference === c.reference),
      'the refusal',
      30_000,
    );
    assert.match(String(failed?.reason), /HTTP 422: The folio RES-5-1 is closed/);
    main.status = 'Open';
    const retried = await cli([
      'pms',
      'retry',
      '--tenant',
      t.tenant.tenantId,
      '--operation',
      String(failed?.operation),
    ]);
    assert.equal(retried.exitCode, 0, retried.stderr);
    await eventually(async () => (main.payments.length ? true : undefined), 'the posting retried', 30_000);
    assert.equal(main.payments.length, 1);
    assert.ok(!(await postings(true)).some((f) => f.reference === c.reference), 'no longer refused');
  });

  test('--pms none disconnects: show says null', async () => {
    const r = await cli(['tenant', 'set-pms', '--tenant', t.tenant.tenantId, '--pms', 'none', '--json']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { tenant_id: t.tenant.tenantId, pms: null });
    const shown = await cli(['tenant', 'show', '--tenant', t.tenant.tenantId, '--json']);
    assert.equal((JSON.parse(shown.stdout) as { pms: unknown }).pms, null);
  });
});
