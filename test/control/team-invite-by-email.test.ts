import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sendDueEmails } from '../../src/mail/index.ts';
import { ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from '../mail/smtp-sink.ts';
import { ControlClient, createUser, PASSWORD } from './control-client.ts';

/**
 * A manager adds staff by e-mail only: the link goes through the outbox to a real SMTP server,
 * works once and expires; the invitee chooses their own username and password, or accepts
 * signed in as themselves. Over HTTP on the real app, read back from the database.
 */
describe(`team: invitations by e-mail (${ENGINE})`, { timeout: 240_000 }, () => {
  let t: TestApp;
  let smtp: SmtpSink;
  let other: TenantWithKey;
  let ip = 0;
  const client = () => new ControlClient(t, `10.9.0.${++ip}`);
  const roleOf = async (username: string, tenantId: string) => {
    const u = await t.repos.adminUsers.findByUsername(username);
    const [row] = u ? await t.repos.adminUsers.roles({ userId: u.id, tenantId }) : [];
    return row?.role ?? null;
  };
  /** The manager invites `email`; the link of the e-mail that arrived for it. */
  const invite = async (boss: ControlClient, email: string, role = 'frontdesk'): Promise<string> => {
    await boss.get('/control/team');
    const r = await boss.post('/control/team/invite', { email, role });
    assert.equal(r.statusCode, 303);
    await sendDueEmails(t.app.payreq);
    const mail = smtp.messages
      .filter((m) => m.envelopeTo.some((to) => to.toLowerCase() === email.toLowerCase()))
      .at(-1);
    assert.ok(mail, `an e-mail reached ${email}`);
    const link = /http:\/\/[^\s]+\/control\/join\/([A-Za-z0-9_-]{43})/.exec(mail.text);
    assert.ok(link?.[1], mail.text);
    return `/control/join/${link[1]}`;
  };

  before(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    other = await t.newTenant('Hôtel Voisin');
    await createUser(t, 'root');
    await createUser(t, 'boss', t.tenant.tenantId, 'manager');
    await createUser(t, 'otherboss', other.tenantId, 'manager');
    await createUser(t, 'roamer', other.tenantId, 'frontdesk');
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  test('the Team page answers alike for an address or a name known in another hotel and for one known nowhere', async () => {
    // Known elsewhere: the other hotel's contact address, and an address it invited itself.
    await t.db.query('UPDATE tenants SET contact_email = $2 WHERE id = $1', [other.tenantId, 'desk@voisin.example']);
    const otherBoss = await client().signedIn('otherboss');
    await invite(otherBoss, 'staff@voisin.example');
    const boss = await client().signedIn('boss');
    const answerFor = async (path: string, fields: Record<string, string>) => {
      await boss.get('/control/team');
      const r = await boss.post(path, fields);
      assert.equal(r.statusCode, 303);
      assert.equal(r.headers.location, '/control/team');
      // Only the CSRF tokens differ: what was typed appears nowhere in the answer.
      return (await boss.get('/control/team')).body.replaceAll(/value="[^"]{20,}"/g, 'value="TOKEN"');
    };
    const nowhere = await answerFor('/control/team/invite', { email: 'nobody@nowhere.example', role: 'viewer' });
    assert.match(nowhere, /Invitation sent/);
    for (const email of ['staff@voisin.example', 'desk@voisin.example'])
      assert.equal(await answerFor('/control/team/invite', { email, role: 'viewer' }), nowhere, email);
    const nameNowhere = await answerFor('/control/team/grant', { username: 'nobody-at-all', role: 'viewer' });
    for (const username of ['roamer', 'root', 'admin'])
      assert.equal(await answerFor('/control/team/grant', { username, role: 'viewer' }), nameNowhere, username);
    // The manager can no longer choose anyone's password: no such form, no such route.
    const page = await boss.get('/control/team');
    assert.doesNotMatch(page.body, /type="password"/);
    const made = await boss.post('/control/team/create', { username: 'direct', password: PASSWORD, role: 'viewer' });
    assert.equal(made.statusCode, 404);
    assert.equal(await t.repos.adminUsers.findByUsername('direct'), undefined);
    // Not an address: refused in words, nothing queued.
    const before = (await t.db.query('SELECT count(*)::int AS n FROM email_outbox')).rows[0];
    await boss.get('/control/team');
    await boss.post('/control/team/invite', { email: 'not an address', role: 'viewer' });
    assert.match((await boss.get('/control/team')).body, /Enter an e-mail address\./);
    assert.deepEqual((await t.db.query('SELECT count(*)::int AS n FROM email_outbox')).rows[0], before);
  });

  test('a new invitee chooses their own name and password; a taken name says only “cannot be chosen”; the link works once', async () => {
    const boss = await client().signedIn('boss');
    const link = await invite(boss, 'New.Hire@example.org');
    const visitor = client();
    const shown = await visitor.get(link);
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, /boss invites you to work at Hôtel des Tests as Front desk\./);
    // A name of another hotel, a superuser's and a free but invalid one: refused, none told apart.
    const answers: string[] = [];
    for (const username of ['roamer', 'root']) {
      const r = await visitor.post(link, { answer: 'create', username, password: PASSWORD });
      assert.equal(r.statusCode, 422);
      assert.match(r.body, /This username cannot be chosen: pick another\./);
      answers.push(r.body.replaceAll(/value="[^"]{20,}"/g, 'value="TOKEN"').replace(username, 'NAME'));
    }
    assert.equal(answers[0], answers[1], 'a hotel user and a superuser look alike');
    const short = await visitor.post(link, { answer: 'create', username: 'newhire', password: 'short' });
    assert.equal(short.statusCode, 422);
    assert.match(short.body, /at least 12 characters/);
    const made = await visitor.post(link, { answer: 'create', username: 'NewHire', password: PASSWORD });
    assert.equal(made.statusCode, 303);
    assert.equal(made.headers.location, '/control/sign-in');
    assert.equal(await roleOf('newhire', t.tenant.tenantId), 'frontdesk');
    assert.equal(await roleOf('newhire', other.tenantId), null);
    // Once: the same link again is gone, for a new name as for the page.
    assert.equal((await client().get(link)).statusCode, 404);
    const again = await visitor.post(link, { answer: 'create', username: 'second', password: PASSWORD });
    assert.equal(again.statusCode, 404);
    assert.equal(await t.repos.adminUsers.findByUsername('second'), undefined);
    const hire = await client().signedIn('newhire');
    assert.equal((await hire.get('/control/requests/new')).statusCode, 200);
    assert.equal((await hire.get('/control/team')).statusCode, 403);
    const audit = await t.db.query<{ action: string; username: string }>(
      `SELECT action, username FROM admin_audit WHERE target = 'newhire' ORDER BY id`,
    );
    assert.deepEqual(
      audit.rows.map((r) => [r.action, r.username]),
      [
        ['user_created', 'newhire'],
        ['invitation_accepted', 'newhire'],
      ],
    );
  });

  test('an existing user accepts signed in as themselves; a visitor signed out is asked to sign in', async () => {
    const boss = await client().signedIn('boss');
    const link = await invite(boss, 'roamer@example.org', 'viewer');
    const signedOut = await client().post(link, { answer: 'accept' });
    assert.ok([401, 403].includes(signedOut.statusCode), String(signedOut.statusCode));
    const roamer = await client().signedIn('roamer');
    const page = await roamer.get(link);
    assert.match(page.body, /Accept as roamer/);
    const accepted = await roamer.post(link, { answer: 'accept' });
    assert.equal(accepted.statusCode, 303);
    assert.equal(await roleOf('roamer', t.tenant.tenantId), 'viewer');
    assert.equal(await roleOf('roamer', other.tenantId), 'frontdesk', 'the other hotel’s role is untouched');
    assert.equal((await roamer.get(link)).statusCode, 404);
  });

  test('an expired link, a replaced link and one refused too many names are gone; of two uses at once one wins', async () => {
    const boss = await client().signedIn('boss');
    const expired = await invite(boss, 'late@example.org');
    await t.db.query(`UPDATE team_invitation_links SET expires_at = now() - interval '1 second' WHERE email = $1`, [
      'late@example.org',
    ]);
    assert.equal((await client().get(expired)).statusCode, 404);
    const first = await invite(boss, 'twice@example.org');
    const second = await invite(boss, 'twice@example.org');
    assert.equal((await client().get(first)).statusCode, 404, 'the newer invitation replaces the older');
    assert.equal((await client().get(second)).statusCode, 200);
    // A link is no tool to look names up: five taken names and it is spent.
    const prober = client();
    await prober.get(second);
    const codes: number[] = [];
    for (const username of ['roamer', 'root', 'boss', 'otherboss', 'roamer', 'root'])
      codes.push((await prober.post(second, { answer: 'create', username, password: PASSWORD })).statusCode);
    assert.deepEqual(codes, [422, 422, 422, 422, 404, 404]);
    // Two new accounts on one link at once: one is made.
    const race = await invite(boss, 'race@example.org');
    const a = client();
    const b = client();
    await a.get(race);
    await b.get(race);
    const results = await Promise.all([
      a.post(race, { answer: 'create', username: 'racer-a', password: PASSWORD }),
      b.post(race, { answer: 'create', username: 'racer-b', password: PASSWORD }),
    ]);
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [303, 404]);
    const made = await t.db.query(`SELECT count(*)::int AS n FROM admin_users WHERE username LIKE 'racer-%'`);
    assert.equal(made.rows[0]?.n, 1);
  });
});
