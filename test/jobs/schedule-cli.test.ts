import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Database, migrate, openDatabase } from '../../src/db/index.ts';
import {
  assertFails,
  cliEnv,
  freePort,
  killAll,
  parseJson,
  payreq,
  pgliteDataDir,
  ServeProcess,
  scratchDir,
} from '../cli/payreq-process.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';

interface Schedule {
  job: string;
  cron: string;
  timezone: string;
  enabled: boolean;
  next_run_at: string | null;
  last_run_at: string | null;
  last_outcome: string | null;
}
interface Run {
  job: string;
  outcome: string;
  slot: string;
  counts: Record<string, unknown> | null;
}

describe(`payreq schedule list / set / runs, as processes (${ENGINE})`, () => {
  const scratch = scratchDir();
  let pg: TestDatabase | undefined;
  let url: string;
  let env: NodeJS.ProcessEnv;
  /** Opens the database in the test; on PGlite only while no process holds the directory. */
  let open: () => Promise<Database>;
  before(async () => {
    if (ENGINE === 'postgres') {
      pg = await createTestDatabase();
      url = pg.url;
      open = () => openDatabase({ engine: 'postgres', url });
    } else {
      const dir = pgliteDataDir(path.join(scratch.dir, 'db'));
      url = `pglite://${dir}`;
      open = async () => {
        const db = await openDatabase({ engine: 'pglite', dir });
        await migrate(db);
        return db;
      };
    }
    env = cliEnv({ DATABASE_URL: url, SECRET_KEY: 's'.repeat(64) });
  });
  after(async () => {
    killAll();
    await pg?.drop();
    scratch.cleanup();
  });
  const run = (args: string[], e = env) => payreq(args, e, scratch.dir);

  test('list shows the defaults; set changes, validates and recomputes the next run', async () => {
    const list = parseJson<{ schedules: Schedule[] }>(await run(['schedule', 'list', '--json']));
    assert.deepEqual(
      list.schedules.map((s) => [s.job, s.cron, s.timezone, s.enabled]),
      [
        ['analyze_tables', '50 3 * * *', 'Europe/Paris', true],
        ['books_check', '30 5 * * *', 'Europe/Paris', true],
        ['create_deferred_payments', '0 7 * * *', 'Europe/Paris', true],
        ['expire_payment_requests', '0 * * * *', 'Europe/Paris', true],
        ['fetch_payouts', '40 6 * * *', 'Europe/Paris', true],
        ['purge_admin_sessions', '43 * * * *', 'Europe/Paris', true],
        ['purge_events', '30 3 * * *', 'Europe/Paris', true],
        ['purge_idempotency_keys', '17 * * * *', 'Europe/Paris', true],
        ['reconcile_claims', '*/5 * * * *', 'Europe/Paris', true],
        ['renew_holds', '15 7 * * *', 'Europe/Paris', true],
        ['send_daily_digests', '5 * * * *', 'UTC', true],
        ['send_payment_reminders', '*/15 * * * *', 'Europe/Paris', true],
      ],
    );

    const before = Date.now();
    const set = parseJson<Schedule>(
      await run([
        'schedule',
        'set',
        'create_deferred_payments',
        '--cron',
        '30 6 * * 1-5',
        '--timezone',
        'Europe/Berlin',
        '--json',
      ]),
    );
    assert.deepEqual([set.cron, set.timezone, set.enabled], ['30 6 * * 1-5', 'Europe/Berlin', true]);
    const next = Date.parse(set.next_run_at ?? '');
    assert.ok(next > before && next < before + 4 * 24 * 3600_000, `next run ${set.next_run_at}`);

    const off = parseJson<Schedule>(await run(['schedule', 'set', 'create_deferred_payments', '--disable', '--json']));
    assert.deepEqual([off.enabled, off.next_run_at, off.cron], [false, null, '30 6 * * 1-5']);
    const on = parseJson<Schedule>(
      await run([
        'schedule',
        'set',
        'create_deferred_payments',
        '--enable',
        '--cron',
        '0 7 * * *',
        '--timezone',
        'Europe/Paris',
        '--json',
      ]),
    );
    assert.equal(on.enabled, true);
    assert.ok(Date.parse(on.next_run_at ?? '') > before);

    assertFails(
      await run(['schedule', 'set', 'create_deferred_payments', '--cron', '61 * * * *']),
      /--cron "61 \* \* \* \*"/,
    );
    assertFails(await run(['schedule', 'set', 'create_deferred_payments', '--cron', '* * * * * *']), /5 fields/);
    assertFails(await run(['schedule', 'set', 'create_deferred_payments', '--timezone', 'Mars/Olympus']), /--timezone/);
    assertFails(await run(['schedule', 'set', 'send_faxes', '--enable']), /unknown job "send_faxes"/);
    assertFails(await run(['schedule', 'set', 'create_deferred_payments', '--enable', '--disable']), /together/);
    assertFails(await run(['schedule', 'runs', '--limit', '0']), /--limit/);
    const runs = parseJson<{ runs: Run[] }>(await run(['schedule', 'runs', '--json']));
    assert.deepEqual(runs.runs, []);
  });

  test('serve runs a due slot at start, and the schedule commands reach it through the control channel', async () => {
    const db = await open();
    await db.query(
      "UPDATE job_schedules SET next_run_at = now() - interval '3 days' WHERE job = 'expire_payment_requests'",
    );
    await db.close();
    const serve = await ServeProcess.start({ ...env, PORT: String(await freePort()) }, scratch.dir);
    try {
      // The scheduler's first pass starts right after listen; wait for its run to be recorded.
      let runs: Run[] = [];
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        runs = parseJson<{ runs: Run[] }>(await run(['schedule', 'runs', 'expire_payment_requests', '--json'])).runs;
        if (runs.some((r) => r.outcome !== 'running')) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(runs.length, 1, JSON.stringify(runs));
      assert.equal(runs[0]?.outcome, 'ok');
      assert.deepEqual(Object.keys(runs[0]?.counts ?? {}).sort(), ['holds_expired', 'links_expired', 'now']);
      const list = parseJson<{ schedules: Schedule[] }>(await run(['schedule', 'list', '--json']));
      const expire = list.schedules.find((s) => s.job === 'expire_payment_requests');
      assert.equal(expire?.last_outcome, 'ok');
      assert.ok(Date.parse(expire?.next_run_at ?? '') > Date.now(), 'the missed slots collapsed into one run');
      const set = parseJson<Schedule>(
        await run(['schedule', 'set', 'expire_payment_requests', '--cron', '*/15 * * * *', '--json']),
      );
      assert.equal(set.cron, '*/15 * * * *');
    } finally {
      assert.equal(await serve.stop(), 0, serve.stderr);
    }
  });
});
