import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ControlClient, createUser } from '../control/control-client.ts';
import { type ApaleoFake, startApaleoFake } from '../fakes/apaleo/apaleo-fake.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, detail, eventually, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

const CLIENT = { client_id: 'HOTEL-APP', client_secret: 'the-custom-apps-secret' };

const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;|&rsquo;|’/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');

// The back office's side of the Apaleo connection: a manager connects and disconnects on the
// settings page, which says "connected to property X" and the last posting's result; a posting
// Apaleo refused shows on the request's page and on Today with Apaleo's reason and can be posted
// again from there; the new-request form fills from a reservation; the reservation rule makes
// and cancels requests from Apaleo's webhooks. Real HTTP to the Apaleo fake.
describe(`Apaleo in the back office (${ENGINE})`, () => {
  let t: ListeningApp;
  let apaleo: ApaleoFake;
  let manager: ControlClient;
  let desk: ControlClient;

  async function paidDeposit(reservation: string, amount: number) {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount, reservation_ref: reservation });
    await submitCard(await checkoutForm(t, c.uuid), { number: '5555555555554444' });
    await eventually(async () => ((await detail(t, c.uuid)).status === 'CAPTURED' ? true : undefined), 'paid');
    return c;
  }

  before(async () => {
    apaleo = await startApaleoFake();
    apaleo.store.addClient(CLIENT.client_id, CLIENT.client_secret);
    apaleo.store.addProperty('MUC', 'Hotel München');
    apaleo.store.addReservation({
      id: 'RES-1',
      propertyId: 'MUC',
      primaryGuest: { firstName: 'Anna', lastName: 'Schmidt', email: 'anna@example.de', preferredLanguage: 'de' },
      arrival: '2026-12-20',
      departure: '2026-12-22',
      totalGrossAmount: { amount: 250, currency: 'EUR' },
      balance: { amount: -230.5, currency: 'EUR' },
    });
    apaleo.store.addReservation({ id: 'RES-2', propertyId: 'MUC' });
    t = await startListeningApp({ env: { WORKERS: 'on' } });
    await createUser(t, 'manager-apaleo', t.tenant.tenantId, 'manager');
    await createUser(t, 'desk-apaleo', t.tenant.tenantId, 'frontdesk');
    manager = await new ControlClient(t, '10.7.0.1').signedIn('manager-apaleo');
    desk = await new ControlClient(t, '10.7.0.2').signedIn('desk-apaleo');
  });
  after(async () => {
    await t?.close();
    await apaleo?.close();
  });

  const connectForm = (secret: string) => ({
    tenant: t.tenant.tenantId,
    property_id: 'MUC',
    client_id: CLIENT.client_id,
    client_secret: secret,
    api_url: apaleo.url,
    identity_url: apaleo.url,
  });

  test('a wrong secret is refused beside the form (422), nothing stored; the right one connects', async () => {
    const page = await manager.get('/control/settings');
    assert.equal(page.statusCode, 200);
    assert.match(text(page.body), /Not connected/);
    const wrong = await manager.post('/control/settings/pms', connectForm('wrong'));
    assert.equal(wrong.statusCode, 303);
    const refused = await manager.get(String(wrong.headers.location));
    assert.equal(refused.statusCode, 422);
    assert.match(text(refused.body), /Not connected, nothing stored: Apaleo refused the client id and secret/);
    assert.doesNotMatch(refused.body, /wrong/, 'the secret typed is not shown again');
    assert.equal((await t.db.query('SELECT 1 FROM pms_connections')).rows.length, 0);
    // A front-desk user may not connect.
    const denied = await desk.post('/control/settings/pms', connectForm(CLIENT.client_secret));
    assert.equal(denied.statusCode, 403);

    const ok = await manager.post('/control/settings/pms', connectForm(CLIENT.client_secret));
    assert.equal(ok.statusCode, 303);
    const shown = await manager.get(String(ok.headers.location));
    assert.equal(shown.statusCode, 200);
    assert.match(text(shown.body), /Connected to property MUC \(Hotel München\)\. Last posting No posting yet\./);
    assert.doesNotMatch(shown.body, new RegExp(CLIENT.client_secret));
  });

  test('the last posting on the settings page, in the manager’s language', async () => {
    const c = await paidDeposit('RES-2', 75);
    await eventually(async () => {
      const r = await t.db.query(`SELECT 1 FROM pms_postings WHERE reservation_id = 'RES-2' AND state = 'posted'`);
      return r.rows.length ? true : undefined;
    }, 'posted');
    assert.equal(apaleo.store.mainFolio('RES-2')?.payments[0]?.method, 'MasterCard');
    await manager.get('/control/language/fr?back=/control/settings');
    try {
      const fr = text((await manager.get('/control/settings')).body);
      assert.match(fr, new RegExp(`Connecté à l'établissement MUC.*${c.reference} : 75,00\\s€ inscrit le`));
    } finally {
      await manager.get('/control/language/en?back=/control/settings');
    }
  });

  test('a refusal shows on the request and on Today with its reason; posted again from there', async () => {
    apaleo.store.addReservation({ id: 'RES-3', propertyId: 'MUC' });
    const folio = apaleo.store.mainFolio('RES-3');
    assert.ok(folio);
    folio.status = 'Closed';
    const c = await paidDeposit('RES-3', 90);
    await eventually(async () => {
      const r = await t.db.query(`SELECT 1 FROM pms_postings WHERE reservation_id = 'RES-3' AND state = 'failed'`);
      return r.rows.length ? true : undefined;
    }, 'refused');
    const page = await desk.get(`/control/requests/${c.uuid}`);
    assert.match(text(page.body), /Apaleo folio.*refused by Apaleo HTTP 422: The folio RES-3-1 is closed/);
    const today = await desk.get('/control/today');
    assert.match(text(today.body), new RegExp(`Not posted to Apaleo.*${c.reference}.*The folio RES-3-1 is closed`));
    const action = /action="(\/control\/pms\/postings\/\d+\/retry)"/.exec(today.body)?.[1];
    assert.ok(action, 'a Post again button');
    folio.status = 'Open';
    const retried = await desk.post(action, { back: 'today' });
    assert.equal(retried.statusCode, 303);
    assert.equal(retried.headers.location, '/control/today');
    await eventually(async () => (folio.payments.length === 1 ? true : undefined), 'posted again');
    assert.match(text((await desk.get('/control/today')).body), /Nothing refused by Apaleo\./);
    // Posting it again once posted changes nothing.
    const again = await desk.post(action, { back: c.uuid });
    assert.equal(again.headers.location, `/control/requests/${c.uuid}`);
    assert.equal(folio.payments.length, 1);
  });

  test('the new-request form fills from an Apaleo reservation', async () => {
    const r = await desk.get('/control/requests/new?apaleo_reservation=RES-1');
    assert.equal(r.statusCode, 200);
    const value = (name: string) => new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(r.body)?.[1];
    assert.deepEqual(
      ['guest_first_name', 'guest_last_name', 'guest_email', 'reservation_ref', 'checkin', 'checkout', 'amount'].map(
        value,
      ),
      ['Anna', 'Schmidt', 'anna@example.de', 'RES-1', '2026-12-20', '2026-12-22', '230.50'],
    );
    assert.match(r.body, /<option value="de" selected>/);
    assert.match(text(r.body), /Filled from Apaleo reservation RES-1/);
    const none = await desk.get('/control/requests/new?apaleo_reservation=NOPE');
    assert.match(text(none.body), /Nothing filled: no reservation "NOPE" in Apaleo/);
  });

  test('the reservation rule: a request for each new reservation, cancelled with it; the endpoint takes only its secret', async () => {
    const on = await manager.post('/control/settings/pms/reservations', {
      tenant: t.tenant.tenantId,
      rule: 'deposit_percent',
      value: '50',
    });
    assert.equal(on.statusCode, 303);
    const [subscription] = apaleo.store.subscriptions.values();
    assert.ok(subscription, 'subscribed after its health check');
    assert.deepEqual(subscription.events.sort(), ['reservation/canceled', 'reservation/created']);
    assert.deepEqual(subscription.propertyIds, ['MUC']);
    assert.ok(subscription.endpointUrl.startsWith(`${t.baseUrl}/pms/apaleo/${t.tenant.tenantId}/`));

    apaleo.store.addReservation({ id: 'RES-7', propertyId: 'MUC', totalGrossAmount: { amount: 300, currency: 'EUR' } });
    const eventId = 'e7a1c2d3-0000-4000-8000-000000000007';
    const [delivered] = await apaleo.deliver('created', 'RES-7', { eventId });
    assert.equal(delivered?.status, 200);
    await apaleo.deliver('created', 'RES-7', { eventId });
    const made = await eventually(async () => {
      const r = await t.db.query<{ id: string; request_type: string; amount: number; status: string }>(
        `SELECT id, request_type, amount, status FROM payment_requests WHERE reservation_ref = 'RES-7'`,
      );
      return r.rows.length ? r.rows : undefined;
    }, 'the request made from RES-7');
    assert.equal(made.length, 1, 'one request, though the event came twice');
    assert.deepEqual([made[0]?.request_type, made[0]?.amount], ['DEPOSIT', 15000]);

    await apaleo.deliver('canceled', 'RES-7');
    await eventually(async () => {
      const r = await t.db.query<{ status: string }>(
        `SELECT status FROM payment_requests WHERE reservation_ref = 'RES-7'`,
      );
      return r.rows[0]?.status === 'CANCELLED' ? true : undefined;
    }, 'the request cancelled with its reservation');

    const forged = await fetch(`${t.baseUrl}/pms/apaleo/${t.tenant.tenantId}/not-the-secret`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'Reservation', type: 'created', id: 'x', data: { entityId: 'RES-2' } }),
    });
    assert.equal(forged.status, 404);
    const off = await manager.post('/control/settings/pms/reservations', { tenant: t.tenant.tenantId, rule: 'off' });
    assert.equal(off.statusCode, 303);
    assert.equal(apaleo.store.subscriptions.size, 0, 'unsubscribed');
  });

  test("connected anew to another property: the former property's subscription is removed at Apaleo", async () => {
    apaleo.store.addProperty('BER', 'Hotel Berlin');
    const on = await manager.post('/control/settings/pms/reservations', {
      tenant: t.tenant.tenantId,
      rule: 'imprint',
    });
    assert.equal(on.statusCode, 303);
    assert.deepEqual(
      [...apaleo.store.subscriptions.values()].map((s) => s.propertyIds),
      [['MUC']],
    );
    const same = await manager.post('/control/settings/pms', connectForm(CLIENT.client_secret));
    assert.equal(same.statusCode, 303);
    assert.equal(apaleo.store.subscriptions.size, 1, 'the same property keeps its rule and subscription');
    const moved = await manager.post('/control/settings/pms', {
      ...connectForm(CLIENT.client_secret),
      property_id: 'BER',
    });
    assert.equal(moved.statusCode, 303);
    assert.match(text((await manager.get(String(moved.headers.location))).body), /Connected to property BER/);
    assert.equal(apaleo.store.subscriptions.size, 0, "MUC's subscription removed");
  });

  test('disconnect: the settings page says not connected', async () => {
    const r = await manager.post('/control/settings/pms/disconnect', { tenant: t.tenant.tenantId });
    assert.equal(r.statusCode, 303);
    assert.match(text((await manager.get('/control/settings')).body), /Not connected/);
  });
});
