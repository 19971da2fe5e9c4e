import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { addDays } from '../../src/domain/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, detail, eventually, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

const VISA = '4242424242424242';
const MASTERCARD = '5555555555554444';
const STOLEN = '4000000000009979';
const CHECKIN = '2027-07-10';

// A renewal the bank refuses: the hotel sees a failed guarantee at once, the guest is asked for
// another card on the same link, and the new card, once held, replaces the old hold.
describe(`a refused renewal, then a new card on the same link (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: ListeningApp;
  before(async () => {
    t = await startListeningApp();
  });
  after(() => t.close());

  const cli = async (argv: string[]) => {
    const r = await runCommand(argv, { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq });
    assert.equal(r.exitCode, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const openHolds = async (id: string) =>
    (
      await t.db.query<{ id: string; card_number: string }>(
        `SELECT x.id, k.card_number FROM sandbox_transactions x JOIN sandbox_tokens k ON k.token = x.token
          WHERE x.order_id = $1 AND x.kind = 'hold' AND x.status = 'authorised'`,
        [id],
      )
    ).rows;
  const failedToday = async () =>
    (await t.repos.dayPlan.failedGuarantees(t.tenant.tenantId, 50)).map((r) => r.id as string);
  const liveHold = async (id: string) =>
    (
      await t.db.query<{ txn: string }>('SELECT provider_transaction_id AS txn FROM payment_requests WHERE id = $1', [
        id,
      ])
    ).rows[0]?.txn;
  async function guestRegisters(id: string, card: string) {
    const r = await submitCard(await checkoutForm(t, id), { number: card });
    assert.equal(r.status, 303, r.body);
  }

  test('refused: the old hold stays, the guarantee shows failed, the guest gets the form; the new card replaces the hold', async () => {
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 250,
      reservation_data: { checkin: CHECKIN, checkout: addDays(CHECKIN, 6) },
    });
    await guestRegisters(c.uuid, VISA);
    await eventually(async () => ((await detail(t, c.uuid)).status === 'AUTHORISED' ? true : undefined), 'registered');
    assert.equal(
      (await cli(['job', 'run', 'create_deferred_payments', '--date', addDays(CHECKIN, -2), '--json'])).held,
      1,
    );
    const [old] = await openHolds(c.uuid);
    assert.ok(old);
    const held = await liveHold(c.uuid);
    assert.equal(held, old.id);

    await t.db.query('UPDATE sandbox_tokens SET card_number = $1 WHERE card_number = $2', [STOLEN, VISA]);
    const refused = await cli(['job', 'run', 'renew_holds', '--date', addDays(CHECKIN, 2), '--json']);
    assert.equal(refused.refused, 1);
    assert.ok((await failedToday()).includes(c.uuid), 'the Today page lists the failed guarantee');
    await createUser(t, 'desk-renewal-refused', t.tenant.tenantId);
    const desk = await new ControlClient(t, '10.6.3.9').signedIn('desk-renewal-refused');
    const office = await desk.get(`/control/requests/${c.uuid}`);
    assert.match(
      office.body,
      /The bank refused to renew the hold of this guarantee .* still guarantees the stay until/,
    );
    const list = await desk.get('/control/requests?guarantee=failed');
    assert.match(list.body, new RegExp(c.reference), 'the requests filter finds it');
    const page = await t.app.inject({ method: 'GET', url: `/payment/${c.uuid}/` });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<form/, 'the guest may give another card on the same link');
    assert.equal(await liveHold(c.uuid), held, 'the old hold is still the guarantee');

    await guestRegisters(c.uuid, MASTERCARD);
    await eventually(async () => {
      const d = await detail(t, c.uuid);
      return d.masked_pan && String(d.masked_pan).startsWith('555555') ? d : undefined;
    }, 'the new card recorded');
    const d = await detail(t, c.uuid);
    assert.equal(d.status, 'AUTHORISED_TO_VALIDATE');
    assert.equal(await liveHold(c.uuid), held, 'a card registered is not a hold: the old one still guarantees');
    assert.ok(!(await failedToday()).includes(c.uuid), 'a new card takes it off the failed list');

    const renewed = await cli(['job', 'run', 'renew_holds', '--date', addDays(CHECKIN, 2), '--json']);
    assert.deepEqual({ renewed: renewed.renewed, released: renewed.released }, { renewed: 1, released: 1 });
    const open = await openHolds(c.uuid);
    assert.deepEqual(
      open.map((h) => h.card_number),
      [MASTERCARD],
      'exactly one hold, on the new card',
    );
    assert.notEqual(await liveHold(c.uuid), held);
    assert.equal(await t.app.payreq.reconciler.checkRequest(c.uuid), undefined, 'the books agree');
    assert.equal(
      (await cli(['job', 'run', 'renew_holds', '--date', addDays(CHECKIN, 2), '--json'])).due,
      0,
      'held once: the new card is not held again',
    );
  });
});
