import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { addDays, localDate } from '../../src/domain/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { registerSandboxCard } from '../helpers/fixtures.ts';
import { countingProvider } from '../helpers/providers.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const VISA = '4242424242424242';
const MASTERCARD = '5555555555554444';
const STOLEN = '4000000000009979';
const INSUFFICIENT_FUNDS = '4000000000009995';
const TZ = 'Europe/Paris';

interface SandboxHold {
  id: string;
  kind: string;
  status: string;
  amount: number;
  captured_amount: number;
  expires_at: string | null;
  reason: string | null;
}

describe(`renew_holds: a guarantee that lasts the stay, on the sandbox's test clock (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  before(async () => {
    t = await startTestApp({ provider: provider.provider });
  });
  after(() => t.close());

  const cli = async (argv: string[]) => {
    const r = await runCommand(argv, { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq });
    assert.equal(r.exitCode, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const holdJob = (date: string) => cli(['job', 'run', 'create_deferred_payments', '--date', date, '--json']);
  const renewJob = (date: string) => cli(['job', 'run', 'renew_holds', '--date', date, '--json']);
  const detail = async (id: string) => (await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json();
  const holdsAtSandbox = async (id: string): Promise<SandboxHold[]> => {
    const r = await t.app.inject({ method: 'GET', url: `/sandbox/orders/${id}`, headers: t.tenant.headers });
    assert.equal(r.statusCode, 200, r.body);
    return (r.json().transactions as SandboxHold[]).filter((x) => x.kind === 'hold');
  };
  /** The next run's moment: 07:15 hotel time the day after `day` (the renewal job's schedule). */
  const nextRun = (day: string) => {
    const probe = new Date(`${addDays(day, 1)}T07:15:00Z`);
    // Paris is UTC+1 in winter: 07:15 there is 06:15 UTC.
    return new Date(probe.getTime() - 3600_000);
  };
  async function imprint(stay: { checkin: string; checkout?: string }, card: string, amount = 300) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount, reservation_data: stay });
    await registerSandboxCard(t, c.uuid, card);
    return c.uuid as string;
  }
  const clear = () =>
    t.db.query(
      "UPDATE payment_requests SET status = 'CANCELLED' WHERE status IN ('AUTHORISED', 'AUTHORISED_TO_VALIDATE')",
    );

  test('a seven-night stay on a Visa card: one open hold every day, renewed before it lapses, reaching check-out', async () => {
    await clear();
    const checkin = '2027-02-10';
    const checkout = addDays(checkin, 7);
    const id = await imprint({ checkin, checkout }, VISA);
    const first = addDays(checkin, -2);
    assert.equal((await holdJob(first)).held, 1);
    const renewed: string[] = [];
    for (let day = first; day <= checkout; day = addDays(day, 1)) {
      const r = await renewJob(day);
      assert.deepEqual(Object.keys(r).filter((k) => ['due', 'renewed', 'refused', 'in_doubt'].includes(k)).length, 4);
      if (r.renewed > 0) renewed.push(day);
      const d = await detail(id);
      assert.equal(d.status, 'AUTHORISED_TO_VALIDATE', `${day}: still guaranteed`);
      const holds = await holdsAtSandbox(id);
      const open = holds.filter((h) => h.status === 'authorised');
      assert.equal(open.length, 1, `${day}: exactly one open hold at the sandbox (${JSON.stringify(holds)})`);
      const live = open[0] as SandboxHold;
      assert.equal(live.amount, 30000);
      assert.equal(live.expires_at, d.hold_expires_at, `${day}: the request's end is its live hold's`);
      if (day < checkout) {
        assert.ok(
          Date.parse(live.expires_at ?? '') > nextRun(day).getTime(),
          `${day}: the live hold (ends ${live.expires_at}) outlasts the next run`,
        );
      }
    }
    // Placed on 8 Feb at 07:00, Visa's 4 days 18 hours end it on the 13th at 01:00: renewed on
    // the 12th; that one ends on the 17th (check-out) at 01:15: renewed on the 16th.
    assert.deepEqual(renewed, ['2027-02-12', '2027-02-16']);
    const d = await detail(id);
    assert.ok(localDate(TZ, new Date(d.hold_expires_at)) > checkout, 'the live hold reaches past check-out');
    const holds = await holdsAtSandbox(id);
    assert.deepEqual(
      holds.map((h) => [h.status, h.reason]),
      [
        ['cancelled', null],
        ['cancelled', 'reauthorisation'],
        ['authorised', 'reauthorisation'],
      ],
    );
    const events = await t.db.query<{ type: string; expires: string }>(
      `SELECT type, data->>'hold_expires_at' AS expires FROM events
        WHERE payment_request_id = $1 AND type = 'payment_request.hold_renewed' ORDER BY id`,
      [id],
    );
    assert.equal(events.rows.length, 2);
    assert.equal(events.rows[1]?.expires, d.hold_expires_at, 'the event carries the new end');

    // A no-show: the hotel takes part of the guarantee, from the live hold, once.
    const key = { 'idempotency-key': `no-show-${id}` };
    for (let i = 0; i < 2; i++) {
      const r = await t.call({
        method: 'POST',
        url: `/api/payment-requests/${id}/capture/`,
        headers: key,
        payload: { amount: 120 },
      });
      assert.equal(r.statusCode, 200, r.body);
    }
    const after = await holdsAtSandbox(id);
    assert.deepEqual(
      after.map((h) => [h.status, h.captured_amount]),
      [
        ['cancelled', 0],
        ['cancelled', 0],
        ['captured', 12000],
      ],
    );
    assert.equal((await detail(id)).amount_captured, 120);
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined, 'the books agree both ways');

    // The front desk sees the chain of holds on the request's page, in its language.
    await createUser(t, 'desk-renewals', t.tenant.tenantId);
    const desk = await new ControlClient(t, '10.6.2.9').signedIn('desk-renewals');
    const text = async () => {
      const page = await desk.get(`/control/requests/${id}`);
      assert.equal(page.statusCode, 200, page.body);
      const start = page.body.indexOf('id="holds-h"');
      assert.ok(start > 0, 'the page has its chain of holds');
      const section = page.body.slice(start, page.body.indexOf('</section>', start));
      return section.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    };
    const chain = await text();
    assert.equal(chain.match(/Released/g)?.length, 2, chain);
    assert.equal(chain.match(/\(renewal\)/g)?.length, 2, chain);
    assert.match(chain, /Captured/);
    // Each hold by its place in the chain, never the provider's transaction id.
    assert.match(chain, /Hold 1 .*Hold 2 \(renewal\).*Hold 3 \(renewal\)/);
    const ids = await t.db.query<{ id: string }>(
      "SELECT provider_transaction_id AS id FROM money_ledger WHERE payment_request_id = $1 AND kind = 'hold'",
      [id],
    );
    for (const { id: txn } of ids.rows) if (txn) assert.ok(!chain.includes(txn), `${txn} shown`);
    await desk.get('/control/language/fr?back=/control/requests');
    assert.match(await text(), /Libérée le .*Libérée le .*Encaissée/);
  });

  test('a Mastercard keeps its hold 7 days: a short stay needs no renewal', async () => {
    await clear();
    const checkin = '2027-03-10';
    const id = await imprint({ checkin, checkout: addDays(checkin, 3) }, MASTERCARD);
    await holdJob(addDays(checkin, -2));
    const [hold] = await holdsAtSandbox(id);
    const days = (Date.parse(hold?.expires_at ?? '') - Date.parse(`${addDays(checkin, -2)}T06:00:00Z`)) / 86_400_000;
    assert.equal(days, 7, 'placed at 07:00 Paris, 7 days later');
    for (let day = addDays(checkin, -2); day <= addDays(checkin, 3); day = addDays(day, 1)) {
      assert.equal((await renewJob(day)).due, 0, day);
    }
  });

  test('a renewal the bank refuses keeps the old hold, fails the guarantee and asks the guest', async () => {
    await clear();
    const checkin = '2027-04-10';
    const id = await imprint({ checkin, checkout: addDays(checkin, 6) }, VISA);
    await holdJob(addDays(checkin, -2));
    const live = (await detail(id)).hold_expires_at;
    // The card is reported stolen meanwhile.
    await t.db.query(
      "UPDATE sandbox_tokens SET card_number = $1 WHERE token = (SELECT token FROM sandbox_transactions WHERE order_id = $2 AND kind = 'hold')",
      [STOLEN, id],
    );
    const r = await renewJob(addDays(checkin, 2));
    assert.deepEqual({ due: r.due, renewed: r.renewed, refused: r.refused }, { due: 1, renewed: 0, refused: 1 });
    const d = await detail(id);
    assert.equal(d.status, 'AUTHORISED_TO_VALIDATE', 'the old hold is still the guarantee until it lapses');
    assert.equal(d.hold_expires_at, live);
    assert.equal(d.guarantee_failures, 1);
    assert.equal(d.hold_decline_reason, 'lost_or_stolen');
    const open = (await holdsAtSandbox(id)).filter((h) => h.status === 'authorised');
    assert.equal(open.length, 1, 'the old hold stays open');
    const events = await t.db.query<{ type: string }>(
      'SELECT type FROM events WHERE payment_request_id = $1 ORDER BY id DESC LIMIT 1',
      [id],
    );
    assert.equal(events.rows[0]?.type, 'payment_request.guarantee_failed');
    const mails = await t.db.query<{ kind: string }>(
      'SELECT kind FROM email_outbox WHERE payment_request_id = $1 AND kind LIKE $2 ORDER BY kind',
      [id, 'guarantee_failed%'],
    );
    assert.ok(
      mails.rows.some((m) => m.kind === 'guarantee_failed_guest'),
      'the guest is asked for another card',
    );
    const again = await renewJob(addDays(checkin, 3));
    assert.deepEqual(
      { due: again.due, refused: again.refused },
      { due: 0, refused: 0 },
      'a card the bank refused is not tried again: only a new card is',
    );
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
  });

  test('a renewal whose answer was lost: in doubt, settled by reconcile, the old hold released by the next run', async () => {
    await clear();
    const checkin = '2027-05-10';
    const id = await imprint({ checkin, checkout: addDays(checkin, 6) }, VISA);
    await holdJob(addDays(checkin, -2));
    const before = (await detail(id)).hold_expires_at;
    provider.loseAnswers(true);
    const r = await renewJob(addDays(checkin, 2));
    provider.loseAnswers(false);
    assert.deepEqual({ due: r.due, in_doubt: r.in_doubt, released: r.released }, { due: 1, in_doubt: 1, released: 0 });
    assert.equal((await detail(id)).hold_expires_at, before, 'nothing recorded while nobody knows');
    assert.equal((await renewJob(addDays(checkin, 2))).due, 0, 'claimed while in doubt: no second renewal');
    await t.db.query("UPDATE money_ledger SET updated_at = now() - interval '1 day' WHERE state = 'in_doubt'");
    await t.app.payreq.reconciler.reconcile();
    const d = await detail(id);
    assert.notEqual(d.hold_expires_at, before, 'reconcile found the renewal placed');
    assert.equal((await holdsAtSandbox(id)).filter((h) => h.status === 'authorised').length, 2);
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined, 'the replaced hold is known to the books');
    // The next run (here, an operator's the same day, while the old hold still lives) releases it.
    const next = await renewJob(addDays(checkin, 2));
    assert.deepEqual({ due: next.due, released: next.released }, { due: 0, released: 1 });
    assert.equal((await holdsAtSandbox(id)).filter((h) => h.status === 'authorised').length, 1);
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
  });

  test('a soft decline (insufficient funds) is tried again each day until the check-in day, whose run makes it final', async () => {
    await clear();
    const checkin = '2027-06-10';
    const id = await imprint({ checkin, checkout: addDays(checkin, 2) }, INSUFFICIENT_FUNDS);
    for (const day of [addDays(checkin, -2), addDays(checkin, -1)]) {
      const r = await holdJob(day);
      assert.deepEqual({ declined: r.declined, refused: r.refused }, { declined: 1, refused: 0 }, day);
      const d = await detail(id);
      assert.equal(d.status, 'AUTHORISED', `${day}: the card stays the guarantee`);
      assert.equal(d.hold_decline_reason, 'insufficient_funds');
    }
    const r = await holdJob(checkin);
    assert.equal(r.refused, 1);
    const d = await detail(id);
    assert.equal(d.status, 'ERROR');
    assert.ok(d.guarantee_failed_at);
    const types = await t.db.query<{ type: string }>(
      'SELECT type FROM events WHERE payment_request_id = $1 ORDER BY id',
      [id],
    );
    assert.deepEqual(types.rows.map((e) => e.type).slice(-3), [
      'payment_request.hold_declined',
      'payment_request.hold_declined',
      'payment_request.guarantee_failed',
    ]);
  });
});
