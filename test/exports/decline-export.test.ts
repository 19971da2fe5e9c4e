import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { registerSandboxCard } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csvObjects } from './csv-parse.ts';

const D = '2026-12-10';

// The accountant's and the hotel's view of holds in the exports: when each open hold lapses,
// and why each refused one was refused (payreq's reason and the provider's own code).
describe(`holds in the exports: their end and their refusals (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let c: ControlClient;
  before(async () => {
    t = await startTestApp();
    await createUser(t, 'desk-declines', t.tenant.tenantId);
    c = await new ControlClient(t, '10.6.0.9').signedIn('desk-declines');
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

  test('the ledger export names a refusal’s reason and code; the requests export each hold’s end', async () => {
    const stolen = await registered('4000000000009979', 'RES-STOLEN');
    const held = await registered('5555555555554444', 'RES-HELD');
    const r = await createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );
    assert.deepEqual({ held: r.held, refused: r.refused }, { held: 1, refused: 1 });

    const holds = async (q: string) =>
      csvObjects((await c.get(`/control/requests/export?what=ledger&q=${q}`)).body.slice(1)).filter(
        (x) => x.kind === 'hold',
      );
    const ledger = await holds('RES-STOLEN');
    assert.deepEqual(
      ledger.map((x) => [x.reference, x.kind, x.state, x.decline_reason, x.decline_code]),
      [[stolen.reference, 'hold', 'refused', 'lost_or_stolen', 'lost_or_stolen']],
    );
    const placed = await holds('RES-HELD');
    assert.deepEqual(
      placed.map((x) => [x.kind, x.state, x.decline_reason, x.decline_code]),
      [['hold', 'succeeded', '', '']],
    );

    const requests = csvObjects((await c.get('/control/requests/export?what=requests&q=RES-HELD')).body.slice(1));
    const row = await t.db.query<{ hold_expires_at: Date }>(
      'SELECT hold_expires_at FROM payment_requests WHERE id = $1',
      [held.uuid],
    );
    const end = row.rows[0]?.hold_expires_at;
    assert.ok(end);
    const exported = requests[0]?.hold_expires_at ?? '';
    assert.match(exported, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/, 'on the hotel’s clock');
    assert.equal(Math.floor(Date.parse(exported) / 1000), Math.floor(end.getTime() / 1000));
  });
});
