import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { addDays, localDate } from '../../src/domain/index.ts';
import { cliEnv, killAll, parseJson, payreq, scratchDir } from '../cli/payreq-process.ts';
import { sharedDatabases } from '../cli/shared-database.ts';
import { ENGINE } from '../helpers/database.ts';
import { createBody, newTenant } from '../helpers/test-app.ts';

describe(`payreq tenant update and job run for reminders and the digest, as processes (${ENGINE})`, () => {
  const scratch = scratchDir();
  const databases = sharedDatabases(scratch.dir);
  after(async () => {
    killAll();
    await databases.drop();
    scratch.cleanup();
  });

  test('settings from the command line; each job queues once, a second run nothing', async () => {
    const shared = await databases.create();
    const env = cliEnv({ DATABASE_URL: shared.url, SECRET_KEY: 's'.repeat(64) });
    let db = await shared.open();
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

    db = await shared.open();
    const rows = await db.query<{ kind: string }>('SELECT kind FROM email_outbox ORDER BY id');
    assert.deepEqual(
      rows.rows.map((r) => r.kind),
      ['payment_reminder', 'daily_digest'],
    );
    await db.close();
  });
});
