import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { adminUsers, checkPassword, SCRYPT, scryptParams } from '../../src/admin-users/index.ts';
import { PASSWORD_HASH_COST } from '../../src/config/index.ts';
import { AppError } from '../../src/domain/index.ts';
import { ControlClient, PASSWORD } from '../control/control-client.ts';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

/** A hash as the earlier code stored it: scrypt N=2^15, r=8, p=1. */
function oldHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFC'), salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${2 ** 15}$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

describe(`back-office passwords: today's cost, raised at sign-in, malformed hashes, weak passwords (${ENGINE})`, {
  timeout: 300_000,
}, () => {
  let t: TestApp;
  before(async () => {
    // Today's cost, production's: the hash is this file's subject (other tests run at the lowest).
    t = await startTestApp({ env: { PASSWORD_HASH_COST: String(PASSWORD_HASH_COST.production) } });
    await adminUsers(t.repos).create({ username: 'root', password: PASSWORD, tenantId: null });
  });
  after(() => t.close());

  const storedHash = async (username: string) =>
    (await t.db.query<{ h: string }>('SELECT password_hash AS h FROM admin_users WHERE username = $1', [username]))
      .rows[0]?.h ?? '';

  test('new passwords are hashed at N=2^17, r=8, p=1', async () => {
    assert.deepEqual(SCRYPT, { N: 2 ** 17, r: 8, p: 1 });
    assert.match(await storedHash('root'), /^scrypt\$131072\$8\$1\$/);
  });

  test('an old N=2^15 hash signs in, and is stored at the new cost; the password still works', async () => {
    const old = oldHash(PASSWORD);
    await t.repos.adminUsers.insert({ username: 'veteran', passwordHash: old, tenantId: null });
    await new ControlClient(t, '10.7.0.1').signedIn('veteran');
    const raised = await storedHash('veteran');
    assert.notEqual(raised, old);
    assert.match(raised, /^scrypt\$131072\$8\$1\$/);
    await new ControlClient(t, '10.7.0.2').signedIn('veteran');
    // A wrong password raises nothing.
    await t.repos.adminUsers.insert({ username: 'veteran2', passwordHash: old, tenantId: null });
    assert.equal((await new ControlClient(t, '10.7.0.3').signIn('veteran2', 'not the password')).statusCode, 401);
    assert.equal(await storedHash('veteran2'), old);
  });

  test("PASSWORD_HASH_COST is the cost new hashes are made at, and an app at today's raises a lower one at sign-in", async () => {
    assert.equal(t.config.passwordHashCost, 17);
    assert.deepEqual(scryptParams(PASSWORD_HASH_COST.production), SCRYPT);
    const cheap = scryptParams(PASSWORD_HASH_COST.lowest);
    await adminUsers(t.repos, cheap).create({ username: 'cheap', password: PASSWORD, tenantId: null });
    const low = await storedHash('cheap');
    assert.match(low, /^scrypt\$1024\$8\$1\$/);
    // At its own cost it is not raised; at today's it is.
    assert.deepEqual(await checkPassword(PASSWORD, low, cheap), { ok: true, needsRehash: false, malformed: false });
    assert.deepEqual(await checkPassword(PASSWORD, low), { ok: true, needsRehash: true, malformed: false });
    await new ControlClient(t, '10.7.3.1').signedIn('cheap');
    assert.match(await storedHash('cheap'), /^scrypt\$131072\$8\$1\$/);
  });

  test('a malformed stored hash is a refused sign-in, never a 500', async () => {
    const good = oldHash(PASSWORD).split('$');
    const malformed = [
      `scrypt$0$8$1$${good[4]}$${good[5]}`, // N not a power of two: scrypt would throw
      `scrypt$${2 ** 22}$8$1$${good[4]}$${good[5]}`, // beyond the memory allowed: scrypt would throw
      `scrypt$32768$8$1$${good[4]}$`, // no hash
      'scrypt$32768$8$1',
      'bcrypt$2b$10$abcdefghijklmnopqrstuv',
      '',
    ];
    for (const [i, hash] of malformed.entries()) {
      await t.repos.adminUsers.insert({ username: `broken${i}`, passwordHash: hash, tenantId: null });
      const r = await new ControlClient(t, `10.7.1.${i + 1}`).signIn(`broken${i}`);
      assert.equal(r.statusCode, 401, `${hash}: ${r.statusCode}`);
      assert.match(r.body, /Wrong username or password/);
    }
  });

  test('a short or common password is refused: by the service, the back-office form', async () => {
    const users = adminUsers(t.repos);
    for (const [password, message] of [
      ['short one', /at least 12 characters/],
      ['password1234', /most common passwords/],
      ['QWERTYUIOP12', /most common passwords/],
    ] as const) {
      await assert.rejects(
        users.create({ username: 'weak', password, tenantId: null }),
        (e: unknown) =>
          e instanceof AppError &&
          e.code === 'validation_failed' &&
          message.test(JSON.stringify(e.extra.details)) &&
          true,
      );
    }
    await assert.rejects(
      users.setPassword('root', '1q2w3e4r5t6y'),
      (e: unknown) => e instanceof AppError && e.code === 'validation_failed',
    );

    const c = await new ControlClient(t, '10.7.2.1').signedIn('root');
    await c.get('/control/users');
    const r = await c.post('/control/users', { username: 'weak', password: 'password1234', tenant: '' });
    assert.equal(r.statusCode, 422);
    assert.match(r.body, /Password: this is one of the most common passwords/);
    assert.equal((await t.repos.adminUsers.findByUsername('weak')) ?? null, null);
    assert.equal(
      await users.create({ username: 'strong', password: 'a passphrase of my own', tenantId: null }).then(() => 'ok'),
      'ok',
    );
  });
});
