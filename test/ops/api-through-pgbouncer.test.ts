import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ENGINE, POOLER_ENV } from '../helpers/database.ts';
import { type Pgbouncer, pgbouncerMissing, startPgbouncer } from '../helpers/pgbouncer.ts';

// The API's own tests of creates, idempotency, captures and releases, refunds and the event
// feed, run again with the app's database connection through PgBouncer in transaction pooling
// (TEST_POSTGRES_POOLER_URL, test/helpers/database.ts): every statement they make goes through
// the pooler, four server connections shared by all their clients.

const FILES = [
  'test/api/create.test.ts',
  'test/api/idempotency.test.ts',
  'test/api/capture-release.test.ts',
  'test/api/refund.test.ts',
  'test/events/event-feed.test.ts',
];

const checkout = fileURLToPath(new URL('../../', import.meta.url));

const skip =
  (ENGINE !== 'postgres' && 'PostgreSQL only: a pooler stands before a database server, which PGlite is not') ||
  pgbouncerMissing();

describe(`the API's tests through PgBouncer in transaction pooling (${ENGINE})`, () => {
  let bouncer: Pgbouncer | undefined;
  let child: ChildProcess | undefined;

  after(async () => {
    child?.kill('SIGKILL');
    await bouncer?.stop();
  });

  test(`${FILES.length} files of API tests pass with every statement through the pooler`, {
    skip,
    timeout: 280_000,
  }, async (t) => {
    bouncer = await startPgbouncer(process.env.TEST_POSTGRES_URL ?? '', { poolSize: 4 });
    // The runner's own variables name this process's files; the nested run has its own.
    const {
      NODE_TEST_CONTEXT: _context,
      PAYREQ_TEST_CURRENT: _current,
      PAYREQ_TEST_COUNTS: _counts,
      ...inherited
    } = process.env;
    const run = spawn(
      process.execPath,
      [
        '--import',
        './scripts/test-process-setup.mjs',
        '--test',
        '--test-isolation=none',
        '--test-force-exit',
        '--test-timeout=240000',
        '--test-reporter=spec',
        ...FILES,
      ],
      {
        cwd: checkout,
        env: { ...inherited, TEST_DATABASE: 'postgres', NODE_ENV: 'test', [POOLER_ENV]: bouncer.url('postgres') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = run;
    let output = '';
    run.stdout?.on('data', (d: Buffer) => (output += d));
    run.stderr?.on('data', (d: Buffer) => (output += d));
    const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
    const count = (what: string) => Number(new RegExp(`^ℹ ${what} (\\d+)$`, 'm').exec(output)?.[1] ?? -1);
    assert.equal(code, 0, output);
    assert.equal(count('fail'), 0, output);
    assert.equal(count('skipped'), 0, 'every test ran');
    assert.ok(count('pass') >= 30, output);
    // Their databases were reached through the pooler, not beside it.
    assert.match(bouncer.log(), /login attempt: db=payreq_test_/);
    t.diagnostic(`${count('pass')} tests passed through PgBouncer`);
  });
});
