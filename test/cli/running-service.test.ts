import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
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
} from './payreq-process.ts';

interface KeyJson {
  prefix: string;
  key: string;
}

const api = (base: string, key: string) =>
  fetch(`${base}/api/payment-requests/`, { headers: { 'x-api-key': key } }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

describe('CLI commands while `serve` holds a PGlite directory', {
  skip: ENGINE !== 'pglite' && 'PGlite only: with PostgreSQL every process connects directly',
  timeout: 240_000,
}, () => {
  const scratch = scratchDir();
  const dataDir = path.join(scratch.dir, 'data');
  let env: NodeJS.ProcessEnv;
  let serve: ServeProcess;
  let base: string;
  let tenantId: string;
  const run = (...args: string[]) => payreq(args, env, scratch.dir);

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // A long auth cache: a status change can only show at once if the service forgets the key.
    env = cliEnv({ DATABASE_URL: `pglite://${pgliteDataDir(dataDir)}`, PORT: String(port), AUTH_CACHE_MS: '60000' });
    serve = await ServeProcess.start({ ...env, LOG_LEVEL: 'info' }, scratch.dir);
    tenantId = parseJson<{ id: string }>(await run('tenant', 'create', '--name', 'Hôtel Service', '--json')).id;
  });
  after(() => {
    killAll();
    scratch.cleanup();
  });

  test('the service holds the directory: its lock names it, its socket is owner-only', () => {
    assert.equal(readFileSync(path.join(dataDir, 'payreq.lock'), 'utf8'), `${serve.pid} serve\n`);
    const socket = path.join(dataDir, 'payreq.sock');
    assert.ok(existsSync(socket));
    assert.equal(statSync(socket).mode & 0o777, 0o600);
  });

  test('a key created by the CLI works at once against the running service', async () => {
    const created = await run('key', 'create', '--tenant', tenantId, '--label', 'PMS', '--json');
    const { key } = parseJson<KeyJson>(created);
    await serve.ranThroughControl('"key create"', 1, 'the command ran inside the service');
    assert.ok(created.ms < 10_000, 'it did not wait for the directory');
    const r = await api(base, key);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, []);
  });

  test('disable, enable and revoke by the CLI apply to the very next request', async () => {
    const { key, prefix } = parseJson<KeyJson>(
      await run('key', 'create', '--tenant', tenantId, '--label', 'Front desk', '--json'),
    );
    assert.equal((await api(base, key)).status, 200); // now in the auth cache for 60 s

    assert.equal(parseJson<{ status: string }>(await run('key', 'disable', prefix, '--json')).status, 'disabled');
    const disabled = await api(base, key);
    assert.equal(disabled.status, 401);
    assert.deepEqual(disabled.body.detail, 'Unauthorized');

    await run('key', 'enable', prefix, '--json');
    assert.equal((await api(base, key)).status, 200);

    const revoked = await run('key', 'revoke', prefix);
    assert.equal(revoked.code, 0);
    const r = await api(base, key);
    assert.equal(r.status, 403);
    assert.equal(r.body.detail, 'API key revoked');
    assert.equal(r.body.error, 'API key revoked');
    assertFails(await run('key', 'disable', prefix), /revocation is final/);
    await serve.ranThroughControl('"key revoke"', 1);
  });

  test('errors come back from the service as they would locally', async () => {
    assertFails(await run('key', 'revoke', 'ZZZZZZZZ'), /^error: no API key with prefix "ZZZZZZZZ"/);
    assertFails(await run('tenant', 'create', '--name', 'X', '--timezone', 'Nowhere/Town'), /--timezone/);
  });

  test('books check runs in the service that holds the directory, as it would locally', async () => {
    const r = await run('books', 'check', '--tenant', tenantId, '--json');
    assert.deepEqual(parseJson(r), { orders: 0, agree: 0, disagree: 0, in_doubt: 0 });
    await serve.ranThroughControl('"books check"', 1);
    assertFails(await run('books', 'check', '--since', '2026-02-30'), /^error: --since must be a date YYYY-MM-DD/);
  });

  test('a second serve on the same directory fails with a line naming the first', async () => {
    const port = await freePort();
    const second = await payreq(['serve'], { ...env, PORT: String(port) }, scratch.dir);
    assertFails(second, new RegExp(`data directory .*data is in use by process ${serve.pid} \\(payreq serve\\)`));
    // The first one is unharmed.
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
  });

  test('the output is the same whichever process runs the command; stopping frees the directory', async () => {
    const listArgs = ['key', 'list', '--tenant', tenantId];
    const jsonViaService = await run(...listArgs, '--json');
    const textViaService = await run(...listArgs);
    await serve.ranThroughControl('"key list"', 2);

    assert.equal(await serve.stop(), 0);
    assert.ok(!existsSync(path.join(dataDir, 'payreq.lock')), 'lock released');
    assert.ok(!existsSync(path.join(dataDir, 'payreq.sock')), 'socket removed');

    const jsonLocal = await run(...listArgs, '--json');
    const textLocal = await run(...listArgs);
    assert.deepEqual(jsonLocal, { ...jsonViaService, ms: jsonLocal.ms });
    assert.deepEqual(textLocal, { ...textViaService, ms: textLocal.ms });
    assert.equal(parseJson<{ keys: unknown[] }>(jsonLocal).keys.length, 2);
  });
});

