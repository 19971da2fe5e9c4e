import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/run-command.ts';
import type { Database, QueryOptions } from '../../src/db/index.ts';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser, PASSWORD, withoutLabels } from './control-client.ts';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** A client whose every request carries `userAgent`, as one browser's would. */
function browser(t: TestApp, ip: string, userAgent: string): ControlClient {
  const c = new ControlClient(t, ip);
  c.headers['user-agent'] = userAgent;
  return c;
}

/**
 * The database, with one thing a test can ask for: end a user's sessions just before the next
 * write of a session row, as a sign-out elsewhere landing while a request is under way would.
 */
function racingDatabase() {
  let endFor: string | undefined;
  return {
    endSessionsBeforeNextSave(userId: string) {
      endFor = userId;
    },
    wrap(real: Database): Database {
      return {
        engine: real.engine,
        async query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
          if (endFor && /^(INSERT INTO|UPDATE) admin_sessions\b/.test(sql.trim())) {
            const userId = endFor;
            endFor = undefined;
            await real.query("DELETE FROM admin_sessions WHERE data->>'userId' = $1", [userId]);
          }
          return real.query<T>(sql, params, options);
        },
        transaction: (fn, options) => real.transaction(fn, options),
        ...(real.listen ? { listen: real.listen.bind(real) } : {}),
        close: () => real.close(),
      };
    },
  };
}

/** The sign-out buttons of the sessions page: the session each names, and the device it says. */
function signOutForms(body: string): { session: string; device: string }[] {
  return [...withoutLabels(body).matchAll(/<tr><td>([^<]*)<\/td>[\s\S]*?name="session" value="([^"]+)"/g)].map((m) => ({
    device: m[1] ?? '',
    session: m[2] ?? '',
  }));
}

