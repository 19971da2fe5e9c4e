import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { csvObjects } from '../exports/csv-parse.ts';
import { registerSandboxCard } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

const D = '2026-12-10';

/** The page's text as read: tags gone, spaces joined. */
const read = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

// What staff read of a request is words, not codes: no key prefix, job name, provider transaction
// id or decline code after its words, and no hold end once the hold is gone.
describe(`codes staff should not read (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let manager: ControlClient;
  let root: ControlClient;
  before(async () => {
    t = await startTestApp();
    await createUser(t, 'manager-words', t.tenant.tenantId);
    await createUser(t, 'root-words');
    manager = await new ControlClient(t, '10.6.5.1').signedIn('manager-words');
    root = await new ControlClient(t, '10.6.5.2').signedIn('root-words');
  });
  after(() => t.close());

  async function registered(card: string, reference: string) {
    const r = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 90,
      reservation_ref: reference,
      reservation_data: { checkin: D },
    });
    await registerSandboxCard(t, r.uuid, card);
    return r;
  }

  test('a held and captured imprint, and a refused one: who, provider, refusal and hold end in words', async () => {
    const held = await registered('5555555555554444', 'RES-WORDS-HELD');
    const stolen = await registered('4000000000009979', 'RES-WORDS-STOLEN');
    const run = await createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );
    assert.deepEqual({ held: run.held, refused: run.refused }, { held: 1, refused: 1 });
    const holdEnd = async () =>
      (
        await t.db.query<{ hold_expires_at: Date | null }>(
          'SELECT hold_expires_at FROM payment_requests WHERE id = $1',
          [held.uuid],
        )
      ).rows[0]?.hold_expires_at;
    const page = async (id: string) => (await manager.get(`/control/requests/${id}`)).body;
    assert.match(await page(held.uuid), /<dt>Hold ends<\/dt><dd>(?!—)[^<]+<\/dd>/, 'while held: when it ends');

    const captured = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${held.uuid}/capture/`,
      payload: { amount: 50 },
    });
    assert.equal(captured.statusCode, 200, captured.body);
    assert.ok(await holdEnd(), 'the request keeps the time the hold would have lapsed');

    const body = await page(held.uuid);
    const text = read(body);
    assert.match(body, /<dt>Hold ends<\/dt><dd>—<\/dd>/, 'captured: no hold to end');
    const key = await t.db.query<{ actor: string }>(
      "SELECT actor FROM status_history WHERE payment_request_id = $1 AND source = 'api' LIMIT 1",
      [held.uuid],
    );
    assert.match(key.rows[0]?.actor ?? '', /^key:/, 'the API call is recorded by its key');
    assert.doesNotMatch(text, /key:/, 'no key prefix to read');
    assert.doesNotMatch(text, /create_deferred_payments/);
    assert.match(text, /Daily job · Holds before arrival|Holds before arrival/);
    const txns = await t.db.query<{ id: string | null }>(
      'SELECT provider_transaction_id AS id FROM money_ledger WHERE payment_request_id = $1',
      [held.uuid],
    );
    for (const { id } of txns.rows) if (id) assert.ok(!text.includes(id), `transaction ${id} shown`);
    assert.match(body, /<th scope="col">Provider<\/th>/);
    assert.match(body, /data-label="Provider">Sandbox<\/td>/);

    // The refusal in words, without the provider's message or code after them.
    const refused = await page(stolen.uuid);
    assert.match(refused, /Card reported lost or stolen/);
    const ledgerError = await t.db.query<{ error: string }>(
      "SELECT error FROM money_ledger WHERE payment_request_id = $1 AND kind = 'hold'",
      [stolen.uuid],
    );
    const error = ledgerError.rows[0]?.error ?? '';
    assert.ok(error, 'the provider said something');
    assert.ok(!refused.includes(`<code>${error}</code>`), `the provider's "${error}" after the words`);

    // The requests export: a hold end only while the hold is on the card.
    const rows = csvObjects((await manager.get('/control/requests/export?what=requests&q=RES-WORDS')).body.slice(1));
    const byRef = Object.fromEntries(rows.map((r) => [r.reservation_ref, r.hold_expires_at]));
    assert.equal(byRef['RES-WORDS-HELD'], '', 'captured: empty');
  });

  test('a sandbox hotel’s provider is the sandbox; the audit names a payouts export in words', async () => {
    const settings = await manager.get('/control/settings');
    assert.equal(settings.statusCode, 200);
    assert.match(settings.body, /Sandbox \(no real payments\)/);
    assert.doesNotMatch(settings.body, /None yet/);

    assert.equal((await manager.get(`/control/payouts/export?tenant=${t.tenant.tenantId}`)).statusCode, 200);
    const audit = read((await root.get('/control/audit?action=export')).body);
    assert.match(audit, /File: payout lines/);
    assert.doesNotMatch(audit, /File: settlements/);
  });
});
