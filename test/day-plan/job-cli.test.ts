import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { type Database, migrate, openDatabase } from '../../src/db/index.js';
import { addDays, localDate } from '../../src/domain/index.js';
import { cliEnv, killAll, parseJson, payreq, pgliteDataDir, scratchDir } from '../cli/payreq-process.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { createBody, newTenant } from '../helpers/test-app.js';

describe(`payreq tenant update and job run for reminders and the digest, as processes (${ENGINE})`, () => {
  const scratch = scratchDir();
  let pg: TestDatabase | undefined;
  after(async () => {
    killAll();
    await pg?.drop();
    scratch.cleanup();
  });

  async function open(): Promise<{ url: string; db: () => Promise<Database> }> {
    if (ENGINE === 'postgres') {
      pg = await createTestDatabase();
      const url = pg.url;
      return { url, db: async () => openDatabase({ engine: 'postgres', url }) };
    }
    const dir = pgliteDataDir(path.join(scratch.dir, 'db'));
    return {
      url: `pglite://${dir}`,
      db: async () => {
        const db = await openDatabase({ engine: 'pglite', dir });
        await migrate(db);
        return db;
      },
    };
  }

  test('settings from the command line; each job queues once, a second run nothing', async () => {
    const shared = await open();
    const env = cliEnv({ DATABASE_URL: shared.url, SECRET_KEY: 's'.repeat(64) });
    let db = await shared.db();
    const app = await buildApp({ config: loadConfig({ ...env, NODE_ENV: 'test' } as NodeJS.ProcessEnv), db });
    const tenant = await newTenant(app.payreq.repos);
    const created = await app.inject({
      method: 'POST',
      url: '/api/payment-requests/',
      headers: tenant.headers,
      payload: createBody({ request_type: 'DEPOSIT' }),
    });
    assert.equal(created.statusCode, 201);
    await app.close();
    // PGlite admits one process per directory: closed before the CLI opens it.
    await db.close();

    const run = async (...args: string[]) => parseJson<Record<string, unknown>>(await payreq(args, env, scratch.dir));
    const updated = await run(
      'tenant',
      'update',
      '--tenant',
      tenant.tenantId,
      '--reminders',
      '--digest-email',
      '--contact-email',
      'desk@hotel.example',
      '--digest-language',
      'de',
      '--json',
    );
    assert.deepEqual(updated.changed, ['contact_email', 'reminders', 'digest_email', 'digest_language']);

    // Three days on: the first reminder's slot (48 h) has come.
    const later = addDays(localDate(Intl.DateTimeFormat().resolvedOptions().timeZone, new Date()), 3);
    assert.equal((await run('job', 'run', 'send_payment_reminders', '--date', later, '--json')).queued, 1);
    assert.equal((await run('job', 'run', 'send_payment_reminders', '--date', later, '--json')).queued, 0);
    const digest = await run('job', 'run', 'send_daily_digests', '--date', later, '--json');
    assert.equal(digest.queued, 1);
    assert.equal((await run('job', 'run', 'send_daily_digests', '--date', later, '--json')).already, 1);

    db = await shared.db();
    const rows = await db.query<{ kind: string }>('SELECT kind FROM email_outbox ORDER BY id');
    assert.deepEqual(
      rows.rows.map((r) => r.kind),
      ['payment_reminder', 'daily_digest'],
    );
    await db.close();
  });
});
