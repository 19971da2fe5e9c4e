import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { type Database, migrate, openDatabase } from '../../src/db/index.ts';
import { dateIn } from '../../src/jobs/index.ts';
import { cliEnv, killAll, parseJson, payreq, pgliteDataDir, scratchDir } from '../cli/payreq-process.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { createBody, newTenant } from '../helpers/test-app.ts';

describe(`payreq job run create_deferred_payments, as a process (${ENGINE})`, () => {
  const scratch = scratchDir();
  const pgs: TestDatabase[] = [];
  after(async () => {
    killAll();
    for (const pg of pgs) await pg.drop();
    scratch.cleanup();
  });

  /** A database the CLI process can open too: a PGlite directory, or the test's PostgreSQL database. */
  async function sharedDatabase(): Promise<{
    url: string;
    open(): Promise<Database>;
    close(db: Database): Promise<void>;
  }> {
    if (ENGINE === 'postgres') {
      const pg = await createTestDatabase();
      pgs.push(pg);
      const url = pg.url;
      return { url, open: async () => openDatabase({ engine: 'postgres', url }), close: (db) => db.close() };
    }
    const dir = pgliteDataDir(path.join(scratch.dir, 'db'));
    return {
      url: `pglite://${dir}`,
      open: async () => {
        const db = await openDatabase({ engine: 'pglite', dir });
        await migrate(db);
        return db;
      },
      // PGlite admits one process per directory: close before the CLI opens it.
      close: (db) => db.close(),
    };
  }

  test('places the due hold and prints its counts as one JSON object; a second run does nothing', async () => {
    const shared = await sharedDatabase();
    const env = cliEnv({ DATABASE_URL: shared.url, SECRET_KEY: 's'.repeat(64) });
    let db = await shared.open();
    const config = loadConfig({ ...env, NODE_ENV: 'test' } as NodeJS.ProcessEnv);
    const app = await buildApp({ config, db });
    const tenant = await newTenant(app.payreq.repos);
    const created = await app.inject({
      method: 'POST',
      url: '/api/payment-requests/',
      headers: tenant.headers,
      payload: createBody({ request_type: 'IMPRINT', amount: 99, reservation_data: { checkin: '2026-12-11' } }),
    });
    const id = created.json().uuid as string;
    const token = `tok_${randomBytes(12).toString('hex')}`;
    await db.query(
      "INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year) VALUES ($1, '4242424242424242', 12, 2031)",
      [token],
    );
    await app.payreq.notifications.apply('sandbox', {
      eventId: 'evt_cli',
      paymentRequestId: id,
      outcome: 'registered',
      cardToken: token,
    });
    await app.close();
    await shared.close(db);

    const first = parseJson<Record<string, number | string>>(
      await payreq(['job', 'run', 'create_deferred_payments', '--date', '2026-12-10', '--json'], env, scratch.dir),
    );
    assert.equal(first.job, 'create_deferred_payments');
    assert.equal(first.held, 1);
    const second = parseJson<Record<string, number>>(
      await payreq(['job', 'run', 'create_deferred_payments', '--date', '2026-12-10', '--json'], env, scratch.dir),
    );
    assert.equal(second.considered, 0);

    db = await shared.open();
    const row = await db.query<{ status: string }>('SELECT status FROM payment_requests WHERE id = $1', [id]);
    assert.equal(row.rows[0]?.status, 'AUTHORISED_TO_VALIDATE');
    await shared.close(db);
  });

  test("without --date, today is the date in the job's schedule zone, as the scheduled run reads it", async () => {
    // UTC+14 and UTC-11 are never on the same date: whatever the hour and the host's zone, one of
    // the two runs would show a day read anywhere else.
    const shared = await sharedDatabase();
    const env = cliEnv({ DATABASE_URL: shared.url, SECRET_KEY: 's'.repeat(64) });
    for (const zone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      const db = await shared.open();
      await db.query("UPDATE job_schedules SET timezone = $1 WHERE job = 'create_deferred_payments'", [zone]);
      await shared.close(db);
      const before = dateIn(zone, new Date());
      const run = parseJson<{ date: string }>(
        await payreq(['job', 'run', 'create_deferred_payments', '--json'], env, scratch.dir),
      );
      // A midnight in that zone may fall during the run: either side of it is that zone's today.
      assert.ok([before, dateIn(zone, new Date())].includes(run.date), `${zone}: ${run.date}, today there ${before}`);
    }
  });
});