describe('a PGlite directory too deep for a socket path, and a service that died', {
  skip: ENGINE !== 'pglite' && 'PGlite only',
  timeout: 120_000,
}, () => {
  const scratch = scratchDir();
  const dataDir = path.join(scratch.dir, 'd'.repeat(60), 'e'.repeat(60));
  let socketPath = '';
  after(() => {
    killAll();
    if (socketPath) rmSync(socketPath, { force: true });
    scratch.cleanup();
  });

  test('the socket goes to the temp directory, recorded in the data directory', async () => {
    const env = cliEnv({ DATABASE_URL: `pglite://${pgliteDataDir(dataDir)}`, PORT: String(await freePort()) });
    const serve = await ServeProcess.start({ ...env, LOG_LEVEL: 'info' }, scratch.dir);
    socketPath = readFileSync(path.join(dataDir, 'payreq.sock.path'), 'utf8').trim();
    assert.equal(path.dirname(socketPath), tmpdir());
    assert.ok(existsSync(socketPath));
    parseJson(await payreq(['tenant', 'create', '--name', 'Deep', '--json'], env, scratch.dir));
    await serve.ranThroughControl('"tenant create"', 1);

    // Killed outright: lock and socket stay behind; the next command sees its pid is dead,
    // takes the directory over and opens it itself.
    serve.child.kill('SIGKILL');
    await serve.exited;
    assert.ok(existsSync(path.join(dataDir, 'payreq.lock')));
    const r = await payreq(['tenant', 'list', '--json'], env, scratch.dir);
    assert.deepEqual(
      parseJson<{ tenants: { name: string }[] }>(r).tenants.map((t) => t.name),
      ['Deep'],
    );
    assert.ok(r.ms < 10_000, 'a dead holder is not waited for');
  });
});

describe('CLI and a running service on PostgreSQL: each connects directly', {
  skip: ENGINE !== 'postgres' && 'PostgreSQL only',
  timeout: 120_000,
}, () => {
  const scratch = scratchDir();
  let testDb: TestDatabase;
  let serve: ServeProcess;
  let env: NodeJS.ProcessEnv;
  let base: string;
  before(async () => {
    testDb = await createTestDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // Another process's change reaches this one within AUTH_CACHE_MS; 0 makes it immediate.
    env = cliEnv({ DATABASE_URL: testDb.url, PORT: String(port), AUTH_CACHE_MS: '0' });
    serve = await ServeProcess.start(env, scratch.dir);
  });
  after(async () => {
    await serve?.stop();
    killAll();
    await testDb?.drop();
    scratch.cleanup();
  });

  test('a key created by the CLI authenticates; revoked, it gets 403', async () => {
    const run = (...args: string[]) => payreq(args, env, scratch.dir);
    const tenant = parseJson<{ id: string }>(await run('tenant', 'create', '--name', 'Hôtel PG', '--json'));
    const { key, prefix } = parseJson<KeyJson>(
      await run('key', 'create', '--tenant', tenant.id, '--label', 'PMS', '--json'),
    );
    assert.equal((await api(base, key)).status, 200);
    parseJson(await run('key', 'revoke', prefix, '--json'));
    assert.equal((await api(base, key)).status, 403);
  });
});
