import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PASSWORD_HASH_COST } from '../../src/config/index.ts';
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

/**
 * `payreq admin ...` while the service runs: on PGlite the command and its standard input
 * (the password) travel over the control channel; on PostgreSQL the CLI connects itself.
 * The password is proven by signing in to /control/ over HTTP.
 */
describe(`payreq admin users, with the service running (${ENGINE})`, { timeout: 240_000 }, () => {
  const scratch = scratchDir();
  let testDb: TestDatabase | undefined;
  let env: NodeJS.ProcessEnv;
  let serve: ServeProcess;
  let base: string;
  const run = (args: string[], input?: string) => payreq(args, env, scratch.dir, 60_000, input);

  before(async () => {
    if (ENGINE === 'postgres') testDb = await createTestDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = cliEnv({
      DATABASE_URL: testDb ? testDb.url : `pglite://${pgliteDataDir(`${scratch.dir}/data`)}`,
      PORT: String(port),
      // The commands and the sign-ins, not the hash's cost (back-office-passwords.test.ts), are
      // the subject: the lowest cost, for the service and the commands alike.
      PASSWORD_HASH_COST: String(PASSWORD_HASH_COST.lowest),
    });
    serve = await ServeProcess.start({ ...env, LOG_LEVEL: 'info' }, scratch.dir, 120_000);
  });
  after(async () => {
    await serve?.stop();
    killAll();
    await testDb?.drop();
    scratch.cleanup();
  });

  /** Sign-in as a browser does it: the page (cookie and CSRF token), then the form. */
  async function signIn(username: string, password: string): Promise<number> {
    const page = await fetch(`${base}/control/sign-in`);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const r = await fetch(`${base}/control/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, username, password }).toString(),
    });
    return r.status;
  }

  test('create-user reads the password from standard input; the user signs in', async () => {
    const created = parseJson<{ username: string; role: string }>(
      await run(
        ['admin', 'create-user', '--username', 'Reception', '--password-stdin', '--json'],
        'a long enough password\n',
      ),
    );
    assert.deepEqual(created, { ...created, username: 'reception', role: 'superuser' });
    if (ENGINE === 'pglite') assert.match(serve.stdout, /"command":"admin create-user"/, 'ran inside the service');
    assert.ok(!serve.stdout.includes('a long enough password'), 'the password is in no log');
    assert.equal(await signIn('reception', 'a long enough password'), 303);
    assert.equal(await signIn('reception', 'a long enough passwor'), 401);
  });

  test('refusals: no stdin flag, a short or common password, a taken name, an unknown user', async () => {
    assertFails(await run(['admin', 'create-user', '--username', 'x']), /--password-stdin/);
    assertFails(
      await run(['admin', 'create-user', '--username', 'shorty', '--password-stdin'], 'short\n'),
      /at least 12/,
    );
    assertFails(
      await run(['admin', 'create-user', '--username', 'commoner', '--password-stdin'], 'Password1234\n'),
      /--password-stdin: the password is one of the most common passwords/,
    );
    assertFails(
      await run(['admin', 'create-user', '--username', 'reception', '--password-stdin'], 'another long one\n'),
      /is taken/,
    );
    assertFails(
      await run(['admin', 'set-password', 'nobody', '--password-stdin'], 'a long enough password\n'),
      /No back-office user/,
    );
  });

  test('set-password and disable-user apply at once', async () => {
    const changed = await run(['admin', 'set-password', 'reception', '--password-stdin'], 'the new long password\n');
    assert.equal(changed.code, 0, changed.stderr);
    assert.equal(await signIn('reception', 'a long enough password'), 401);
    assert.equal(await signIn('reception', 'the new long password'), 303);
    assert.equal((await run(['admin', 'disable-user', 'reception'])).code, 0);
    assert.equal(await signIn('reception', 'the new long password'), 401);
    const list = parseJson<{ users: { username: string; disabled: boolean }[] }>(
      await run(['admin', 'list-users', '--json']),
    );
    assert.deepEqual(list.users, [{ ...list.users[0], username: 'reception', disabled: true }]);
  });

  test('create-user takes repeated --tenant/--role pairs; grant adds or changes a role; both audited', async () => {
    const tenant = async (name: string) =>
      parseJson<{ id: string }>(await run(['tenant', 'create', '--name', name, '--json'])).id;
    const [a, b] = [await tenant('Group A'), await tenant('Group B')];
    const created = parseJson<{ role: string; roles: { tenant_id: string; role: string }[] }>(
      await run(
        [
          'admin',
          'create-user',
          '--username',
          'groupie',
          '--password-stdin',
          '--tenant',
          a,
          '--role',
          'viewer',
          '--tenant',
          b,
          '--role',
          'manager',
          '--json',
        ],
        'a long enough password\n',
      ),
    );
    assert.equal(created.role, 'tenant');
    assert.deepEqual(created.roles, [
      { tenant_id: a, role: 'viewer' },
      { tenant_id: b, role: 'manager' },
    ]);
    assert.equal(await signIn('groupie', 'a long enough password'), 303);
    // Refused, nothing created: roles given for some --tenant but not all, a role that does not exist.
    assertFails(
      await run(
        [
          'admin',
          'create-user',
          '--username',
          'half',
          '--password-stdin',
          '--tenant',
          a,
          '--tenant',
          b,
          '--role',
          'viewer',
        ],
        'a long enough password\n',
      ),
      /give one --role per --tenant/,
    );
    assertFails(
      await run(
        ['admin', 'create-user', '--username', 'odd', '--password-stdin', '--tenant', a, '--role', 'owner'],
        'a long enough password\n',
      ),
      /--role must be one of viewer, frontdesk, manager/,
    );
    const granted = parseJson<{ before: string | null; role_on_tenant: string }>(
      await run(['admin', 'grant', '--username', 'GROUPIE', '--tenant', a, '--role', 'frontdesk', '--json']),
    );
    assert.deepEqual([granted.before, granted.role_on_tenant], ['viewer', 'frontdesk']);
    assertFails(
      await run(['admin', 'grant', '--username', 'reception', '--tenant', a, '--role', 'viewer']),
      /is a superuser/,
    );
    assertFails(
      await run(['admin', 'grant', '--username', 'nobody', '--tenant', a, '--role', 'viewer']),
      /No back-office user/,
    );
    assertFails(
      await run(['admin', 'grant', '--username', 'groupie', '--tenant', a, '--role', 'boss']),
      /--role must be one of/,
    );
    const list = parseJson<{ users: { username: string; roles?: { tenant_id: string; role: string }[] }[] }>(
      await run(['admin', 'list-users', '--tenant', b, '--json']),
    );
    assert.deepEqual(
      list.users.map((u) => [u.username, u.roles?.map((r) => r.role).sort()]),
      [['groupie', ['frontdesk', 'manager']]],
    );
    const help = await run(['admin', 'grant', '--help']);
    assert.match(help.stdout, /payreq admin grant --username U --tenant ID --role viewer\|frontdesk\|manager/);
  });

  test('end-sessions and reset-2fa --username sign the user out at once, and are audited', async () => {
    assert.equal((await run(['admin', 'enable-user', 'reception'])).code, 0);
    // A browser's sign-in: the page's cookie and token, the form, then the session's cookie.
    const page = await fetch(`${base}/control/sign-in`);
    const csrfCookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const signedIn = await fetch(`${base}/control/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, username: 'reception', password: 'the new long password' }).toString(),
    });
    assert.equal(signedIn.status, 303);
    const session = signedIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0] ?? '')
      .find((c) => c.startsWith('payreq_control='));
    const open = () => fetch(`${base}/control/requests`, { redirect: 'manual', headers: { cookie: session ?? '' } });
    assert.equal((await open()).status, 200);
    const ended = parseJson<{ sessions_ended: number }>(
      await run(['admin', 'end-sessions', '--username', 'Reception', '--json']),
    );
    assert.equal(ended.sessions_ended, 1);
    assert.equal((await open()).status, 303, 'that session is signed out');
    const reset = parseJson<{ two_factor_removed: boolean; sessions_ended: number }>(
      await run(['admin', 'reset-2fa', '--username', 'reception', '--json']),
    );
    assert.deepEqual([reset.two_factor_removed, reset.sessions_ended], [false, 0]);
    assertFails(await run(['admin', 'reset-2fa', '--username', 'nobody']), /No back-office user "nobody"/);
    const help = await run(['admin', 'reset-2fa', '--help']);
    assert.match(help.stdout, /payreq admin reset-2fa --username U/);
  });
});
