import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyStatusChanges } from '../../src/db/index.ts';
import { addDays } from '../../src/domain/index.ts';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { type ApaleoFake, startApaleoFake } from '../fakes/apaleo/apaleo-fake.ts';
import { registerSandboxCard } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { countingProvider, gate } from '../helpers/providers.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

const CLIENT = { client_id: 'HOTEL-APP', client_secret: 'the-custom-apps-secret' };
const D = addDays(new Date().toISOString().slice(0, 10), 20);

// A reservation cancelled in Apaleo ends every request made for it by what each one is: an
// open link is cancelled, a card registered with no hold yet is cancelled too (no hold may come
// for a stay that is off), a hold is released, an ended request is left. A request that a hold
// in flight holds is worked again once that hold is known, and then released; still busy after
// 3 days, the event is given up. Real HTTP from the Apaleo fake's webhook to the app, the real
// daily job, the sandbox behind a gate.
describe(`a reservation cancelled in Apaleo (${ENGINE})`, () => {
  let t: ListeningApp;
  let apaleo: ApaleoFake;
  const provider = countingProvider();

  before(async () => {
    apaleo = await startApaleoFake();
    apaleo.store.addClient(CLIENT.client_id, CLIENT.client_secret);
    apaleo.store.addProperty('MUC', 'Hotel München');
    for (const id of ['RES-9', 'RES-10', 'RES-11', 'RES-12']) apaleo.store.addReservation({ id, propertyId: 'MUC' });
    t = await startListeningApp({ provider: provider.provider, env: { WORKERS: 'on', PROVIDER_TIMEOUT_MS: '200' } });
    await createUser(t, 'manager-cancelled', t.tenant.tenantId, 'manager');
    const manager = await new ControlClient(t, '10.7.1.1').signedIn('manager-cancelled');
    assert.equal((await manager.get('/control/settings')).statusCode, 200);
    const connected = await manager.post('/control/settings/pms', {
      tenant: t.tenant.tenantId,
      property_id: 'MUC',
      client_id: CLIENT.client_id,
      client_secret: CLIENT.client_secret,
      api_url: apaleo.url,
      identity_url: apaleo.url,
    });
    assert.equal(connected.statusCode, 303);
    const rule = await manager.post('/control/settings/pms/reservations', {
      tenant: t.tenant.tenantId,
      rule: 'deposit_percent',
      value: '50',
    });
    assert.equal(rule.statusCode, 303);
    assert.equal(apaleo.store.subscriptions.size, 1, 'subscribed to the reservation events');
  });
  after(async () => {
    await t?.close();
    await apaleo?.close();
  });

  const job = (date: string) =>
    createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      date,
    );

  const row = async (id: string) =>
    (
      await t.db.query<{ status: string; released_at: Date | null; pending_action: string | null }>(
        'SELECT status, released_at, pending_action FROM payment_requests WHERE id = $1',
        [id],
      )
    ).rows[0];

  const ledger = async (id: string) =>
    (
      await t.db.query<{ kind: string; state: string }>(
        'SELECT kind, state FROM money_ledger WHERE payment_request_id = $1 ORDER BY id',
        [id],
      )
    ).rows.map((r) => `${r.kind} ${r.state}`);

  const eventOf = async (reservation: string) =>
    (
      await t.db.query<{ state: string; outcome: string | null; attempts: number }>(
        'SELECT state, outcome, attempts FROM pms_events WHERE reservation_id = $1',
        [reservation],
      )
    ).rows[0];

  /** An IMPRINT for `reservation` whose guest registered a card (the sandbox's notification applied). */
  async function registered(reservation: string, checkin: string) {
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 120,
      reservation_ref: reservation,
      reservation_data: { checkin },
    });
    await registerSandboxCard(t, c.uuid, '4242424242424242');
    assert.equal((await row(c.uuid))?.status, 'AUTHORISED');
    return c;
  }

  /** The daily job run with the sandbox's answer held back: its hold in doubt, the claim kept, until the gate opens. */
  async function holdInFlight() {
    const late = gate();
    provider.holdUntil(late.opened);
    try {
      assert.equal((await job(addDays(D, -2))).in_doubt, 1);
    } finally {
      provider.holdUntil(undefined);
    }
    return late;
  }

  test('each request ends by what it is: an open link or an unheld card cancelled, a hold released, the ended left', async () => {
    const open = await createRequest(t, { request_type: 'DEPOSIT', amount: 80, reservation_ref: 'RES-9' });
    const ended = await createRequest(t, { request_type: 'DEPOSIT', amount: 80, reservation_ref: 'RES-9' });
    const cancel = (id: string) => t.call({ method: 'POST', url: `/api/payment-requests/${id}/cancel/` });
    assert.equal((await cancel(ended.uuid)).statusCode, 200);
    const unheld = await registered('RES-9', addDays(D, 30));
    const held = await registered('RES-9', D);
    assert.equal((await job(addDays(D, -2))).held, 1);
    assert.equal((await row(held.uuid))?.status, 'AUTHORISED_TO_VALIDATE');
    // The API's cancel stays the contract's: an open link only.
    const refused = await cancel(unheld.uuid);
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(refused.json().allowed, ['NOT_INITIATED', 'PENDING', 'ERROR']);

    await apaleo.deliver('canceled', 'RES-9');
    const ev = await eventually(async () => {
      const e = await eventOf('RES-9');
      return e?.state === 'done' ? e : undefined;
    }, 'the cancellation worked');
    assert.equal(
      ev.outcome,
      [
        `${open.reference} cancelled`,
        `${ended.reference} left CANCELLED`,
        `${unheld.reference} cancelled`,
        `${held.reference} released`,
      ].join('; '),
    );

    assert.equal((await row(open.uuid))?.status, 'CANCELLED');
    const u = await row(unheld.uuid);
    assert.deepEqual([u?.status, u?.released_at], ['CANCELLED', null], 'cancelled, not a release');
    const moves = await t.db.query<{ from_status: string; source: string; actor: string }>(
      "SELECT from_status, source, actor FROM status_history WHERE payment_request_id = $1 AND to_status = 'CANCELLED'",
      [unheld.uuid],
    );
    assert.deepEqual(moves.rows, [{ from_status: 'AUTHORISED', source: 'job', actor: 'apaleo' }]);
    const events = await t.db.query<{ type: string }>(
      'SELECT type FROM events WHERE payment_request_id = $1 ORDER BY id DESC LIMIT 1',
      [unheld.uuid],
    );
    assert.equal(events.rows[0]?.type, 'payment_request.cancelled');
    const h = await row(held.uuid);
    assert.equal(h?.status, 'CANCELLED');
    assert.ok(h?.released_at, 'the hold released');
    assert.deepEqual(await ledger(held.uuid), ['verification succeeded', 'hold succeeded', 'release succeeded']);

    // The card of a cancelled stay is never held: its day comes and goes.
    const later = await job(addDays(D, 28));
    assert.equal(later.held, 0, JSON.stringify(later));
    assert.deepEqual(await ledger(unheld.uuid), ['verification succeeded']);
  });

  test('a hold in flight when the reservation is cancelled: the event waits for it, then releases it', async () => {
    const c = await registered('RES-10', D);
    const late = await holdInFlight();
    assert.equal((await row(c.uuid))?.pending_action, 'hold');

    await apaleo.deliver('canceled', 'RES-10');
    const waiting = await eventually(async () => {
      const e = await eventOf('RES-10');
      return e && e.attempts > 0 ? e : undefined;
    }, 'the cancellation tried once');
    assert.equal(waiting.state, 'pending', 'worked again later');
    assert.match(String(waiting.outcome), new RegExp(`^${c.reference}: `));
    assert.equal((await row(c.uuid))?.status, 'AUTHORISED', 'nothing moved while the hold is unknown');

    late.open();
    const ev = await eventually(
      async () => {
        const e = await eventOf('RES-10');
        return e?.state === 'done' ? e : undefined;
      },
      'the cancellation worked once the hold was known',
      20_000,
    );
    assert.equal(ev.outcome, `${c.reference} released`);
    const r = await row(c.uuid);
    assert.equal(r?.status, 'CANCELLED');
    assert.ok(r?.released_at);
    assert.deepEqual(await ledger(c.uuid), ['verification succeeded', 'hold succeeded', 'release succeeded']);
  });

  test('an event still busy 3 days after it came is given up: failed, with its last reason, for an operator', async () => {
    const c = await registered('RES-11', D);
    const late = await holdInFlight();
    try {
      await apaleo.deliver('canceled', 'RES-11');
      await eventually(async () => ((await eventOf('RES-11'))?.attempts ? true : undefined), 'tried once');
      await t.db.query(
        "UPDATE pms_events SET created_at = now() - interval '3 days 1 minute' WHERE reservation_id = 'RES-11'",
      );
      const ev = await eventually(async () => {
        const e = await eventOf('RES-11');
        return e?.state === 'failed' ? e : undefined;
      }, 'given up');
      assert.match(String(ev.outcome), new RegExp(`^tried for 3 days: ${c.reference}: `));
    } finally {
      late.open();
    }
  });

  test("the guest's card registered between the event's read and its move: the request is ended by what it is now", {
    skip: ENGINE === 'postgres' ? false : 'PGlite has one connection: two transactions cannot interleave',
  }, async () => {
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 120,
      reservation_ref: 'RES-12',
      reservation_data: { checkin: addDays(D, 30) },
    });
    // The registration's transaction (as the IPN writes it) is under way, not committed: the
    // event reads the link open, and its cancel waits on the row until the card is registered.
    await t.db.transaction(async (tx) => {
      const [registered] = await applyStatusChanges(tx, [
        {
          id: c.uuid,
          from: ['NOT_INITIATED'],
          to: 'AUTHORISED',
          actor: { source: 'ipn', actor: 'sandbox' },
          set: { provider: 'sandbox', cardToken: 'tok_race', maskedPan: '424242XXXXXX4242' },
        },
      ]);
      assert.ok(registered);
      await apaleo.deliver('canceled', 'RES-12');
      await eventually(async () => {
        const r = await t.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%payment_requests%'`,
        );
        return (r.rows[0]?.n ?? 0) > 0 ? true : undefined;
      }, "the event's cancel waiting on the row");
    });
    const ev = await eventually(async () => {
      const e = await eventOf('RES-12');
      return e?.state === 'done' ? e : undefined;
    }, 'the cancellation worked');
    assert.equal(ev.outcome, `${c.reference} cancelled`);
    const moves = await t.db.query<{ from_status: string; to_status: string }>(
      'SELECT from_status, to_status FROM status_history WHERE payment_request_id = $1 ORDER BY id',
      [c.uuid],
    );
    assert.deepEqual(
      moves.rows.map((m) => `${m.from_status}>${m.to_status}`),
      ['null>NOT_INITIATED', 'NOT_INITIATED>AUTHORISED', 'AUTHORISED>CANCELLED'],
    );
  });
});
