import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { openDatabase } from '../../src/db/index.ts';
import { addDays, localDate, midnightIn } from '../../src/domain/index.ts';
import { cliEnv, killAll, parseJson, payreq, pgliteDataDir, scratchDir } from '../cli/payreq-process.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { createBody, newTenant } from '../helpers/test-app.ts';

describe(`payreq job run expire_payment_requests, and WORKERS (${ENGINE})`, () => {
  const scratch = scratchDir();
  let pg: TestDatabase | undefined;
  after(async () => {
    killAll();
    await pg?.drop();
    scratch.cleanup();
  });

  test('WORKERS is on by default, off turns the workers off, anything else stops the start', () => {
    assert.equal(loadConfig({ NODE_ENV: 'test' }).workers, true);
    assert.equal(loadConfig({ NODE_ENV: 'test', WORKERS: 'off' }).workers, false);
    assert.equal(loadConfig({ NODE_ENV: 'test', WORKERS: 'ON' }).workers, true);
    assert.throws(() => loadConfig({ NODE_ENV: 'test', WORKERS: 'maybe' }), ConfigError);
  });

  test('--date D expires what ended by the end of D, prints counts; a second run does nothing', async () => {
    let url: string;
    let open: () => ReturnType<typeof openDatabase>;
    if (ENGINE === 'postgres') {
      pg = await createTestDatabase();
      url = pg.url;
      open = () => openDatabase({ engine: 'postgres', url });
    } else {
      const dir = pgliteDataDir(`${scratch.dir}/db`);
      url = `pglite://${dir}`;
      open = () => openDatabase({ engine: 'pglite', dir });
    }
    const env = cliEnv({ DATABASE_URL: url, SECRET_KEY: 's'.repeat(64), TZ: 'Europe/Paris' });
    // Any command migrates a fresh database first.
    parseJson(await payreq(['schedule', 'list', '--json'], env, scratch.dir));
    const db = await open();
    const app = await buildApp({ config: loadConfig({ ...env, NODE_ENV: 'test' } as NodeJS.ProcessEnv), db });
    const tenant = await newTenant(app.payreq.repos);
    const ids: string[] = [];
    // Yesterday in Paris: a past day, which a run by hand catches up (a later day is a test clock).
    const day = addDays(localDate('Europe/Paris', new Date()), -1);
    const endOfDay = new Date(midnightIn(addDays(day, 1), 'Europe/Paris').getTime() - 1);
    for (const end of [endOfDay, new Date(endOfDay.getTime() + 1)]) {
      const r = await app.inject({
        method: 'POST',
        url: '/api/payment-requests/',
        headers: tenant.headers,
        payload: createBody(),
      });
      const id = r.json().uuid as string;
      await db.query('UPDATE payment_requests SET link_expires_at = $2 WHERE id = $1', [id, end]);
      ids.push(id);
    }
    await app.close();
    await db.close();

    // The first link ends at the last moment of that day in Paris, the second just after.
    const first = parseJson<Record<string, unknown>>(
      await payreq(['job', 'run', 'expire_payment_requests', '--date', day, '--json'], env, scratch.dir),
    );
    assert.deepEqual(first, {
      job: 'expire_payment_requests',
      now: endOfDay.toISOString(),
      holds_expired: 0,
      links_expired: 1,
    });
    const second = parseJson<Record<string, unknown>>(
      await payreq(['job', 'run', 'expire_payment_requests', '--date', day, '--json'], env, scratch.dir),
    );
    assert.equal(second.links_expired, 0);
    const check = await open();
    const rows = await check.query<{ id: string; status: string }>(
      'SELECT id, status FROM payment_requests WHERE id = ANY($1::uuid[])',
      [ids],
    );
    await check.close();
    const status = Object.fromEntries(rows.rows.map((r) => [r.id, r.status]));
    assert.deepEqual([status[ids[0] as string], status[ids[1] as string]], ['EXPIRED', 'NOT_INITIATED']);
  });
});
