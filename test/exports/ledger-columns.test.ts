import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { arrangeStatus, registerSandboxCard } from '../helpers/fixtures.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csvObjects } from './csv-parse.ts';

const D = '2026-12-10';
const BOM = '\uFEFF';

// The accountant's ledger: money signed from the hotel's side, holds apart from money, and what
// each movement did move; in the spreadsheet dialect of the hotel's language unless another is
// chosen on the export form.
describe(`the ledger export: signed amounts, holds apart, net; CSV dialects (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  const refs: Record<string, string> = {};
  before(async () => {
    t = await startTestApp();
    await t.repos.tenants.update(t.tenant.tenantId, { digest_language: 'fr' });
    await createUser(t, 'desk-ledger', t.tenant.tenantId);
    c = await new ControlClient(t, '10.6.1.9').signedIn('desk-ledger');

    // A deposit paid, then part refunded.
    const deposit = await createRequest(t, { request_type: 'DEPOSIT', amount: 150.5, reservation_ref: 'LEDGER-DEP' });
    await arrangeStatus(t.db, deposit.uuid, 'CAPTURED', { amountCaptured: 15050 });
    const refund = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${deposit.uuid}/refund/`,
      payload: { amount: 20 },
    });
    assert.equal(refund.statusCode, 200, refund.body);
    refs.deposit = deposit.reference;
    // Three imprints the daily job holds: one released, one captured in part, one refused.
    const imprint = async (card: string, amount: number, ref: string) => {
      const r = await createRequest(t, {
        request_type: 'IMPRINT',
        amount,
        reservation_ref: ref,
        reservation_data: { checkin: D },
      });
      await registerSandboxCard(t, r.uuid, card);
      refs[ref] = r.reference;
      return r;
    };
    const released = await imprint('4242424242424242', 80, 'LEDGER-RELEASED');
    const captured = await imprint('5555555555554444', 100, 'LEDGER-CAPTURED');
    await imprint('4000000000000341', 60, 'LEDGER-REFUSED');
    const run = await createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );
    assert.deepEqual({ held: run.held, refused: run.refused }, { held: 2, refused: 1 });
    for (const [uuid, action, payload] of [
      [released.uuid, 'release', undefined],
      [captured.uuid, 'capture', { amount: 70 }],
    ] as const) {
      const r = await t.call({ method: 'POST', url: `/api/payment-requests/${uuid}/${action}/`, payload });
      assert.equal(r.statusCode, 200, r.body);
    }
  });
  after(async () => {
    auditResponses(t);
    await t.close();
  });

  const movements = (rows: Record<string, string>[], ref: string) =>
    rows.filter((x) => x.reference === refs[ref]).map((x) => [x.kind, x.state, x.amount, x.held, x.net]);

  test('by default in the French hotel’s dialect: `;`, decimal commas, refunds negative, holds in `held`, net what moved', async () => {
    const r = await c.get('/control/requests/export?what=ledger');
    assert.equal(r.statusCode, 200, r.body);
    assert.ok(r.body.startsWith(`${BOM}movement_id;at;reference;`), r.body.slice(0, 60));
    const rows = csvObjects(r.body.slice(1), ';');
    assert.deepEqual(movements(rows, 'deposit'), [
      ['payment', 'succeeded', '150,50', '', '150,50'],
      ['refund', 'succeeded', '-20,00', '', '-20,00'],
    ]);
    const holdRows = (ref: string) => movements(rows, ref).filter(([kind]) => kind !== 'verification');
    assert.deepEqual(holdRows('LEDGER-RELEASED'), [
      ['hold', 'succeeded', '', '80,00', '0,00'],
      ['release', 'succeeded', '', '-80,00', '0,00'],
    ]);
    assert.deepEqual(holdRows('LEDGER-CAPTURED'), [
      ['hold', 'succeeded', '', '100,00', '0,00'],
      ['capture', 'succeeded', '70,00', '', '70,00'],
    ]);
    assert.deepEqual(holdRows('LEDGER-REFUSED'), [['hold', 'refused', '', '60,00', '0,00']]);
    // A verification (a card registered) moves nothing and holds nothing.
    for (const v of rows.filter((x) => x.kind === 'verification'))
      assert.deepEqual([v.amount, v.held, v.net], ['', '', '0,00']);
    // The total of `net` is the money taken less the money given back: 150.50 - 20 + 70.
    const cents = rows.reduce((sum, x) => sum + Math.round(Number((x.net ?? '').replace(',', '.')) * 100), 0);
    assert.equal(cents, 20050);
  });

  test('the export form offers the dialects, the hotel’s preselected; a choice is kept in the file; a bad one is a 400 that changes nothing', async () => {
    const list = await c.get('/control/requests?q=LEDGER');
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /<form method="get" action="\/control\/requests\/export" class="export">/);
    assert.match(list.body, /<input type="hidden" name="q" value="LEDGER">/, 'the filter goes with the file');
    assert.match(list.body, /<option value="excel-fr" selected>/);
    assert.doesNotMatch(list.body, /<option value="(excel-de|rfc4180)" selected>/);
    await t.repos.tenants.update(t.tenant.tenantId, { digest_language: 'de' });
    try {
      assert.match((await c.get('/control/requests')).body, /<option value="excel-de" selected>/);
      const german = await c.get('/control/requests/export?what=requests&q=LEDGER-DEP');
      assert.equal(csvObjects(german.body.slice(1), ';')[0]?.amount_refunded, '20,00');
    } finally {
      await t.repos.tenants.update(t.tenant.tenantId, { digest_language: 'fr' });
    }

    const english = await c.get('/control/requests/export?what=ledger&q=LEDGER-DEP&csv_dialect=rfc4180');
    assert.equal(english.statusCode, 200);
    assert.ok(english.body.startsWith(`${BOM}movement_id,at,reference,`));
    assert.deepEqual(
      csvObjects(english.body.slice(1)).map((x) => [x.amount, x.net]),
      [
        ['150.50', '150.50'],
        ['-20.00', '-20.00'],
      ],
    );
    const audits = async () => (await t.repos.audit.list({ action: 'export', limit: 100 })).length;
    const before = await audits();
    const bad = await c.get('/control/requests/export?what=ledger&csv_dialect=excel-us');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /This spreadsheet format is not one payreq writes\./);
    const fr = await c.get('/control/requests/export?what=ledger&csv_dialect=excel-us', { 'accept-language': 'fr' });
    assert.equal(fr.statusCode, 400);
    assert.match(fr.body, /Ce format de tableur n’est pas l’un de ceux que payreq écrit\./);
    assert.doesNotMatch(fr.body, /excel-fr, excel-de or rfc4180/, 'no English on a French page');
    assert.equal(await audits(), before, 'refused before anything is recorded');
    const audit = await t.repos.audit.list({ action: 'export', limit: 1 });
    assert.equal((audit[0]?.detail as { csv_dialect?: string } | null)?.csv_dialect, 'rfc4180');
  });
});