describe(`back-office sessions a user controls (${ENGINE})`, { timeout: 240_000 }, () => {
  let t: TestApp;
  let address = 0;
  const ip = () => `10.30.0.${++address}`;
  const database = racingDatabase();

  before(async () => {
    t = await startTestApp({ database: (real) => database.wrap(real) });
    await createUser(t, 'root');
    for (const u of ['anna', 'bruno', 'carla', 'dora', 'emil', 'fritz']) await createUser(t, u, t.tenant.tenantId);
  });
  after(() => t.close());

  test('the sessions page lists devices, addresses and times, this one marked; another is signed out', async () => {
    const laptop = browser(t, '10.30.1.1', FIREFOX);
    await laptop.signedIn('anna');
    const phone = browser(t, '10.30.1.2', IPHONE);
    await phone.signedIn('anna');
    const other = await new ControlClient(t, ip()).signedIn('bruno');
    const page = await laptop.get('/control/account/sessions');
    assert.equal(page.statusCode, 200);
    assert.match(withoutLabels(page.body), /<td>10\.30\.1\.1<\/td>/);
    assert.match(withoutLabels(page.body), /<td>10\.30\.1\.2<\/td>/);
    const forms = signOutForms(page.body);
    assert.equal(forms.length, 1, 'a button for the other session, none for this one');
    assert.match(page.body, /this session/);
    const phoneRow = forms[0];
    assert.ok(phoneRow);
    // Each request of the phone has been seen: it still works before being signed out.
    assert.equal((await phone.get('/control/requests')).statusCode, 200);
    const ended = await laptop.post('/control/account/sessions/end', { session: phoneRow.session });
    assert.equal(ended.statusCode, 303);
    const next = await phone.get('/control/requests');
    assert.equal(next.statusCode, 303, "the phone's next request is signed out");
    assert.match(String(next.headers.location), /^\/control\/sign-in/);
    assert.equal((await laptop.get('/control/requests')).statusCode, 200, 'this session goes on');
    assert.equal((await other.get('/control/requests')).statusCode, 200, "another user's session too");
    const audit = await t.db.query<{ username: string; outcome: string }>(
      "SELECT username, outcome FROM admin_audit WHERE action = 'session_ended'",
    );
    assert.deepEqual(audit.rows, [{ username: 'anna', outcome: 'ok' }]);
  });

  test("the device is summarised from the User-Agent; another user's session cannot be named", async () => {
    const laptop = browser(t, ip(), FIREFOX);
    await laptop.signedIn('carla');
    const phone = browser(t, ip(), IPHONE);
    await phone.signedIn('carla');
    const forms = signOutForms((await laptop.get('/control/account/sessions')).body);
    assert.deepEqual(
      forms.map((f) => f.device),
      ['Safari 17 on iOS'],
      JSON.stringify(forms),
    );
    const laptopView = await phone.get('/control/account/sessions');
    assert.match(laptopView.body, /Firefox 128 on Windows/);
    // Dora's laptop tries to end Carla's phone session by its id hash: refused, nothing ends.
    const dora = await new ControlClient(t, ip()).signedIn('dora');
    await dora.get('/control/account/sessions');
    const foreign = await dora.post('/control/account/sessions/end', { session: forms[0]?.session ?? '' });
    assert.equal(foreign.statusCode, 303);
    assert.equal((await phone.get('/control/requests')).statusCode, 200, "Carla's phone is still signed in");
    const refused = await t.db.query(
      "SELECT 1 FROM admin_audit WHERE action = 'session_ended' AND outcome = 'refused'",
    );
    assert.equal(refused.rows.length, 1);
  });

  test('sign out every other session: they end, this one goes on', async () => {
    const here = await new ControlClient(t, ip()).signedIn('fritz');
    const others = [
      await new ControlClient(t, ip()).signedIn('fritz'),
      await new ControlClient(t, ip()).signedIn('fritz'),
    ];
    await here.get('/control/account/sessions');
    const r = await here.post('/control/account/sessions/end-others');
    assert.equal(r.statusCode, 303);
    const shown = (await here.get('/control/account/sessions')).body;
    assert.match(shown, /Other sessions signed out: 2\./, /flash[^<]*<\/p>/.exec(shown)?.[0]);
    for (const o of others) assert.equal((await o.get('/control/requests')).statusCode, 303);
    assert.equal((await here.get('/control/requests')).statusCode, 200);
  });

  test('a password change ends the other sessions, not this one; a wrong current password changes nothing', async () => {
    const here = await new ControlClient(t, ip()).signedIn('emil');
    const elsewhere = await new ControlClient(t, ip()).signedIn('emil');
    await here.get('/control/account');
    const wrong = await here.post('/control/account/password', {
      current_password: 'not the password at all',
      new_password: 'a brand new passphrase',
      new_password_again: 'a brand new passphrase',
    });
    assert.equal(wrong.statusCode, 403);
    assert.match(wrong.body, /Your current password is not right/);
    await here.get('/control/account');
    const differ = await here.post('/control/account/password', {
      current_password: PASSWORD,
      new_password: 'a brand new passphrase',
      new_password_again: 'a brand new passphrasf',
    });
    assert.equal(differ.statusCode, 422);
    await here.get('/control/account');
    const common = await here.post('/control/account/password', {
      current_password: PASSWORD,
      new_password: 'password1234',
      new_password_again: 'password1234',
    });
    assert.equal(common.statusCode, 422);
    assert.match(common.body, /one of the most common passwords/);
    assert.equal((await elsewhere.get('/control/requests')).statusCode, 200, 'nothing changed so far');
    await here.get('/control/account');
    const ok = await here.post('/control/account/password', {
      current_password: PASSWORD,
      new_password: 'a brand new passphrase',
      new_password_again: 'a brand new passphrase',
    });
    assert.equal(ok.statusCode, 303, ok.body);
    assert.match((await here.get('/control/account')).body, /Your password is changed/);
    assert.equal((await here.get('/control/requests')).statusCode, 200, 'this session goes on');
    assert.equal((await elsewhere.get('/control/requests')).statusCode, 303, 'the other one is signed out');
    assert.equal((await new ControlClient(t, ip()).signIn('emil')).statusCode, 401, 'the old password is refused');
    await new ControlClient(t, ip()).signedIn('emil', 'a brand new passphrase');
    const audit = await t.db.query<{ outcome: string; detail: { reason?: string } }>(
      "SELECT outcome, detail FROM admin_audit WHERE action = 'password_changed' ORDER BY id",
    );
    assert.deepEqual(
      audit.rows.map((r) => [r.outcome, r.detail.reason]),
      [
        ['refused', 'wrong_password'],
        ['refused', 'passwords_differ'],
        ['refused', 'password_common'],
        ['ok', undefined],
      ],
    );
  });

  test('a new password sent twice, or too long, changes nothing: 422 saying why, audited', async () => {
    const here = await new ControlClient(t, ip()).signedIn('fritz');
    const refusals: [string | string[], RegExp][] = [
      [['a brand new passphrase', 'a brand new passphrase'], /Some values are not valid; nothing was saved/],
      ['x'.repeat(1025), /Password: at most 1024 characters/],
    ];
    for (const [next, said] of refusals) {
      await here.get('/control/account');
      const r = await here.post('/control/account/password', {
        current_password: PASSWORD,
        new_password: next,
        new_password_again: next,
      });
      assert.equal(r.statusCode, 422, r.body);
      assert.match(r.body, said);
    }
    await new ControlClient(t, ip()).signedIn('fritz');
    const audit = await t.db.query<{ detail: { reason?: string } }>(
      "SELECT a.detail FROM admin_audit a WHERE a.action = 'password_changed' AND a.username = 'fritz' ORDER BY a.id",
    );
    assert.deepEqual(
      audit.rows.map((r) => r.detail.reason),
      ['invalid', 'password_long'],
    );
  });

  test("a superuser ends a user's sessions from the user's page, and with payreq admin end-sessions", async () => {
    const anna = await new ControlClient(t, ip()).signedIn('anna');
    const root = await new ControlClient(t, ip()).signedIn('root');
    const page = await root.get('/control/users/anna');
    assert.match(page.body, /End all their sessions/);
    const r = await root.post('/control/users/anna/end-sessions');
    assert.equal(r.statusCode, 303);
    assert.equal(r.headers.location, '/control/users/anna');
    assert.equal((await anna.get('/control/requests')).statusCode, 303);
    assert.match((await root.get('/control/users/anna')).body, /Sessions of anna ended: \d+\./);
    // A tenant user has no user pages: refused by role (403, route-roles.ts), nothing done.
    const bruno = await new ControlClient(t, ip()).signedIn('bruno');
    assert.equal((await bruno.get('/control/users/anna')).statusCode, 403);
    await bruno.get('/control/requests');
    assert.equal((await bruno.post('/control/users/anna/end-sessions')).statusCode, 403);
    // The command line.
    const again = await new ControlClient(t, ip()).signedIn('anna');
    const ctx = { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq };
    const cli = await runCommand(['admin', 'end-sessions', '--username', 'anna', '--json'], ctx);
    assert.equal(cli.exitCode, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).sessions_ended, 1);
    assert.equal((await again.get('/control/requests')).statusCode, 303);
    const audit = await t.db.query<{ username: string | null; target: string }>(
      "SELECT username, target FROM admin_audit WHERE action = 'user_sessions_ended' ORDER BY id",
    );
    assert.deepEqual(audit.rows, [
      { username: 'root', target: 'anna' },
      { username: null, target: 'anna' },
    ]);
  });

  test('a session ended while one of its requests is under way stays ended when that request saves it', async () => {
    const c = await new ControlClient(t, ip()).signedIn('bruno');
    const bruno = await t.repos.adminUsers.findByUsername('bruno');
    // The request reads its session (alive), then, before it saves it, the session is ended.
    database.endSessionsBeforeNextSave(bruno?.id ?? '');
    assert.equal((await c.get('/control/requests')).statusCode, 200, 'the request under way finishes');
    const left = await t.db.query("SELECT 1 FROM admin_sessions WHERE data->>'userId' = $1", [bruno?.id]);
    assert.equal(left.rows.length, 0, 'its save did not bring the session back');
    assert.equal((await c.get('/control/requests')).statusCode, 303, 'the next request is signed out');
  });
});
