import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { remittancesRepository } from '../../src/payouts/index.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { jrb, type Operation } from '../payouts/jrb-file.ts';
import { ControlClient, createUser } from './control-client.ts';

const DAY = 86_400_000;

// The Payouts page (/control/payouts): managers and superusers upload the provider's report and
// read the remittances, their lines (unmatched first, linked to their requests), the fees a
// month and what was never paid out; a manager of one hotel sees only that hotel's.
describe(`the back office's Payouts page (${ENGINE})`, () => {
  let t: TestApp;
  let hotel: TenantWithKey;
  let other: TenantWithKey;
  let paid: { uuid: string; reference: string };
  let ops: Operation[];
  before(async () => {
    t = await startTestApp();
    hotel = t.tenant;
    other = await t.newTenant('Hotel Other');
    await createUser(t, 'manager-a', hotel.tenantId, 'manager');
    await createUser(t, 'desk-a', hotel.tenantId, 'frontdesk');
    await createUser(t, 'manager-b', other.tenantId, 'manager');
    await createUser(t, 'root');
    paid = await createRequest(t, { request_type: 'DEPOSIT', amount: 120 });
    const late = await createRequest(t, { request_type: 'DEPOSIT', amount: 50 });
    for (const [id, amount, number, daysAgo] of [
      [paid.uuid, 12_000, '482915', 9],
      [late.uuid, 5_000, '482916', 8],
    ] as const) {
      await t.db.query(
        `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, idempotency_key,
           state, source, legacy_trans_id, created_at)
         VALUES ($1, $2, 'payment', $3, 'EUR', 'sandbox', $4, 'succeeded', 'ipn', $5, $6)`,
        [id, hotel.tenantId, amount, `event:${randomUUID()}`, number, new Date(Date.now() - daysAgo * DAY)],
      );
    }
    ops = [
      {
        orderId: paid.uuid,
        transactionId: '482915',
        type: 'DT',
        amount: 12_000,
        commission: 193,
        paymentDate: new Date(Date.now() - 9 * DAY).toISOString().slice(0, 10).replaceAll('-', ''),
      },
      { orderId: 'BO-2026-7', transactionId: '700001', type: 'DT', amount: 5_000, commission: 95 },
    ];
  });
  after(async () => {
    await t.close();
  });

  const upload = (c: ControlClient, bytes: Buffer, tenant?: string) =>
    c.postMultipart(`/control/payouts/import${tenant ? `?tenant=${tenant}` : ''}`, tenant ? { tenant } : {}, {
      report: { name: 'jrb.csv', type: 'text/csv', bytes },
    });

  test('a manager uploads a report: one remittance, its totals, lines unmatched first, what was not paid out', async () => {
    const c = await new ControlClient(t).signedIn('manager-a');
    const empty = await c.get('/control/payouts');
    assert.equal(empty.statusCode, 200);
    assert.match(empty.body, /<a href="\/control\/payouts" aria-current="page">Payouts<\/a>/);
    assert.match(empty.body, /Import a first report/);
    const r = await upload(c, jrb(ops));
    assert.equal(r.statusCode, 303, r.body);
    const page = await c.get(r.headers.location as string);
    assert.match(page.body, /Imported: 1 remittance, 2 lines, 1 matched, 1 unmatched\./);
    assert.match(page.body, /€170\.00/, 'gross');
    assert.match(page.body, /€2\.88/, 'fees');
    assert.match(page.body, /€167\.12/, 'net');
    // The payment of 50.00 eight days ago is in no remittance: not paid out.
    const missing = /<section class="card" aria-labelledby="payouts-missing-h">([\s\S]*?)<\/section>/.exec(
      page.body,
    )?.[1];
    assert.match(missing ?? '', /€50\.00/);
    assert.doesNotMatch(missing ?? '', /€120\.00/);
    assert.match(page.body, /Fees per month/);
    const [remittance] = await remittancesRepository(t.db).list(hotel.tenantId);
    assert.ok(remittance);
    const detail = await c.get(`/control/payouts/${remittance.id}`);
    assert.equal(detail.statusCode, 200);
    const unmatchedAt = detail.body.indexOf('BO-2026-7');
    const matchedAt = detail.body.indexOf(`href="/control/requests/${paid.uuid}">${paid.reference}</a>`);
    assert.ok(unmatchedAt > 0 && matchedAt > 0 && unmatchedAt < matchedAt, 'the unmatched line first');
    assert.match(detail.body, /No request of this hotel has this order/);
    assert.match(detail.body, /Matched: Guest payment/);
    const audit = await t.db.query<{ action: string; outcome: string }>(
      "SELECT action, outcome FROM admin_audit WHERE action = 'payouts_imported'",
    );
    assert.deepEqual(audit.rows, [{ action: 'payouts_imported', outcome: 'ok' }]);
    const csv = await c.get(`/control/payouts/export?tenant=${hotel.tenantId}`);
    assert.equal(csv.statusCode, 200);
    assert.match(csv.headers['content-type'] as string, /text\/csv/);
    assert.equal(csv.body.trim().split('\r\n').length, 3, 'a header and two lines');
    // Named by the range it holds: open ends are where the hotel's remittances begin and end.
    const named = (r: { headers: Record<string, unknown> }) =>
      /filename="([^"]+)"/.exec(String(r.headers['content-disposition']))?.[1];
    assert.equal(named(csv), 'payreq-payouts-2026-11-21-2026-11-21.csv');
    const from = await c.get(`/control/payouts/export?tenant=${hotel.tenantId}&from=2026-11-01`);
    assert.equal(named(from), 'payreq-payouts-2026-11-01-2026-11-21.csv');
    const both = await c.get(`/control/payouts/export?tenant=${hotel.tenantId}&from=2026-11-01&to=2026-11-30`);
    assert.equal(named(both), 'payreq-payouts-2026-11-01-2026-11-30.csv', 'a range given is named as given');
  });

  test('the same report again changes nothing; a malformed one is refused, naming its line, storing nothing', async () => {
    const c = await new ControlClient(t).signedIn('manager-a');
    await c.get('/control/payouts');
    const again = await upload(c, jrb(ops, { eol: '\n', encoding: 'latin1' }));
    assert.equal(again.statusCode, 303);
    const after = (await c.get('/control/payouts')).body;
    assert.match(after, /Nothing new: the 2 lines of this file were already imported, and nothing more matches now\./);
    assert.doesNotMatch(after, /Imported:/, 'not the first import’s counts again');
    const malformed = Buffer.from(jrb(ops).toString().replace(';DT;', ';XX;'));
    const bad = await upload(c, malformed);
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /The file is refused and nothing was stored: line 3: OPERATION_TYPE &quot;XX&quot;/);
    // The refusal comes first, above the tables, with its form: where the eye is after the upload.
    assert.ok(
      bad.body.indexOf('payouts-problem') < bad.body.indexOf('payouts-missing-h'),
      'the refusal above the tables',
    );
    // In the reader's language, the file's own names kept.
    c.headers = { 'accept-language': 'fr' };
    const fr = await upload(c, malformed);
    assert.match(
      fr.body,
      /Le fichier est refusé et rien n’a été enregistré : ligne 3 : OPERATION_TYPE « XX » n’est ni DT \(débit\) ni CT \(crédit\)\./,
    );
    const comma = await upload(c, Buffer.from(jrb(ops).toString().replaceAll(';', ',')));
    assert.match(comma.body, /ligne 1 : un journal de rapprochement bancaire commence par son enregistrement TITRE/);
    c.headers = { 'accept-language': 'de' };
    const de = await upload(c, malformed);
    assert.match(
      de.body,
      /Die Datei wurde abgelehnt, nichts wurde gespeichert: Zeile 3: OPERATION_TYPE „XX“ ist weder DT/,
    );
    assert.doesNotMatch(de.body + fr.body, /is neither|nothing was stored/, 'no English in their pages');
    c.headers = {};
    const none = await upload(c, Buffer.alloc(0));
    assert.equal(none.statusCode, 422);
    assert.match(none.body, /Choose the report file first/);
    const counts = await t.db.query<{ r: number; l: number }>(
      'SELECT (SELECT count(*) FROM remittances)::int AS r, (SELECT count(*) FROM remittance_lines)::int AS l',
    );
    assert.deepEqual(counts.rows[0], { r: 1, l: 2 });
    // No CSRF token: refused before anything is read.
    c.csrf = 'nope';
    const forged = await upload(c, jrb(ops));
    assert.equal(forged.statusCode, 403);
  });

  test('managers and superusers only; a manager of another hotel sees nothing of this one', async () => {
    const [remittance] = await remittancesRepository(t.db).list(hotel.tenantId);
    assert.ok(remittance);
    const desk = await new ControlClient(t).signedIn('desk-a');
    assert.equal((await desk.get('/control/payouts')).statusCode, 403);
    assert.doesNotMatch((await desk.get('/control/requests')).body, /href="\/control\/payouts"/, 'not in its menu');
    assert.equal((await upload(desk, jrb(ops))).statusCode, 403);

    const b = await new ControlClient(t).signedIn('manager-b');
    const theirs = await b.get('/control/payouts');
    assert.equal(theirs.statusCode, 200);
    assert.match(theirs.body, /No remittance imported yet/);
    assert.equal((await b.get(`/control/payouts/${remittance.id}`)).statusCode, 404);
    assert.equal((await b.get(`/control/payouts?tenant=${hotel.tenantId}`)).statusCode, 404);
    assert.equal((await b.get(`/control/payouts/export?tenant=${hotel.tenantId}`)).statusCode, 404);

    const root = await new ControlClient(t).signedIn('root');
    const chosen = await root.get(`/control/payouts?tenant=${hotel.tenantId}`);
    assert.equal(chosen.statusCode, 200);
    assert.match(chosen.body, new RegExp(`href="/control/payouts/${remittance.id}"`));
    assert.equal((await root.get(`/control/payouts/${remittance.id}`)).statusCode, 200);
    assert.equal((await root.get('/control/payouts/99999999')).statusCode, 404);
    assert.equal((await root.get('/control/payouts/nope')).statusCode, 404);
  });

  // The sandbox's remittance report names a hotel's orders: its own address asks for the hotel's
  // API key, and a session of the hotel downloads it here.
  test("the sandbox's report for a session of the hotel: a manager's own, never another hotel's", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const a = await new ControlClient(t).signedIn('manager-a');
    const own = await a.get(`/control/payouts/sandbox-report?date=${today}`);
    assert.equal(own.statusCode, 200, own.body);
    assert.match(own.headers['content-type'] as string, /text\/csv/);
    assert.match(own.body, /^TITRE;[^;]*;[^;]*;TABLE_V2\r\nENTETE;/);
    assert.equal((await a.get('/control/payouts/sandbox-report?date=2026-02-30')).statusCode, 404);
    const b = await new ControlClient(t).signedIn('manager-b');
    assert.equal(
      (await b.get(`/control/payouts/sandbox-report?tenant=${hotel.tenantId}&date=${today}`)).statusCode,
      404,
    );
    const desk = await new ControlClient(t).signedIn('desk-a');
    assert.notEqual((await desk.get(`/control/payouts/sandbox-report?date=${today}`)).statusCode, 200);
    const anonymous = await t.app.inject({ method: 'GET', url: `/control/payouts/sandbox-report?date=${today}` });
    assert.equal(anonymous.statusCode, 303);
    assert.match(anonymous.headers.location as string, /^\/control\/sign-in/);
  });
});
