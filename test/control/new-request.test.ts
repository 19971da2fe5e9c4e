import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

const PUBLIC = 'https://pay.hotel.example';

describe(`back office: New request and the payment link (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let desk: ControlClient;
  let root: ControlClient;
  before(async () => {
    t = await startTestApp({ env: { PUBLIC_BASE_URL: PUBLIC } });
    await createUser(t, 'phone', t.tenant.tenantId);
    await createUser(t, 'root');
    desk = await new ControlClient(t, '10.9.0.1').signedIn('phone');
    root = await new ControlClient(t, '10.9.0.2').signedIn('root');
  });
  after(() => t.close());

  const valid = {
    request_type: 'DEPOSIT',
    amount: '120,50',
    currency: 'EUR',
    language: 'de',
    guest_first_name: 'Jeanne',
    guest_last_name: 'Martin',
    guest_email: 'jeanne.martin@example.com',
    guest_phone: '+33 6 12 34 56 78',
    reservation_ref: 'TEL-0042',
    checkin: '2026-12-24',
    checkout: '2026-12-27',
    room_type: 'Double',
  };
  const api = async (id: string) => (await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json();

  test('a phone booking: the request is created in the user’s tenant as the PMS would, and its link can be copied', async () => {
    const form = await desk.get('/control/requests/new');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<form method="post" action="\/control\/requests\/new"/);
    const r = await desk.post('/control/requests/new', valid);
    assert.equal(r.statusCode, 303, r.body);
    const id = /^\/control\/requests\/([0-9a-f-]{36})$/.exec(String(r.headers.location))?.[1] ?? '';
    const d = await api(id);
    assert.deepEqual(
      [d.request_type, d.amount, d.currency, d.guest_email, d.reservation_ref, d.reservation_data, d.status],
      [
        'DEPOSIT',
        120.5,
        'EUR',
        'jeanne.martin@example.com',
        'TEL-0042',
        { checkin: '2026-12-24', checkout: '2026-12-27', room_type: 'Double' },
        'NOT_INITIATED',
      ],
    );
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, id);
    assert.deepEqual([row?.language, row?.guest_phone], ['de', '+33 6 12 34 56 78']);
    const history = await t.repos.paymentRequests.history(id);
    assert.deepEqual([history[0]?.source, history[0]?.actor], ['admin', 'phone']);

    const page = await desk.get(String(r.headers.location));
    assert.match(page.body, new RegExp(`${d.reference} created`));
    assert.match(
      page.body,
      new RegExp(`<input id="payment-link" class="key" readonly value="${PUBLIC}/payment/${id}/"`),
    );
    assert.match(page.body, /data-copy="payment-link"/);
    const audit = await t.repos.audit.list({ action: 'request_created', limit: 1 });
    assert.deepEqual([audit[0]?.username, audit[0]?.target, audit[0]?.outcome], ['phone', d.reference, 'ok']);

    // Resend says what was sent to whom, not a bare "Done.".
    const confirm = await desk.get(`/control/requests/${id}/confirm?action=resend`);
    const nonce = /name="nonce" value="([^"]+)"/.exec(confirm.body)?.[1] ?? '';
    const sent = await desk.post(`/control/requests/${id}/resend`, { nonce });
    assert.equal(sent.statusCode, 303);
    assert.match((await desk.get(`/control/requests/${id}`)).body, /on its way to jeanne\.martin@example\.com/);
  });

  test('the API’s checks, all in one answer, each beside its field; nothing created', async () => {
    const before = await countRows(t.db);
    await desk.get('/control/requests/new');
    const r = await desk.post('/control/requests/new', {
      ...valid,
      request_type: 'IMPRINT',
      amount: '10.001',
      guest_email: 'not-an-email',
      guest_last_name: '',
      checkout: '2026-12-20',
    });
    assert.equal(r.statusCode, 422);
    assert.match(r.body, /Some fields need fixing; nothing was created/);
    const invalid = [...r.body.matchAll(/<input id="n-(\w+)"[^>]* aria-invalid="true"/g)].map((m) => m[1]).sort();
    assert.deepEqual(invalid, ['amount', 'checkout', 'guest_email', 'guest_last_name']);
    assert.match(r.body, /id="n-checkout-error" class="error-text">Must not be before the check-in/);
    // What was typed stays in the form.
    assert.match(r.body, /name="reservation_ref" type="text" value="TEL-0042"/);
    assert.equal(await countRows(t.db), before);
  });

  test('a DEPOSIT without an amount: the API’s 400, on the amount, in the page’s language', async () => {
    await desk.get('/control/requests/new');
    const r = await desk.post('/control/requests/new', { ...valid, amount: '' });
    assert.equal(r.statusCode, 422);
    assert.match(r.body, /id="n-amount-error" class="error-text">A deposit needs an amount above 0/);
    // In French, each problem in French: none of the API's English reaches the page.
    await desk.get('/control/language/fr?back=/control/requests/new');
    const fr = await desk.post('/control/requests/new', {
      ...valid,
      amount: '2000000',
      guest_email: 'x',
      checkout: '2026-12-01',
    });
    assert.match(fr.body, /id="n-amount-error" class="error-text">1 000 000 au plus/);
    assert.match(fr.body, /id="n-guest_email-error" class="error-text">Adresse e-mail non valable/);
    assert.match(fr.body, /id="n-checkout-error" class="error-text">Ne peut pas précéder l’arrivée/);
    assert.doesNotMatch(fr.body, /must |DEPOSIT requests/);
    await desk.get('/control/language/en?back=/control/requests/new');
  });

  test('a superuser picks the hotel; a tenant user cannot create in another tenant', async () => {
    const other = await t.newTenant('Hôtel du Port');
    await root.get('/control/requests/new');
    const none = await root.post('/control/requests/new', valid);
    assert.equal(none.statusCode, 422);
    assert.match(none.body, /Choose the hotel/);
    await root.get('/control/requests/new');
    const made = await root.post('/control/requests/new', {
      ...valid,
      tenant: other.tenantId,
      reservation_ref: 'PORT-1',
    });
    assert.equal(made.statusCode, 303, made.body);
    assert.equal(await countRows(t.db, other.tenantId), 1);

    await desk.get('/control/requests/new');
    const foreign = await desk.post('/control/requests/new', { ...valid, tenant: other.tenantId });
    assert.equal(foreign.statusCode, 404);
    assert.equal(await countRows(t.db, other.tenantId), 1);
  });

  test('without the form’s CSRF token nothing is created', async () => {
    const before = await countRows(t.db);
    await desk.get('/control/requests/new');
    const r = await desk.post('/control/requests/new', { ...valid, _csrf: 'forged' });
    assert.equal(r.statusCode, 403);
    assert.equal(await countRows(t.db), before);
  });

  test('a form the schema refuses (a field sent twice, one too long): each beside its field; nothing created', async () => {
    const before = await countRows(t.db);
    await desk.get('/control/requests/new');
    const r = await desk.post('/control/requests/new', {
      ...valid,
      guest_email: ['jeanne.martin@example.com', 'someone.else@example.com'],
      room_type: 'D'.repeat(501),
    });
    assert.equal(r.statusCode, 422);
    assert.match(r.body, /Some fields need fixing; nothing was created/);
    const invalid = [...r.body.matchAll(/<input id="n-(\w+)"[^>]* aria-invalid="true"/g)].map((m) => m[1]).sort();
    assert.deepEqual(invalid, ['guest_email', 'room_type']);
    assert.match(r.body, /id="n-guest_email-error" class="error-text">Not a valid value</);
    assert.match(r.body, /id="n-room_type-error" class="error-text">Too long</);
    // The rest stays as typed.
    assert.match(r.body, /name="reservation_ref" type="text" value="TEL-0042"/);
    assert.equal(await countRows(t.db), before);
  });
});
