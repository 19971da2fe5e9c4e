import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ControlClient, createUser } from '../control/control-client.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csvObjects } from './csv-parse.ts';

/**
 * What a spreadsheet would run, typed by a PMS or a guest or sent by a provider: every cell of
 * the CSV files that starts like a formula, after any leading whitespace, or with a tab, a
 * carriage return or a line feed, is given a leading apostrophe, so it is shown as text.
 */
describe(`CSV cells that start like a formula are defused, whichever column (${ENGINE})`, () => {
  let t: TestApp;
  let c: ControlClient;
  /** A guest's last name as typed, and the cell the file must hold for it. */
  const NAMES: [typed: string, cell: string][] = [
    ['=HYPERLINK("http://evil.example")', `'=HYPERLINK("http://evil.example")`],
    ['\n=1+1', "'\n'=1+1"],
    ['\r\n=1+1', "'\r\n'=1+1"],
    ['\r=1+1', "'\r'=1+1"],
    // Every line of a cell of several lines, not only its start; a line that is a number stays one.
    ['Martin\n=HYPERLINK("http://evil.example")', `Martin\n'=HYPERLINK("http://evil.example")`],
    ['Martin\r\n  +1\r\n@SUM(A1)\n-12.50\nfin', "Martin\r\n'  +1\r\n'@SUM(A1)\n-12.50\nfin"],
    ['\t=1+1', "'\t=1+1"],
    [' =1+1', "' =1+1"],
    ['\u00a0 @SUM(A1)', "'\u00a0 @SUM(A1)"],
    ['+33 1 23', "'+33 1 23"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['Jean-Paul = Martin', 'Jean-Paul = Martin'],
    ['  Martin', '  Martin'],
  ];
  const references = new Map<string, string>();
  let paid = '';

  before(async () => {
    t = await startTestApp();
    // Written to the row directly: the API refuses line breaks in names and references now, but
    // rows stored before (or imported) may hold them, and the export must defuse them all the same.
    for (const [typed] of NAMES) {
      const made = await createRequest(t, { guest_last_name: 'Placeholder', request_type: 'IMPRINT' });
      await t.db.query('UPDATE payment_requests SET guest_last_name = $2 WHERE id = $1', [made.uuid, typed]);
      references.set(typed, made.reference);
    }
    const deposit = await createRequest(t, { request_type: 'DEPOSIT', amount: 150.5 });
    await t.db.query(`UPDATE payment_requests SET reservation_ref = $2 WHERE id = $1`, [deposit.uuid, '\n-1']);
    paid = deposit.reference;
    await arrangeStatus(t.db, deposit.uuid, 'CAPTURED', { amountCaptured: 15050 });
    // What a provider named its transaction: not typed by the hotel, still text from outside.
    await t.db.query(
      `UPDATE money_ledger SET provider_transaction_id = '=cmd|'' /C calc''!A0' WHERE payment_request_id = $1`,
      [deposit.uuid],
    );
    await createUser(t, 'desk-formulas', t.tenant.tenantId);
    c = await new ControlClient(t).signedIn('desk-formulas');
  });
  after(() => t.close());

  test('requests: each typed text as its cell, amounts still numbers', async () => {
    const r = await c.get('/control/requests/export?what=requests');
    assert.equal(r.statusCode, 200, r.body);
    const rows = csvObjects(r.body.slice(1));
    for (const [typed, cell] of NAMES) {
      const row = rows.find((x) => x.reference === references.get(typed));
      assert.equal(row?.guest_last_name, cell, JSON.stringify(typed));
    }
    const deposit = rows.find((x) => x.reference === paid);
    assert.equal(deposit?.reservation_ref, "'\n-1");
    assert.deepEqual([deposit?.amount, deposit?.amount_captured], ['150.50', '150.50']);
  });

  test('ledger movements: a provider’s transaction id is defused like typed text', async () => {
    const r = await c.get(`/control/requests/export?what=ledger&q=${encodeURIComponent(paid)}`);
    assert.equal(r.statusCode, 200, r.body);
    const [row] = csvObjects(r.body.slice(1));
    assert.equal(row?.provider_transaction_id, "'=cmd|' /C calc'!A0");
    assert.equal(row?.reservation_ref, "'\n-1");
    assert.equal(row?.amount, '150.50');
  });
});
