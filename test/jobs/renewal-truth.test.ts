import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { addDays } from '../../src/domain/index.ts';
import type { HoldRenewalsRepository } from '../../src/holds/index.ts';
import { holdRenewalsRepository, renewHolds } from '../../src/holds/index.ts';
import { registerSandboxCard } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';

const VISA = '4242424242424242';
const RENEWAL_REFUSED = '4000000000000044';
const STOLEN = '4000000000009979';

interface SandboxHold {
  id: string;
  kind: string;
  status: string;
  amount: number;
}

/**
 * Renewal tells the truth: one renewal per live hold whatever runs meet, and a card the bank
 * refused is not tried again. On the sandbox's test clock, both engines.
 */
describe(`renew_holds: one renewal per live hold, no card tried after a refusal (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
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
  const holdsAtSandbox = async (id: string, who: TenantWithKey = t.tenant): Promise<SandboxHold[]> => {
    const r = await t.app.inject({ method: 'GET', url: `/sandbox/orders/${id}`, headers: who.headers });
    assert.equal(r.statusCode, 200, r.body);
    return (r.json().transactions as SandboxHold[]).filter((x) => x.kind === 'hold');
  };
  const openHolds = async (id: string, who?: TenantWithKey) =>
    (await holdsAtSandbox(id, who)).filter((h) => h.status === 'authorised');
  async function imprint(checkin: string, card: string, nights = 7, tenant = t.tenant) {
    const c = await createRequest(
      t,
      { request_type: 'IMPRINT', amount: 300, reservation_data: { checkin, checkout: addDays(checkin, nights) } },
      tenant,
    );
    await registerSandboxCard(t, c.uuid, card);
    return c.uuid as string;
  }
  const clear = () =>
    t.db.query(
      "UPDATE payment_requests SET status = 'CANCELLED' WHERE status IN ('AUTHORISED', 'AUTHORISED_TO_VALIDATE')",
    );
  const ledger = (id: string) =>
    t.db
      .query<{ kind: string; state: string; parent: boolean }>(
        `SELECT kind, state, parent_id IS NOT NULL AS parent FROM money_ledger
          WHERE payment_request_id = $1 AND kind IN ('hold', 'release') ORDER BY id`,
        [id],
      )
      .then((r) => r.rows);

  test('a run that read before another renewed in full claims nothing: one renewal, one release, one open hold', async () => {
    await clear();
    const checkin = '2027-08-10';
    const id = await imprint(checkin, VISA);
    await holdJob(addDays(checkin, -2));
    // The Visa hold placed on the 8th ends on the 13th at 01:00: due at the 12th's run.
    const day = addDays(checkin, 2);
    const at = new Date(`${day}T06:15:00Z`);
    const payreq = t.app.payreq;
    const renewals = holdRenewalsRepository(payreq.db);
    // The second run reads the due holds, then waits while the first renews them in full.
    let hasRead: () => void = () => {};
    const read = new Promise<void>((r) => {
      hasRead = r;
    });
    let letClaim: () => void = () => {};
    const firstDone = new Promise<void>((r) => {
      letClaim = r;
    });
    let held = false;
    const stale: HoldRenewalsRepository = {
      ...renewals,
      async dueBatch(...args) {
        const rows = await renewals.dueBatch(...args);
        if (rows.length > 0 && !held) {
          held = true;
          hasRead();
          await firstDone;
        }
        return rows;
      },
    };
    const ctx = { runner: payreq.runner, cardTokens: payreq.cardTokens };
    const second = renewHolds({ ...ctx, renewals: stale }, day, { at });
    await read;
    const first = await renewHolds({ ...ctx, renewals }, day, { at });
    letClaim();
    const late = await second;
    assert.deepEqual({ renewed: first.renewed, released: first.released }, { renewed: 1, released: 1 });
    assert.deepEqual(
      { due: late.due, renewed: late.renewed, skipped: late.skipped },
      { due: 1, renewed: 0, skipped: 1 },
    );
    assert.equal((await openHolds(id)).length, 1, 'exactly one hold open at the sandbox');
    assert.deepEqual(await ledger(id), [
      { kind: 'hold', state: 'succeeded', parent: false },
      { kind: 'hold', state: 'succeeded', parent: true },
      { kind: 'release', state: 'succeeded', parent: true },
    ]);
    assert.equal(await payreq.reconciler.checkRequest(id), undefined, 'the books agree both ways');
  });

  test('two runs at once over many due holds: each request renewed once, one hold open each', async () => {
    await clear();
    const checkin = '2027-09-10';
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await imprint(checkin, VISA));
    assert.equal((await holdJob(addDays(checkin, -2))).held, 12);
    const day = addDays(checkin, 2);
    const at = new Date(`${day}T06:15:00Z`);
    const payreq = t.app.payreq;
    const ctx = { runner: payreq.runner, cardTokens: payreq.cardTokens, renewals: holdRenewalsRepository(payreq.db) };
    const runs = await Promise.all([
      renewHolds(ctx, day, { at, groupSize: 5 }),
      renewHolds(ctx, day, { at, groupSize: 3 }),
    ]);
    assert.equal(runs[0].renewed + runs[1].renewed, 12, JSON.stringify(runs));
    for (const id of ids) {
      assert.equal((await openHolds(id)).length, 1, `${id}: one hold open`);
      const renewals = (await ledger(id)).filter((l) => l.kind === 'hold' && l.parent);
      assert.equal(renewals.length, 1, `${id}: renewed once`);
      assert.equal(await payreq.reconciler.checkRequest(id), undefined);
    }
  });

  test('two `job run renew_holds --date D` at once over forty due holds: one run, one open hold per order, the books agree', async () => {
    await clear();
    const checkin = '2027-11-10';
    // A hotel of its own, so the books check reads this test's orders only.
    const hotel = await t.newTenant('Forty Holds');
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await imprint(checkin, VISA, 7, hotel));
    assert.equal((await holdJob(addDays(checkin, -2))).held, 40);
    const day = addDays(checkin, 2);
    const [x, y] = await Promise.all([renewJob(day), renewJob(day)]);
    // One ran; the other waited for it and printed its result.
    assert.deepEqual(x, y);
    assert.deepEqual({ due: x.due, renewed: x.renewed, released: x.released }, { due: 40, renewed: 40, released: 40 });
    for (const id of ids) assert.equal((await openHolds(id, hotel)).length, 1, `${id}: one hold open`);
    const runs = await t.repos.schedules.runs('renew_holds', 5);
    assert.deepEqual(
      runs.filter((r) => r.run_date === day).map((r) => [r.started_by, r.outcome]),
      [['cli', 'ok']],
      'one run of the job and day',
    );
    const books = await runCommand(['books', 'check', '--tenant', hotel.tenantId, '--json'], {
      config: t.config,
      db: t.db,
      repos: t.repos,
      app: t.app.payreq,
    });
    assert.equal(books.exitCode, 0, books.stdout + books.stderr);
    assert.deepEqual(JSON.parse(books.stdout.trim().split('\n').at(-1) ?? '{}'), {
      orders: 40,
      agree: 40,
      disagree: 0,
      in_doubt: 0,
    });
  });

  test('a replaced hold whose release failed is released by the next run, even once the request is deleted', async () => {
    await clear();
    const checkin = '2027-12-10';
    const id = await imprint(checkin, VISA);
    await holdJob(addDays(checkin, -2));
    const day = addDays(checkin, 2);
    assert.equal((await renewJob(day)).renewed, 1);
    // As if the replaced hold's release had failed: its row failed, the sandbox's hold still open.
    const old = await t.db.query<{ txn: string }>(
      `UPDATE money_ledger SET state = 'failed' WHERE payment_request_id = $1 AND kind = 'release' AND parent_id IS NOT NULL
       RETURNING (SELECT provider_transaction_id FROM money_ledger p WHERE p.id = money_ledger.parent_id) AS txn`,
      [id],
    );
    const oldHold = old.rows[0]?.txn as string;
    await t.db.query("UPDATE sandbox_transactions SET status = 'authorised' WHERE id = $1", [oldHold]);
    assert.equal((await openHolds(id)).length, 2);
    // The guest arrives: the hotel releases the live hold, then deletes the request.
    assert.equal((await t.call({ method: 'POST', url: `/api/payment-requests/${id}/release/` })).statusCode, 200);
    assert.equal((await t.call({ method: 'DELETE', url: `/api/payment-requests/${id}/` })).statusCode, 200);
    const next = await renewJob(day);
    assert.equal(next.released, 1, 'the replaced hold of a deleted request is released');
    assert.deepEqual(await openHolds(id), [], "the guest's card is free");
  });

  test('the test clock is one clock: payreq records a run for a day at the moment the sandbox does', async () => {
    await clear();
    const checkin = '2028-01-10';
    const id = await imprint(checkin, RENEWAL_REFUSED);
    const holdDay = addDays(checkin, -2);
    await holdJob(holdDay);
    const renewDay = addDays(checkin, 2);
    assert.equal((await renewJob(renewDay)).refused, 1);
    // 07:00 and 07:15 in Paris (UTC+1 in January): the schedules' moments on those days.
    const placed = `${holdDay}T06:00:00.000Z`;
    const refused = `${renewDay}T06:15:00.000Z`;
    const ledger = await t.db.query<{ kind: string; state: string; at: Date }>(
      "SELECT kind, state, created_at AS at FROM money_ledger WHERE payment_request_id = $1 AND kind = 'hold' ORDER BY id",
      [id],
    );
    assert.deepEqual(
      ledger.rows.map((r) => [r.state, r.at.toISOString()]),
      [
        ['succeeded', placed],
        ['refused', refused],
      ],
    );
    const history = await t.db.query<{ to_status: string; at: Date }>(
      "SELECT to_status, created_at AS at FROM status_history WHERE payment_request_id = $1 AND source = 'job' ORDER BY id",
      [id],
    );
    assert.deepEqual(
      history.rows.map((h) => h.at.toISOString()),
      [placed, refused],
    );
    const d = await detail(id);
    assert.equal(d.guarantee_failed_at, refused);
    const atSandbox = await t.app.inject({
      method: 'GET',
      url: `/sandbox/orders/${id}`,
      headers: { 'x-api-key': t.tenant.key },
    });
    const created = (atSandbox.json().transactions as { kind: string; created_at: string }[])
      .filter((x) => x.kind === 'hold')
      .map((x) => x.created_at);
    assert.deepEqual(created, [placed, refused], 'the sandbox says the same');
  });

  test('a refused renewal, then a new card refused for good: each tried once, never again', async () => {
    await clear();
    const checkin = '2027-10-10';
    const id = await imprint(checkin, RENEWAL_REFUSED);
    assert.equal((await holdJob(addDays(checkin, -2))).held, 1, 'its first hold succeeds');
    const day = addDays(checkin, 2);
    const r = await renewJob(day);
    assert.deepEqual({ due: r.due, renewed: r.renewed, refused: r.refused }, { due: 1, renewed: 0, refused: 1 });
    let d = await detail(id);
    assert.equal(d.status, 'AUTHORISED_TO_VALIDATE', 'the old hold is the guarantee until it lapses');
    assert.equal(d.hold_decline_reason, 'do_not_honour');
    assert.equal(d.guarantee_failures, 1);
    // The same day again, and the next: the refused card is not tried again.
    for (const again of [day, addDays(day, 1)]) {
      const next = await renewJob(again);
      assert.deepEqual({ due: next.due, refused: next.refused }, { due: 0, refused: 0 }, again);
    }
    assert.equal(
      (await holdsAtSandbox(id)).filter((h) => h.status === 'refused').length,
      1,
      'one refused hold at the sandbox',
    );

    // The guest gives another card through the link: a stolen one. Tried once by the next run.
    await registerSandboxCard(t, id, STOLEN);
    d = await detail(id);
    assert.equal(d.hold_decline_reason, null, 'a new card clears the refusal');
    const tried = await renewJob(day);
    assert.deepEqual({ due: tried.due, refused: tried.refused }, { due: 1, refused: 1 });
    d = await detail(id);
    assert.equal(d.hold_decline_reason, 'lost_or_stolen');
    assert.equal(d.guarantee_failures, 2, 'every refused hold counts');
    const mark = await t.db.query<{ renew_hold: boolean }>('SELECT renew_hold FROM payment_requests WHERE id = $1', [
      id,
    ]);
    assert.equal(mark.rows[0]?.renew_hold, false, 'the renewal mark is cleared');
    for (const again of [day, addDays(day, 1)]) {
      const next = await renewJob(again);
      assert.deepEqual({ due: next.due, refused: next.refused }, { due: 0, refused: 0 }, `${again}: never again`);
    }
    assert.equal((await holdsAtSandbox(id)).filter((h) => h.status === 'refused').length, 2);
    assert.equal((await openHolds(id)).length, 1, 'the old hold stays until it lapses');
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
  });
});
