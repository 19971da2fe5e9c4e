import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { type Database, openDatabase } from '../../src/db/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { PRODUCTION_SECRET_KEY } from '../helpers/production-secret.ts';
import {
  cliEnv,
  freePort,
  killAll,
  parseJson,
  payreq,
  pgliteDataDir,
  ServeProcess,
  scratchDir,
} from './payreq-process.ts';

const CURL = /curl -X POST (\S+) -H 'X-API-Key: ([^']+)' -H 'Content-Type: application\/json' -d '([^']+)'/;

/**
 * A fresh database of the engine under test, and how to look into it once no service runs. On
 * PGlite an empty directory (the service makes the cluster and migrates it, as on a developer's
 * first `npm start`), or with `migrated` one unpacked from the run's migrated archive: no tenant,
 * no setting, as a fresh PostgreSQL test database is (the initdb and migrations inside WASM cost
 * over a second of CPU, paid once here rather than per test).
 */
async function freshDatabase(dir: string, dbs: TestDatabase[], opts: { migrated?: boolean } = {}) {
  if (ENGINE === 'postgres') {
    const testDb = await createTestDatabase();
    dbs.push(testDb);
    return { url: testDb.url, inspect: async <T>(fn: (db: Database) => Promise<T>) => fn(testDb.db) };
  }
  const empty = path.join(dir, `data-${dbs.length}-${Math.random().toString(36).slice(2)}`);
  const dataDir = opts.migrated ? pgliteDataDir(empty) : empty;
  return {
    url: `pglite://${dataDir}`,
    async inspect<T>(fn: (db: Database) => Promise<T>): Promise<T> {
      // Only while no service holds the directory.
      const db = await openDatabase({ engine: 'pglite', dir: dataDir });
      try {
        return await fn(db);
      } finally {
        await db.close();
      }
    },
  };
}

describe(`first start (${ENGINE})`, { timeout: 240_000 }, () => {
  const scratch = scratchDir();
  const dbs: TestDatabase[] = [];
  after(async () => {
    killAll();
    for (const d of dbs) await d.drop();
    scratch.cleanup();
  });

  test('in development, prints a demo key and a working curl line once, and keeps a generated SECRET_KEY', async () => {
    const database = await freshDatabase(scratch.dir, dbs);
    const port = await freePort();
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const env = cliEnv({
      NODE_ENV: 'development',
      DATABASE_URL: database.url,
      PORT: String(port),
      PUBLIC_BASE_URL: publicBaseUrl,
    });

    const first = await ServeProcess.start(env, scratch.dir);
    // The banner is for the person at the terminal (stderr); stdout stays a stream of JSON logs.
    assert.match(first.stderr, /First start: created demo data/);
    assert.match(first.stderr, /tenant: +Demo Hotel \(id [0-9a-f-]{36}\)/);
    // With no HOST, development listens on the loopback interface only.
    assert.match(first.stderr, /payreq listening on http:\/\/127\.0\.0\.1:\d+ /);
    for (const line of first.stdout.split('\n').filter(Boolean)) assert.doesNotThrow(() => JSON.parse(line), line);
    assert.doesNotMatch(first.stdout, /First start|curl/);
    const curl = CURL.exec(first.stderr);
    assert.ok(curl, `a curl line in:\n${first.stderr}`);
    const [, url, key, body] = curl as unknown as [string, string, string, string];
    assert.equal(url, `${publicBaseUrl}/api/payment-requests/`);
    assert.match(first.stderr, new RegExp(`API key: +${key.replace('.', '\\.')}\\n`));
    assert.match(first.stderr, /API docs: http:\/\/127\.0\.0\.1:\d+\/api\/docs/);
    // A back-office superuser, its password printed this once.
    assert.match(
      first.stderr,
      new RegExp(`Back office: ${publicBaseUrl}/control/\\n {2}user: admin {3}password: [\\w-]{16}\\n`),
    );

    // The line works as printed: it creates a DEPOSIT.
    const created = await fetch(url, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body,
    });
    assert.equal(created.status, 201);
    const { uuid, reference } = (await created.json()) as { uuid: string; reference: string };
    assert.match(reference, /^DEP-\d{4}-\d{4,}$/);
    const detail = await fetch(`${publicBaseUrl}/api/payment-requests/${uuid}/`, { headers: { 'x-api-key': key } });
    assert.equal(((await detail.json()) as { request_type: string }).request_type, 'DEPOSIT');
    // Its e-mails are on from the first minute: the guest's link is at /dev/mail at once.
    const tenantId = /tenant: +Demo Hotel \(id ([0-9a-f-]{36})\)/.exec(first.stderr)?.[1] ?? '';
    const shown = parseJson(await payreq(['tenant', 'show', '--tenant', tenantId, '--json'], env, scratch.dir));
    assert.deepEqual(
      [shown.confirmation_email, shown.contact_email, shown.digest_email],
      [true, 'reception@demo-hotel.example', true],
    );
    const devMail = async () => (await fetch(`${publicBaseUrl}/dev/mail`)).text();
    const link = 'Demo Hotel: deposit for your booking';
    let listed = await devMail();
    for (
      const deadline = Date.now() + 30_000;
      !listed.includes(link) && Date.now() < deadline;
      listed = await devMail()
    )
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(listed.includes(link), `the link e-mail, kept for /dev/mail:\n${listed}`);
    assert.equal(await first.stop(), 0);

    const second = await ServeProcess.start(env, scratch.dir);
    assert.doesNotMatch(second.stderr, /First start/);
    assert.ok(!second.stderr.includes(key) && !second.stdout.includes(key), 'the key is shown once only');
    const tenants = parseJson<{ tenants: unknown[] }>(await payreq(['tenant', 'list', '--json'], env, scratch.dir));
    assert.equal(tenants.tenants.length, 1);
    assert.equal(await second.stop(), 0);

    const secret = await database.inspect((db) =>
      db.query<{ value: string }>("SELECT value FROM instance_settings WHERE key = 'secret_key'"),
    );
    assert.equal(secret.rows.length, 1);
    assert.match(secret.rows[0]?.value ?? '', /^[0-9a-f]{64}$/);
  });

  for (const nodeEnv of ['production', 'test']) {
    test(`no demo data with NODE_ENV=${nodeEnv}`, async () => {
      const database = await freshDatabase(scratch.dir, dbs, { migrated: true });
      const env = cliEnv({
        NODE_ENV: nodeEnv,
        DATABASE_URL: database.url,
        PORT: String(await freePort()),
        // The sandbox provider is refused in production unless explicitly allowed.
        ...(nodeEnv === 'production' ? { SECRET_KEY: PRODUCTION_SECRET_KEY, SANDBOX_IN_PRODUCTION: 'true' } : {}),
      });
      const serve = await ServeProcess.start(env, scratch.dir);
      assert.doesNotMatch(serve.stderr + serve.stdout, /First start|curl/);
      assert.equal(await serve.stop(), 0);
      const rows = await database.inspect(async (db) => ({
        tenants: (await db.query('SELECT id FROM tenants')).rows.length,
        secret: (await db.query("SELECT value FROM instance_settings WHERE key = 'secret_key'")).rows.length,
      }));
      assert.equal(rows.tenants, 0);
      // In production the configured SECRET_KEY is the key: none is generated and stored.
      if (nodeEnv === 'production') assert.equal(rows.secret, 0);
    });
  }
});
