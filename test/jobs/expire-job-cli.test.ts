import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { openDatabase } from '../../src/db/index.ts';
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
    for (const end of ['2026-12-10T22:59:59.999Z', '2026-12-10T23:00:00.000Z']) {
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

    // The end of 10 December in Paris is 22:59:59.999 UTC: the first link ends then, the second just after.
    const first = parseJson<Record<string, unknown>>(
      await payreq(['job', 'run', 'expire_payment_requests', '--date', '2026-12-10', '--json'], env, scratch.dir),
    );
    assert.deepEqual(first, {
      job: 'expire_payment_requests',
      now: '2026-12-10T22:59:59.999Z',
      holds_expired: 0,
      links_expired: 1,
    });
    const second = parseJson<Record<string, unknown>>(
      await payreq(['job', 'run', 'expire_payment_requests', '--date', '2026-12-10', '--json'], env, scratch.dir),
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
