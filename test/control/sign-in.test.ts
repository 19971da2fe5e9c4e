import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ABSOLUTE_MS, CSRF_COOKIE, IDLE_MS, SESSION_COOKIE, SIGN_IN_LIMITS } from '../../src/control/index.ts';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser, PASSWORD } from './control-client.ts';

describe(`back office sign-in, sessions, CSRF (${ENGINE})`, { timeout: 300_000 }, () => {
  let t: TestApp;
  let clock = Date.now();
  before(async () => {
    t = await startTestApp({ now: () => new Date(clock) });
    await createUser(t, 'alice');
    await createUser(t, 'desk', t.tenant.tenantId);
  });
  after(() => t.close());

  const auditRows = async (action: string) =>
    (await t.repos.audit.list({ action, limit: 100 })).map((r) => [r.username, r.outcome, r.ip]);

  test('pages ask to sign in first; the sign-in page is strict about headers', async () => {
    const c = new ControlClient(t);
    const r = await c.get('/control/requests');
    assert.equal(r.statusCode, 303);
    assert.equal(r.headers.location, '/control/sign-in');
    const page = await c.get('/control/sign-in');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<form method="post" action="\/control\/sign-in">/);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'.*frame-ancestors 'none'/);
    // Before sign-in, the only cookie is the signed CSRF secret: no session.
    const cookie = String(page.headers['set-cookie']);
    assert.match(cookie, new RegExp(`^${CSRF_COOKIE}=[^;]+\\.[^;]+;`), 'signed');
    assert.doesNotMatch(cookie, new RegExp(`${SESSION_COOKIE}=`));
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Path=\/control/);
  });

  test('a right password signs in, the user is named on the page; a wrong one is refused and audited', async () => {
    const wrong = new ControlClient(t, '10.0.0.2');
    const refused = await wrong.signIn('alice', 'not the password at all');
    assert.equal(refused.statusCode, 401);
    assert.match(refused.body, /Wrong username or password/);
    assert.equal((await wrong.get('/control/requests')).statusCode, 303, 'still not signed in');

    const c = await new ControlClient(t, '10.0.0.3').signedIn('Alice');
    const home = await c.get('/control/requests');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /Signed in as alice/);
    assert.deepEqual((await auditRows('sign_in')).slice(0, 2), [
      ['alice', 'ok', '10.0.0.3'],
      ['alice', 'refused', '10.0.0.2'],
    ]);
  });

  test('the session id changes at sign-in (no fixation)', async () => {
    const c = new ControlClient(t, '10.0.0.4');
    await c.get('/control/sign-in');
    const before = c.cookieHeader();
    await c.post('/control/sign-in', { username: 'alice', password: PASSWORD });
    assert.notEqual(c.cookieHeader(), before);
  });

  test('a form without a CSRF token, or with a stale one, is refused and changes nothing', async () => {
    const c = await new ControlClient(t, '10.0.0.5').signedIn('alice');
    await c.get('/control/requests');
    const none = await c.post('/control/sign-out', { _csrf: '' });
    assert.equal(none.statusCode, 403);
    assert.match(none.body, /This form has expired/);
    const forged = await c.post('/control/sign-out', { _csrf: 'forged-token' });
    assert.equal(forged.statusCode, 403);
    assert.equal((await c.get('/control/requests')).statusCode, 200, 'still signed in: the sign-out did not happen');

    // A token from an earlier session: signed out, then in again, the old token is stale.
    const stale = c.csrf;
    assert.equal((await c.post('/control/sign-out')).statusCode, 303);
    await c.signedIn('alice');
    await c.get('/control/requests');
    const replay = await c.post('/control/sign-out', { _csrf: stale });
    assert.equal(replay.statusCode, 403);
    assert.equal((await c.get('/control/requests')).statusCode, 200);
  });

  test('sign-out ends the session: the same cookie no longer opens a page', async () => {
    const c = await new ControlClient(t, '10.0.0.6').signedIn('alice');
    await c.get('/control/requests');
    const cookie = c.cookieHeader();
    assert.equal((await c.post('/control/sign-out')).statusCode, 303);
    const again = await t.app.inject({ method: 'GET', url: '/control/requests', headers: { cookie } });
    assert.equal(again.statusCode, 303);
    assert.match(String(again.headers.location), /^\/control\/sign-in/);
  });

  test('idle and absolute expiry', async () => {
    const c = await new ControlClient(t, '10.0.0.7').signedIn('alice');
    clock += IDLE_MS - 1000;
    assert.equal((await c.get('/control/requests')).statusCode, 200, 'just inside the idle limit');
    clock += IDLE_MS + 1000;
    const idle = await c.get('/control/requests');
    assert.equal(idle.statusCode, 303);
    assert.equal(idle.headers.location, '/control/sign-in?expired=1');
    assert.match((await c.get('/control/sign-in?expired=1')).body, /Your session has ended/);

    const d = await new ControlClient(t, '10.0.0.8').signedIn('alice');
    // Active all along, never idle: still ends after the absolute limit.
    const step = IDLE_MS / 2;
    for (let spent = 0; spent + step < ABSOLUTE_MS; spent += step) {
      clock += step;
      assert.equal((await d.get('/control/requests')).statusCode, 200);
    }
    clock += step + 1000;
    assert.equal((await d.get('/control/requests')).statusCode, 303, 'past the absolute limit');
  });

  test('disabling a user ends their sessions at once', async () => {
    await createUser(t, 'leaving');
    const c = await new ControlClient(t, '10.0.0.9').signedIn('leaving');
    assert.equal((await c.get('/control/requests')).statusCode, 200);
    await t.repos.adminUsers.setDisabled('leaving', true);
    assert.equal((await c.get('/control/requests')).statusCode, 303);
    const retry = await new ControlClient(t, '10.0.0.9').signIn('leaving');
    assert.equal(retry.statusCode, 401);
  });

  test('sign-in is throttled per username from one address, with a growing wait, and per address', async () => {
    await createUser(t, 'target');
    const guesser = new ControlClient(t, '10.1.0.1');
    const statuses: number[] = [];
    for (let i = 0; i < SIGN_IN_LIMITS.freePerUsername; i++)
      statuses.push((await guesser.signIn('target', 'wrong password!!')).statusCode);
    assert.deepEqual(statuses, Array(SIGN_IN_LIMITS.freePerUsername).fill(401), 'the first failures are free');
    const right = await guesser.signIn('target');
    assert.equal(right.statusCode, 429, 'from the guessing address, even the right password waits');
    assert.equal(right.headers['retry-after'], '15');
    assert.match(right.body, /Too many failed attempts. You may try again in 15 seconds/);
    const refusal = (await t.repos.audit.list({ action: 'sign_in', username: 'target', limit: 1 }))[0];
    assert.deepEqual(
      [refusal?.username, refusal?.outcome, refusal?.ip, refusal?.detail],
      ['target', 'refused', '10.1.0.1', { reason: 'throttled', retry_after_seconds: 15 }],
    );
    // The user, from their own address, is not locked out by the stranger's guesses.
    assert.equal((await new ControlClient(t, '10.1.9.9').signIn('target')).statusCode, 303, 'the user signs in');

    // Each failure past the free ones doubles the wait.
    clock += 15_000;
    assert.equal((await guesser.signIn('target', 'wrong again!!!')).statusCode, 401);
    const longer = await guesser.signIn('target');
    assert.equal(longer.statusCode, 429);
    assert.equal(longer.headers['retry-after'], '30');
    clock += 30_000;
    assert.equal((await guesser.signIn('target')).statusCode, 303, 'after the wait, in');
    assert.equal(
      (await new ControlClient(t, '10.1.0.1').signIn('target', 'wrong password!!')).statusCode,
      401,
      'a right password cleared the key: its next failure is a free one again',
    );

    const ip = new ControlClient(t, '10.2.0.1');
    let byIp = 0;
    for (let i = 0; i < SIGN_IN_LIMITS.freePerAddress + 1; i++)
      byIp = (await ip.signIn(`someone${i}`, 'wrong password!!')).statusCode;
    assert.equal(byIp, 429, 'one address trying many usernames is throttled');
    assert.equal((await new ControlClient(t, '10.2.0.2').signIn('alice')).statusCode, 303, 'others are not');
    clock += IDLE_MS * 48;
  });

  test('a stranger cannot lock a superuser out: guesses from many addresses leave the user’s own sign-in open', async () => {
    await createUser(t, 'chief');
    for (let a = 1; a <= 4; a++) {
      const stranger = new ControlClient(t, `10.5.${a}.1`);
      for (let i = 0; i < SIGN_IN_LIMITS.freePerUsername + 2; i++) await stranger.signIn('chief', 'wrong password!!');
    }
    assert.equal((await new ControlClient(t, '10.5.99.1').signIn('chief')).statusCode, 303);
    clock += IDLE_MS * 48;
  });

  test('guesses sent at once are counted before any is checked', async () => {
    await createUser(t, 'rushed');
    const clients = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const c = new ControlClient(t, '10.4.0.1');
        await c.get('/control/sign-in');
        return c;
      }),
    );
    const codes = await Promise.all(
      clients.map(
        async (c) => (await c.post('/control/sign-in', { username: 'rushed', password: 'wrong!!!!!!!!' })).statusCode,
      ),
    );
    assert.equal(codes.filter((c) => c === 401).length, SIGN_IN_LIMITS.freePerUsername, codes.join(','));
    assert.equal(codes.filter((c) => c === 429).length, 12 - SIGN_IN_LIMITS.freePerUsername);
    clock += IDLE_MS * 48;
  });

  test('a tenant user signs in too', async () => {
    const c = await new ControlClient(t, '10.3.0.1').signedIn('desk');
    assert.match((await c.get('/control/requests')).body, /Signed in as desk/);
  });

  test('a field sent twice, even the right password twice, is refused like a wrong password and audited', async () => {
    // The form's schema takes one value a field; no browser repeats one. Once the first of
    // each counted, and this signed in.
    const c = new ControlClient(t, '10.3.0.9');
    await c.get('/control/sign-in');
    const twice = await c.post('/control/sign-in', { username: ['alice', 'alice'], password: [PASSWORD, PASSWORD] });
    assert.equal(twice.statusCode, 401, twice.body);
    assert.match(twice.body, /Wrong username or password/);
    assert.equal((await c.get('/control/requests')).statusCode, 303, 'not signed in');
    assert.deepEqual((await auditRows('sign_in'))[0], ['', 'refused', '10.3.0.9']);
    // The same client then signs in with one of each.
    assert.equal((await c.signIn('alice')).statusCode, 303);
  });
});
