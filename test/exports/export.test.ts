import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ControlClient, createUser, withoutLabels } from '../control/control-client.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, newTenant, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csvObjects } from './csv-parse.ts';

const BOM = '\uFEFF';

// The back office's totals and CSV exports of the filtered list, for a hotel in Paris: amounts
// as decimals beside their currency, times on the hotel's clock, text a spreadsheet cannot run.
describe(`exports and totals in the back office (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  let deposit = { uuid: '', reference: '' };
  let imprint = { uuid: '', reference: '' };
  let lateNight = { uuid: '', reference: '' };
  let otherHotelRequest = '';

  before(async () => {
    t = await startTestApp();
    await createUser(t, 'desk-exports', t.tenant.tenantId);
    await createUser(t, 'root-exports');
    deposit = await createRequest(t, {
      request_type: 'DEPOSIT',
      amount: 150.5,
      guest_first_name: 'Zoé',
      guest_last_name: '=HYPERLINK("http://evil.example")',
      reservation_ref: 'RES, "quoted"',
    });
    await arrangeStatus(t.db, deposit.uuid, 'CAPTURED', { amountCaptured: 15050 });
    const refund = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${deposit.uuid}/refund/`,
      payload: { amount: 20 },
    });
    assert.equal(refund.statusCode, 200, refund.body);
    imprint = await createRequest(t, { request_type: 'IMPRINT', amount: 80, currency: 'CHF' });
    // 23:30 UTC on 1 November is 00:30 on the 2nd in Paris: the hotel's day, not UTC's.
    lateNight = await createRequest(t, { request_type: 'IMPRINT', amount: 10 });
    await t.db.query(`UPDATE payment_requests SET created_at = '2026-11-01T23:30:00Z' WHERE id = $1`, [lateNight.uuid]);
    const other = await newTenant(t.repos, 'Hôtel Voisin');
    otherHotelRequest = (await createRequest(t, { amount: 999 }, other)).uuid;
    c = await new ControlClient(t, '10.6.0.1').signedIn('desk-exports');
  });
  after(() => t.close());

  test('the list shows the count and the sums per currency for its filter', async () => {
    const r = await c.get('/control/requests');
    assert.equal(r.statusCode, 200);
    assert.match(r.body, /<h2 id="totals-h">Totals for this filter<\/h2><p>3 requests<\/p>/);
    assert.match(
      withoutLabels(r.body),
      /<th scope="row">EUR<\/th><td class="num">€160\.50<\/td><td class="num">€150\.50<\/td><td class="num">€20\.00<\/td>/,
    );
    assert.match(withoutLabels(r.body), /<th scope="row">CHF<\/th><td class="num">CHF\s80\.00<\/td>/);
    const chf = await c.get('/control/requests?q=CHF-none&type=DEPOSIT');
    assert.match(chf.body, /<p>0 requests<\/p>/);
  });

  test('requests to CSV: a header, one row per request, decimals, the hotel’s time, formulas defused', async () => {
    const r = await c.get('/control/requests/export?what=requests');
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(
      String(r.headers['content-disposition']),
      /^attachment; filename="payreq-requests-\d{4}-\d\d-\d\d\.csv"$/,
    );
    assert.ok(r.body.startsWith(BOM), 'a byte-order mark for spreadsheets');
    const rows = csvObjects(r.body.slice(1));
    assert.deepEqual(
      rows.map((x) => x.reference).sort(),
      [deposit.reference, imprint.reference, lateNight.reference].sort(),
    );
    assert.ok(!r.body.includes(otherHotelRequest), 'another hotel’s request is not in the file');
    const d = rows.find((x) => x.reference === deposit.reference);
    assert.deepEqual(
      [d?.uuid, d?.request_type, d?.currency, d?.amount, d?.amount_captured, d?.amount_refunded],
      [deposit.uuid, 'DEPOSIT', 'EUR', '150.50', '150.50', '20.00'],
    );
    assert.equal(d?.guest_first_name, 'Zoé');
    assert.equal(d?.guest_last_name, `'=HYPERLINK("http://evil.example")`);
    assert.equal(d?.reservation_ref, 'RES, "quoted"');
    assert.equal(d?.checkin, '2026-12-24');
    assert.equal(rows.find((x) => x.reference === imprint.reference)?.amount, '80.00');
    assert.equal(rows.find((x) => x.reference === lateNight.reference)?.created_at, '2026-11-02T00:30:00+01:00');
    // Oldest first.
    assert.equal(rows[0]?.reference, lateNight.reference);
  });

  test('the dates of the filter are the hotel’s days', async () => {
    const second = await c.get('/control/requests/export?what=requests&created_from=2026-11-02&created_to=2026-11-02');
    assert.deepEqual(
      csvObjects(second.body.slice(1)).map((x) => x.reference),
      [lateNight.reference],
    );
    const first = await c.get('/control/requests?created_from=2026-11-01&created_to=2026-11-01');
    assert.match(first.body, /<p>0 requests<\/p>/);
    // Every filter of the list reaches the file: no failed guarantee here, so no row.
    const failed = await c.get('/control/requests/export?what=requests&guarantee=failed');
    assert.equal(failed.statusCode, 200);
    assert.deepEqual(csvObjects(failed.body.slice(1)), []);
  });

  test('ledger movements to CSV: each movement in the dates, with its request', async () => {
    const r = await c.get(`/control/requests/export?what=ledger&q=${encodeURIComponent(deposit.reference)}`);
    assert.equal(r.statusCode, 200, r.body);
    assert.match(String(r.headers['content-disposition']), /payreq-ledger-/);
    const rows = csvObjects(r.body.slice(1));
    assert.deepEqual(
      rows.map((x) => [x.reference, x.kind, x.state, x.currency, x.amount, x.held, x.net]),
      [
        [deposit.reference, 'payment', 'succeeded', 'EUR', '150.50', '', '150.50'],
        [deposit.reference, 'refund', 'succeeded', 'EUR', '-20.00', '', '-20.00'],
      ],
    );
    assert.match(rows[1]?.at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0[12]:00$/);
  });

  test('a superuser exports one hotel at a time, named in the filter', async () => {
    const root = await new ControlClient(t, '10.6.0.2').signedIn('root-exports');
    const list = await root.get('/control/requests');
    assert.match(list.body, /Choose a hotel in the filter to export its requests\./);
    const none = await root.get('/control/requests/export?what=requests');
    assert.equal(none.statusCode, 400);
    assert.match(none.body, /Choose a hotel in the filter to export its requests\./);
    const unknown = await root.get(`/control/requests/export?what=guests&tenant=${t.tenant.tenantId}`);
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.body, /An export is of requests or of money movements\./);
    const frNone = await root.get('/control/requests/export?what=requests', { 'accept-language': 'fr' });
    assert.match(frNone.body, /Choisissez un établissement dans le filtre/);
    const one = await root.get(`/control/requests/export?what=requests&tenant=${t.tenant.tenantId}`);
    assert.equal(one.statusCode, 200);
    assert.equal(csvObjects(one.body.slice(1)).length, 3);
  });

  test('a hotel’s user cannot name another hotel; every download is audited', async () => {
    const other = await newTenant(t.repos, 'Hôtel Tiers');
    const r = await c.get(`/control/requests/export?what=requests&tenant=${other.tenantId}`);
    assert.equal(r.statusCode, 404);
    const audit = await t.repos.audit.list({ action: 'export', limit: 20 });
    assert.ok(audit.some((a) => a.username === 'desk-exports' && a.outcome === 'ok'));
  });
});
