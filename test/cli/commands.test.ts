import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { assertFails, cliEnv, killAll, parseJson, payreq, scratchDir } from './payreq-process.ts';

const KEY = /^[2-9A-HJ-NP-Za-km-z]{8}\.[2-9A-HJ-NP-Za-km-z]{56}$/;

interface KeyJson {
  prefix: string;
  key?: string;
  tenant_id: string;
  label: string;
  status: string;
  expires_at: string | null;
}

describe(`payreq CLI commands, no service running (${ENGINE})`, { timeout: 180_000 }, () => {
  const scratch = scratchDir();
  let testDb: TestDatabase | undefined;
  let env: NodeJS.ProcessEnv;
  const run = (...args: string[]) => payreq(args, env, scratch.dir);

  before(async () => {
    // PGlite: a directory the CLI opens itself (no service); PostgreSQL: a fresh test database.
    if (ENGINE === 'postgres') testDb = await createTestDatabase();
    env = cliEnv({ DATABASE_URL: testDb ? testDb.url : `pglite://${scratch.dir}/data` });
  });
  after(async () => {
    killAll();
    await testDb?.drop();
    scratch.cleanup();
  });

  test('--help and usage errors need no database', async () => {
    const help = await payreq(['--help'], cliEnv({ DATABASE_URL: 'nope://' }), scratch.dir);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /tenant create/);
    assert.match(help.stdout, /key revoke/);
    const keyHelp = await payreq(['key', 'create', '--help'], cliEnv({}), scratch.dir);
    assert.equal(keyHelp.code, 0);
    assert.match(keyHelp.stdout, /--tenant ID --label LABEL/);
    assertFails(await payreq(['frobnicate'], cliEnv({}), scratch.dir), /^error: unknown command "frobnicate"/);
    assertFails(await payreq(['key'], cliEnv({}), scratch.dir), /needs a subcommand: create, list/);
    assertFails(await payreq(['tenant', 'create', '--nme', 'x'], cliEnv({}), scratch.dir), /unknown option --nme/);
    assertFails(await payreq(['key', 'revoke'], cliEnv({}), scratch.dir), /missing PREFIX/);
  });

  test('bad configuration stops with its one line', async () => {
    const r = await payreq(
      ['tenant', 'list'],
      cliEnv({ DATABASE_URL: env.DATABASE_URL ?? '', PORT: 'abc' }),
      scratch.dir,
    );
    assertFails(r, /^error: PORT must be a whole number/);
    const bad = await payreq(['tenant', 'list'], cliEnv({ DATABASE_URL: 'mysql://x' }), scratch.dir);
    assertFails(bad, /DATABASE_URL must start with postgres/);
  });

  test('migrate applies what is missing, then nothing', async () => {
    const first = parseJson<{ applied: string[] }>(await run('migrate', '--json'));
    if (ENGINE === 'pglite') assert.ok(first.applied.includes('0001_init.sql'));
    const second = parseJson<{ applied: string[] }>(await run('migrate', '--json'));
    assert.deepEqual(second.applied, []);
    const text = await run('migrate');
    assert.equal(text.code, 0);
    assert.match(text.stdout, /up to date/);
  });

  test('tenant create and key create, list, disable, enable, revoke', async () => {
    const tenant = parseJson<{ id: string; name: string; timezone: string; confirmation_email: boolean }>(
      await run(
        'tenant',
        'create',
        '--name',
        'Hôtel du Lac',
        '--timezone',
        'europe/zurich',
        '--confirmation-email',
        '--json',
      ),
    );
    assert.equal(tenant.name, 'Hôtel du Lac');
    assert.equal(tenant.timezone, 'Europe/Zurich');
    assert.equal(tenant.confirmation_email, true);

    const created = parseJson<KeyJson>(
      await run(
        'key',
        'create',
        '--tenant',
        tenant.id,
        '--label',
        'PMS',
        '--expires-at',
        '2099-01-31T18:00:00+01:00',
        '--json',
      ),
    );
    assert.match(created.key ?? '', KEY);
    assert.equal(created.key?.split('.')[0], created.prefix);
    assert.equal(created.status, 'active');
    assert.equal(created.expires_at, '2099-01-31T17:00:00.000Z');
    const secret = created.key?.split('.')[1] ?? '';

    const second = await run('key', 'create', '--tenant', tenant.id, '--label', 'Night audit');
    assert.equal(second.code, 0);
    assert.match(second.stdout, /shown this once only/);
    assert.match(second.stdout, /\n {2}[2-9A-Za-z]{8}\.[2-9A-Za-z]{56}\n/);

    const listed = await run('key', 'list', '--tenant', tenant.id, '--json');
    assert.ok(!listed.stdout.includes(secret), 'a key list never shows a secret');
    const keys = parseJson<{ keys: KeyJson[] }>(listed).keys;
    assert.deepEqual(
      keys.map((k) => [k.label, k.status, 'key' in k]),
      [
        ['PMS', 'active', false],
        ['Night audit', 'active', false],
      ],
    );

    assert.equal(parseJson<KeyJson>(await run('key', 'disable', created.prefix, '--json')).status, 'disabled');
    assert.equal(parseJson<KeyJson>(await run('key', 'enable', created.prefix, '--json')).status, 'active');
    const revoked = await run('key', 'revoke', created.prefix);
    assert.equal(revoked.code, 0);
    assert.match(revoked.stdout, /Revoked API key .* final/);
    // Revocation is final.
    assertFails(await run('key', 'disable', created.prefix), /is revoked; revocation is final/);
    assertFails(await run('key', 'enable', created.prefix), /is revoked; revocation is final/);
    const after = parseJson<{ keys: KeyJson[] }>(await run('key', 'list', '--tenant', tenant.id, '--json')).keys;
    assert.equal(after.find((k) => k.prefix === created.prefix)?.status, 'revoked');
  });

  test('rejects bad input with one line on stderr and exit 1', async () => {
    const tenant = parseJson<{ id: string }>(await run('tenant', 'create', '--name', 'Errors', '--json'));
    // Independent cases, a few side by side (on PGlite they queue on the directory's lock).
    const cases: [string[], RegExp][] = [
      [['tenant', 'create', '--json'], /--name is required/],
      [['tenant', 'create', '--name', 'X', '--timezone', 'Mars/Olympus', '--json'], /--timezone/],
      [['key', 'create', '--tenant', 'not-a-uuid', '--label', 'x', '--json'], /--tenant must be/],
      [
        ['key', 'create', '--tenant', '00000000-0000-4000-8000-000000000000', '--label', 'x', '--json'],
        /no tenant with id 00000000-0000-4000-8000-000000000000/,
      ],
      [['key', 'create', '--tenant', tenant.id, '--json'], /--label is required/],
      [
        ['key', 'create', '--tenant', tenant.id, '--label', 'x', '--expires-at', '2030-02-30', '--json'],
        /--expires-at must be an ISO 8601 date/,
      ],
      [
        ['key', 'create', '--tenant', tenant.id, '--label', 'x', '--expires-at', '2001-01-01', '--json'],
        /--expires-at must be in the future/,
      ],
      [['key', 'list', '--tenant', '00000000-0000-4000-8000-000000000000'], /no tenant with id/],
      [['key', 'revoke', 'ZZZZZZZZ', '--json'], /no API key with prefix "ZZZZZZZZ"/],
      [['key', 'revoke', `ABCDEFGH.${'x'.repeat(56)}`], /prefix .*not the full key/],
      [['job', 'run', 'no_such_job', '--json'], /unknown job "no_such_job"/],
      [['admin', 'create-user', '--username', 'u'], /--password-stdin/],
    ];
    for (let i = 0; i < cases.length; i += 3) {
      const batch = cases.slice(i, i + 3);
      const results = await Promise.all(batch.map(([args]) => run(...args)));
      for (const [j, r] of results.entries()) assertFails(r, batch[j]?.[1] ?? /./);
    }
    const keys = parseJson<{ keys: unknown[] }>(await run('key', 'list', '--tenant', tenant.id, '--json')).keys;
    assert.deepEqual(keys, [], 'a refused command changes nothing');
  });

  // Only PGlite has a directory to take turns on; registered for that engine alone.
  const pgliteOnly = ENGINE === 'pglite' ? test : () => {};
  pgliteOnly('commands started together on one PGlite directory take turns', async () => {
    const names = ['A', 'B', 'C'];
    const results = await Promise.all(names.map((n) => run('tenant', 'create', '--name', `Concurrent ${n}`, '--json')));
    for (const r of results) parseJson(r);
    const all = parseJson<{ tenants: { name: string }[] }>(await run('tenant', 'list', '--json')).tenants;
    for (const n of names) assert.ok(all.some((t) => t.name === `Concurrent ${n}`));
  });
});
