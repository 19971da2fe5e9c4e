import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SIGN_IN_LIMITS } from '../../src/admin-users/index.ts';
import { buildApp } from '../../src/app.ts';
import { runCommand } from '../../src/cli/run-command.ts';
import { loadConfig } from '../../src/config/index.ts';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { base32Decode, codeFor, rfc6238 } from '../helpers/totp.ts';
import { ControlClient, createUser, PASSWORD } from './control-client.ts';

const STEP_MS = 30_000;

/** Sets up the second factor over HTTP as a user would: start, read the key off the page, confirm. */
async function enrol(c: ControlClient, at: Date): Promise<{ key: string; codes: string[]; page: string }> {
  await c.get('/control/account/two-factor');
  assert.equal((await c.post('/control/account/two-factor/start')).statusCode, 303);
  const page = await c.get('/control/account/two-factor');
  assert.equal(page.statusCode, 200);
  const key = /id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(page.body)?.[1];
  assert.ok(key, 'the key is shown as text');
  assert.match(page.body, /<img class="qr" src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+"/, 'and as a QR code');
  const confirmed = await c.post('/control/account/two-factor/confirm', { code: codeFor(key, at) });
  assert.equal(confirmed.statusCode, 200, confirmed.body);
  const codes = [...confirmed.body.matchAll(/<li><code>([0-9a-z]{4}(?:-[0-9a-z]{4}){3})<\/code><\/li>/g)].map(
    (m) => m[1] ?? '',
  );
  return { key, codes, page: confirmed.body };
}

/** Password, then the second step; the answer of the second step. */
async function signInWith(c: ControlClient, username: string, step: 'code' | 'recovery', value: string) {
  const first = await c.signIn(username);
  assert.equal(first.statusCode, 303, first.body);
  assert.equal(first.headers.location, '/control/sign-in/code');
  await c.get(`/control/sign-in/${step}`);
  return c.post(`/control/sign-in/${step}`, step === 'code' ? { code: value } : { recovery_code: value });
}

async function auditRows(t: TestApp, action: string) {
  const r = await t.db.query<{ username: string | null; outcome: string; detail: Record<string, unknown> }>(
    'SELECT username, outcome, detail FROM admin_audit WHERE action = $1 ORDER BY id',
    [action],
  );
  return r.rows;
}

describe(`two-factor sign-in (TOTP) in the back office (${ENGINE})`, { timeout: 300_000 }, () => {
  let t: TestApp;
  // The back office's clock: moved a step at a time so that a new code is due.
  let clock = new Date();
  const tick = () => {
    clock = new Date(clock.getTime() + STEP_MS);
    return clock;
  };
  let address = 0;
  const client = () => new ControlClient(t, `10.20.0.${++address}`);

  before(async () => {
    t = await startTestApp({ now: () => clock });
    await createUser(t, 'root');
    await createUser(t, 'desk', t.tenant.tenantId);
    await createUser(t, 'night', t.tenant.tenantId);
  });
  after(() => t.close());

  test('the test computes codes the RFC way (its own test vector)', () => {
    // RFC 6238, appendix B: SHA-1, T = 59 s, 8 digits.
    assert.equal(rfc6238(Buffer.from('12345678901234567890'), new Date(59_000), 8), '94287082');
    assert.equal(rfc6238(base32Decode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'), new Date(1_111_111_109_000), 8), '07081804');
  });

  test('enrolment: key and QR code shown, confirmed with a code; 10 recovery codes shown once, stored hashed; the key sealed', async () => {
    const c = await client().signedIn('desk');
    const account = await c.get('/control/account');
    assert.match(account.body, /Two-factor sign-in is off\./);
    // A wrong code does not turn it on.
    await c.get('/control/account/two-factor');
    await c.post('/control/account/two-factor/start');
    await c.get('/control/account/two-factor');
    const wrong = await c.post('/control/account/two-factor/confirm', { code: '000000' });
    assert.equal(wrong.statusCode, 422);
    assert.match(wrong.body, /That code is not right/);
    const { key, codes } = await enrol(c, clock);
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    const user = await t.repos.adminUsers.findByUsername('desk');
    const stored = await t.db.query<{ secret_sealed: string; confirmed_at: Date | null }>(
      'SELECT secret_sealed, confirmed_at FROM admin_two_factor WHERE user_id = $1',
      [user?.id],
    );
    const sealed = stored.rows[0]?.secret_sealed ?? '';
    assert.ok(stored.rows[0]?.confirmed_at, 'confirmed');
    assert.match(sealed, /^v2:v1:/, 'sealed under the current key');
    assert.ok(!sealed.includes(key.replaceAll(' ', '')), 'the key is not stored in clear');
    const hashes = await t.db.query<{ code_hash: string }>(
      'SELECT code_hash FROM admin_recovery_codes WHERE user_id = $1',
      [user?.id],
    );
    assert.equal(hashes.rows.length, 10);
    for (const code of codes) assert.ok(!hashes.rows.some((h) => h.code_hash.includes(code.replaceAll('-', ''))));
    // Shown once: the page does not show them again, nor the key.
    const later = await c.get('/control/account/two-factor');
    assert.match(later.body, /Two-factor sign-in is on\. Unused recovery codes: 10\./);
    assert.ok(!codes.some((code) => later.body.includes(code)));
    assert.ok(!later.body.includes(key));
    assert.deepEqual(
      (await auditRows(t, 'two_factor_enabled'))
        .filter((r) => r.username === 'desk')
        .map((r) => [r.username, r.outcome]),
      [
        ['desk', 'refused'],
        ['desk', 'ok'],
      ],
    );
  });

  test('sign-in asks for the code after the password; each code works once, a later one works', async () => {
    const c = await client().signedIn('night');
    const { key } = await enrol(c, clock);
    tick();
    const d = client();
    const first = await d.signIn('night');
    assert.equal(first.headers.location, '/control/sign-in/code');
    // The password alone opens nothing.
    const closed = await d.get('/control/requests');
    assert.equal(closed.statusCode, 303);
    assert.match(String(closed.headers.location), /^\/control\/sign-in/);
    await d.get('/control/sign-in/code');
    const code = codeFor(key, clock);
    const ok = await d.post('/control/sign-in/code', { code });
    assert.equal(ok.statusCode, 303, ok.body);
    assert.equal(ok.headers.location, '/control/requests');
    assert.equal((await d.get('/control/requests')).statusCode, 200);
    // The same code again, by anyone, at the same moment: refused.
    const again = await signInWith(client(), 'night', 'code', code);
    assert.equal(again.statusCode, 401);
    assert.match(again.body, /That code is not right, or was used already/);
    // The previous step's code is older than the one used: refused too.
    const earlier = await signInWith(client(), 'night', 'code', codeFor(key, new Date(clock.getTime() - STEP_MS)));
    assert.equal(earlier.statusCode, 401);
    tick();
    const next = await signInWith(client(), 'night', 'code', codeFor(key, clock));
    assert.equal(next.statusCode, 303);
    const refusals = (await auditRows(t, 'sign_in_code')).filter((r) => r.username === 'night');
    assert.deepEqual(
      refusals.map((r) => [r.outcome, r.detail.reason]),
      [
        ['refused', 'reused_code'],
        ['refused', 'reused_code'],
      ],
    );
    const signIns = (await auditRows(t, 'sign_in')).filter((r) => r.username === 'night');
    assert.deepEqual(
      signIns.map((r) => r.detail.second_factor),
      ['none', 'totp', 'totp'],
    );
  });

  test('a recovery code signs in once; the code step is throttled on its own count and audited', async () => {
    const u = 'recover';
    await createUser(t, u, t.tenant.tenantId);
    const { codes } = await enrol(await client().signedIn(u), clock);
    const code = codes[3] ?? '';
    // Typed in capitals, without dashes: the same code.
    const ok = await signInWith(client(), u, 'recovery', code.replaceAll('-', ' ').toUpperCase());
    assert.equal(ok.statusCode, 303, ok.body);
    const again = await signInWith(client(), u, 'recovery', code);
    assert.equal(again.statusCode, 401);
    assert.match(again.body, /That recovery code is not right, or was used already/);
    // Guessing codes: one wrong recovery code counted already, so 3 more are free, the 5th
    // failure starts the wait; a right password each time does not reset the count.
    assert.equal(SIGN_IN_LIMITS.freePerUsername, 5);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await signInWith(client(), u, 'code', String(100000 + i))).statusCode);
    assert.deepEqual(statuses, [401, 401, 401, 401, 429, 429]);
    const waiting = await signInWith(client(), u, 'recovery', codes[5] ?? '');
    assert.equal(waiting.statusCode, 429, 'even a right recovery code waits its turn');
    assert.ok(Number(waiting.headers['retry-after']) > 0);
    const throttled = (await auditRows(t, 'sign_in_recovery_code')).filter((r) => r.detail.reason === 'throttled');
    assert.equal(throttled.length, 1);
    await t.db.query("DELETE FROM sign_in_throttle WHERE key LIKE 'code:%' OR key LIKE 'ip:%'");
    const left = await signInWith(client(), u, 'recovery', codes[5] ?? '');
    assert.equal(left.statusCode, 303);
  });

  test('payreq tenant update --require-2fa true sends a user without a second factor to set one up first', async () => {
    await createUser(t, 'frontdesk', t.tenant.tenantId);
    const before = await client().signedIn('frontdesk');
    const ctx = { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq };
    const on = await runCommand(
      ['tenant', 'update', '--tenant', t.tenant.tenantId, '--require-2fa', 'true', '--json'],
      ctx,
    );
    assert.equal(on.exitCode, 0, on.stderr);
    assert.deepEqual(JSON.parse(on.stdout).changed, ['require_2fa']);
    const bad = await runCommand(
      ['tenant', 'update', '--tenant', t.tenant.tenantId, '--require-2fa', 'yes please'],
      ctx,
    );
    assert.match(bad.stderr, /--require-2fa must be true or false/);
    // A session open before: its next page is the enrolment.
    const moved = await before.get('/control/requests');
    assert.equal(moved.statusCode, 303);
    assert.equal(moved.headers.location, '/control/account/two-factor');
    // A new sign-in: the enrolment right after the password, and nothing else opens.
    const c = client();
    const first = await c.signIn('frontdesk');
    assert.equal(first.headers.location, '/control/account/two-factor');
    for (const path of ['/control/requests', '/control/keys', '/control/account', '/control/account/sessions']) {
      const r = await c.get(path);
      assert.equal(r.statusCode, 303, path);
      assert.equal(r.headers.location, '/control/account/two-factor', path);
    }
    const refused = await c.post('/control/account/password', {
      current_password: PASSWORD,
      new_password: 'another long password',
      new_password_again: 'another long password',
    });
    assert.equal(refused.statusCode, 303, 'not even a new password before enrolling');
    const page = await c.get('/control/account/two-factor');
    assert.match(page.body, /Two-factor sign-in is required for your account: set it up to continue\./);
    assert.doesNotMatch(page.body, /<nav class="main"/);
    const { key } = await enrol(c, clock);
    assert.equal((await c.get('/control/requests')).statusCode, 200, 'enrolled: the back office opens');
    // Required: it cannot be turned off.
    await c.get('/control/account/two-factor');
    const off = await c.post('/control/account/two-factor/disable', { password: PASSWORD });
    assert.equal(off.statusCode, 403);
    assert.match(off.body, /it cannot be turned off/);
    const off2 = await runCommand(['tenant', 'update', '--tenant', t.tenant.tenantId, '--require-2fa', 'false'], ctx);
    assert.equal(off2.exitCode, 0, off2.stderr);
    await c.get('/control/account/two-factor');
    const wrongPassword = await c.post('/control/account/two-factor/disable', { password: 'not my password at all' });
    assert.equal(wrongPassword.statusCode, 403);
    assert.match(wrongPassword.body, /Your current password is not right/);
    await c.get('/control/account/two-factor');
    assert.equal((await c.post('/control/account/two-factor/disable', { password: PASSWORD })).statusCode, 303);
    assert.equal((await client().signIn('frontdesk')).headers.location, '/control/requests', 'password alone again');
    assert.match(key, /^[A-Z2-7 ]+$/);
  });

  test('a session waiting for its code ends with the others: set-password and end-sessions leave no code to post', async () => {
    await createUser(t, 'waiting', t.tenant.tenantId);
    const { key } = await enrol(await client().signedIn('waiting'), clock);
    const ctx = { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq };
    let password = PASSWORD;
    const newPassword = `${PASSWORD} again`;
    for (const end of [
      async () => {
        const r = await runCommand(
          ['admin', 'set-password', 'waiting', '--password-stdin'],
          ctx,
          undefined,
          `${newPassword}\n`,
        );
        password = newPassword;
        return r;
      },
      () => runCommand(['admin', 'end-sessions', '--username', 'waiting'], ctx),
    ]) {
      tick();
      const pending = client();
      const first = await pending.signIn('waiting', password);
      assert.equal(first.headers.location, '/control/sign-in/code', 'the password is right: the code is asked');
      await pending.get('/control/sign-in/code');
      const r = await end();
      assert.equal(r.exitCode, 0, r.stderr);
      const code = await pending.post('/control/sign-in/code', { code: codeFor(key, clock) });
      assert.notEqual(code.headers.location, '/control/requests', 'the waiting session was ended: no full session');
      assert.equal((await pending.get('/control/requests')).statusCode, 303, 'signed out');
    }
  });

  test('payreq admin reset-2fa --username: the factor gone, sessions ended, audited', async () => {
    await createUser(t, 'lostphone', t.tenant.tenantId);
    const enrolled = await client().signedIn('lostphone');
    await enrol(enrolled, clock);
    const user = await t.repos.adminUsers.findByUsername('lostphone');
    const ctx = { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq };
    const r = await runCommand(['admin', 'reset-2fa', '--username', 'LostPhone', '--json'], ctx);
    assert.equal(r.exitCode, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.two_factor_removed, true);
    assert.equal(out.sessions_ended, 1, 'the session signed in at enrolment');
    assert.equal((await enrolled.get('/control/requests')).statusCode, 303, 'that session is signed out');
    assert.equal((await t.repos.twoFactor.find(user?.id ?? '')) ?? null, null);
    const codesLeft = await t.db.query('SELECT 1 FROM admin_recovery_codes WHERE user_id = $1', [user?.id]);
    assert.equal(codesLeft.rows.length, 0);
    const audit = (await auditRows(t, 'two_factor_reset')).at(-1);
    assert.deepEqual(audit?.detail, { had_two_factor: true, sessions_ended: 1, via: 'command line' });
    assert.equal((await client().signIn('lostphone')).headers.location, '/control/requests', 'the password alone');
    const unknown = await runCommand(['admin', 'reset-2fa', '--username', 'nobody-here'], ctx);
    assert.equal(unknown.exitCode, 1);
    assert.match(unknown.stderr, /No back-office user "nobody-here"/);
    const missing = await runCommand(['admin', 'reset-2fa'], ctx);
    assert.match(missing.stderr, /--username/);
  });

  test('a key sealed under a SECRET_KEY no longer configured refuses the code, logged and audited, never a 500', async () => {
    await createUser(t, 'oldkey', t.tenant.tenantId);
    const { key } = await enrol(await client().signedIn('oldkey'), clock);
    const user = await t.repos.adminUsers.findByUsername('oldkey');
    await t.db.query("UPDATE admin_two_factor SET secret_sealed = 'v2:retired2024:AAAA' WHERE user_id = $1", [
      user?.id,
    ]);
    tick();
    const r = await signInWith(client(), 'oldkey', 'code', codeFor(key, clock));
    assert.equal(r.statusCode, 401);
    const refused = (await auditRows(t, 'sign_in_code')).filter((a) => a.username === 'oldkey');
    assert.deepEqual(
      refused.map((a) => a.detail.reason),
      ['unreadable_key'],
    );
  });

  test('payreq secrets reseal moves the TOTP keys to a new SECRET_KEY; codes still sign in after', async () => {
    await createUser(t, 'rotated', t.tenant.tenantId);
    const { key } = await enrol(await client().signedIn('rotated'), clock);
    const user = await t.repos.adminUsers.findByUsername('rotated');
    const oldKey = t.app.payreq.secretKeys.current;
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: t.testDb.url,
      WORKERS: 'off',
      SECRET_KEY: `${'N'.repeat(16)}${randomBytes(24).toString('hex')}`,
      SECRET_KEY_ID: 'k2',
    };
    const config = loadConfig({ ...env, SECRET_KEYS_OLD: `${oldKey.id}:${oldKey.key}` });
    const rotated = await buildApp({ config, db: t.db, now: () => clock });
    await rotated.ready();
    try {
      const ctx = { config, db: t.db, repos: rotated.payreq.repos, app: rotated.payreq };
      const r = await runCommand(['secrets', 'reseal', '--json'], ctx);
      assert.equal(r.exitCode, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.ok(report.kinds.totp_secrets.resealed >= 1, r.stdout);
      // The one left behind is the key of an earlier test sealed under a key nobody has.
      assert.deepEqual(
        report.failures.map((f: { kind: string; key_id: string }) => [f.kind, f.key_id]),
        [['totp_secrets', 'retired2024']],
      );
      const sealed = (await t.repos.twoFactor.find(user?.id ?? ''))?.secret_sealed ?? '';
      assert.match(sealed, /^v2:k2:/);
      // The service on the new key alone (the old one retired) opens it: the code signs in.
      const newOnly = await buildApp({ config: loadConfig(env), db: t.db, now: () => clock });
      await newOnly.ready();
      try {
        tick();
        const c = new ControlClient({ ...t, app: newOnly }, '10.20.9.1');
        const ok = await signInWith(c, 'rotated', 'code', codeFor(key, clock));
        assert.equal(ok.statusCode, 303, ok.body);
      } finally {
        await newOnly.close();
      }
    } finally {
      await rotated.close();
    }
  });

  test("a superuser resets a user's second factor from the user's page", async () => {
    await createUser(t, 'gone', t.tenant.tenantId);
    const user = await client().signedIn('gone');
    await enrol(user, clock);
    const root = await client().signedIn('root');
    const page = await root.get('/control/users/gone');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Two-factor sign-in<\/dt><dd>on<\/dd>/);
    const reset = await root.post('/control/users/gone/reset-2fa');
    assert.equal(reset.statusCode, 303);
    assert.equal((await user.get('/control/requests')).statusCode, 303, 'their session ended');
    const after = await root.get('/control/users/gone');
    assert.match(after.body, /Two-factor sign-in of gone is reset and their sessions are ended\./);
    assert.match(after.body, /Two-factor sign-in<\/dt><dd>off<\/dd>/);
    assert.equal((await auditRows(t, 'two_factor_reset')).at(-1)?.username, 'root');
    assert.equal((await root.get('/control/users/nobody-here')).statusCode, 404);
  });

  test('a code sent twice, even the right one, is refused like a wrong one: the factor stays off', async () => {
    await createUser(t, 'twice', t.tenant.tenantId);
    const c = await client().signedIn('twice');
    await c.get('/control/account/two-factor');
    await c.post('/control/account/two-factor/start');
    const page = await c.get('/control/account/two-factor');
    const key = /id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(page.body)?.[1] ?? '';
    const code = codeFor(key, clock);
    const twice = await c.post('/control/account/two-factor/confirm', { code: [code, code] });
    assert.equal(twice.statusCode, 422, twice.body);
    assert.match(twice.body, /That code is not right/);
    assert.match((await c.get('/control/account')).body, /Two-factor sign-in is off\./);
    assert.deepEqual(
      (await auditRows(t, 'two_factor_enabled')).filter((r) => r.username === 'twice').map((r) => r.outcome),
      ['refused'],
    );
  });
});

describe(`CONTROL_REQUIRE_2FA=on requires a second factor of every user, superusers too (${ENGINE})`, {
  timeout: 120_000,
}, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { CONTROL_REQUIRE_2FA: 'on' } });
    await createUser(t, 'root');
  });
  after(() => t.close());

  test('a superuser without one is sent to set it up right after the password', async () => {
    const c = new ControlClient(t, '10.21.0.1');
    const first = await c.signIn('root');
    assert.equal(first.headers.location, '/control/account/two-factor');
    assert.equal((await c.get('/control/tenants')).headers.location, '/control/account/two-factor');
    assert.throws(() => loadConfig({ CONTROL_REQUIRE_2FA: 'always' }), /CONTROL_REQUIRE_2FA must be on or off/);
    assert.equal(loadConfig({}).controlRequire2fa, false);
  });
});
