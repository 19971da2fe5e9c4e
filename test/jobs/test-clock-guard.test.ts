import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { addDays, localDate } from '../../src/domain/index.ts';
import { giveLyraAccount } from '../fakes/lyra/give-account.ts';
import { type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const JOBS = ['expire_payment_requests', 'create_deferred_payments', 'renew_holds', 'send_payment_reminders'];

/**
 * A date after today is a test clock: it never reaches live money. Refused while a hotel takes
 * real payments and in production; on the sandbox, a link still never expires before its own end.
 */
describe(`a test date never touches live money (${ENGINE})`, () => {
  let t: TestApp;
  let lyra: LyraFake;
  const today = localDate('Europe/Paris', new Date());
  const future = addDays(today, 400);
  before(async () => {
    t = await startTestApp();
    lyra = await startLyraFake();
  });
  after(async () => {
    await t.close();
    await lyra.close();
  });

  const cli = (argv: string[]) => runCommand(argv, { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq });
  const statusOf = async (id: string) =>
    (await t.db.query<{ status: string }>('SELECT status FROM payment_requests WHERE id = $1', [id])).rows[0]?.status;

  test('on the sandbox, a later date expires a sandbox hold by that day, never a link before its own end', async () => {
    const link = await createRequest(t);
    const held = await createRequest(t, { request_type: 'IMPRINT', amount: 80 });
    await arrangeStatus(t.db, held.uuid, 'AUTHORISED_TO_VALIDATE');
    await t.db.query("UPDATE payment_requests SET hold_expires_at = now() + interval '10 days' WHERE id = $1", [
      held.uuid,
    ]);
    const r = await cli(['job', 'run', 'expire_payment_requests', '--date', future, '--json']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(await statusOf(held.uuid), 'EXPIRED', 'the hold lives on the test clock');
    assert.equal(await statusOf(link.uuid), 'NOT_INITIATED', 'the link lives in real time');
  });

  test('a later date where a hotel takes real payments is refused, for every job, and nothing moves', async () => {
    const live = await t.newTenant('Grand Hotel Live');
    await giveLyraAccount(t, live.tenantId, lyra);
    const link = await createRequest(t, {}, live);
    await t.db.query("UPDATE payment_requests SET link_expires_at = now() - interval '1 minute' WHERE id = $1", [
      link.uuid,
    ]);
    const before = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM job_runs');
    for (const job of JOBS) {
      const r = await cli(['job', 'run', job, '--date', future, '--json']);
      assert.equal(r.exitCode, 1, `${job}: ${r.stdout}`);
      assert.match(r.stderr, new RegExp(`--date ${future} is after today .*test clock.*Grand Hotel Live`), job);
    }
    const after = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM job_runs');
    assert.equal(after.rows[0]?.n, before.rows[0]?.n, 'no run was even queued');
    assert.equal(await statusOf(link.uuid), 'NOT_INITIATED', 'nothing expired');
    // Today, or a past day, catches up as ever.
    const r = await cli(['job', 'run', 'expire_payment_requests', '--date', today, '--json']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(await statusOf(link.uuid), 'EXPIRED');
    await t.repos.providerAccounts.remove(live.tenantId);
  });

  test('in production a date may only catch up a past day', async () => {
    // The same service, its configuration saying production (every hotel here is on the sandbox).
    const config = { ...t.config, nodeEnv: 'production' as const };
    const run = (argv: string[]) => runCommand(argv, { config, db: t.db, repos: t.repos, app: t.app.payreq });
    const refused = await run(['job', 'run', 'expire_payment_requests', '--date', addDays(today, 1), '--json']);
    assert.equal(refused.exitCode, 1);
    assert.match(refused.stderr, /never run in production, where a date may only catch up a past day/);
    const past = await run(['job', 'run', 'expire_payment_requests', '--date', addDays(today, -1), '--json']);
    assert.equal(past.exitCode, 0, past.stderr);
  });
});
