import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser, PASSWORD, withoutLabels } from './control-client.ts';

/**
 * The Team page (/control/team), the header's tenant switch and what a role shows: over HTTP on
 * the real app, each grant and revoke read back from the database and the audit.
 */
describe(`roles: the Team page and the tenant switch (${ENGINE})`, { timeout: 240_000 }, () => {
  let t: TestApp;
  let other: TenantWithKey;
  let ip = 0;
  const client = () => new ControlClient(t, `10.8.0.${++ip}`);
  const roleOf = async (username: string, tenantId: string) => {
    const u = await t.repos.adminUsers.findByUsername(username);
    const [row] = u ? await t.repos.adminUsers.roles({ userId: u.id, tenantId }) : [];
    return row?.role ?? null;
  };
  const lastAudit = async (action: string) =>
    (
      await t.db.query<{ username: string; target: string; outcome: string; detail: Record<string, unknown> }>(
        'SELECT username, target, outcome, detail FROM admin_audit WHERE action = $1 ORDER BY id DESC LIMIT 1',
        [action],
      )
    ).rows[0];

  before(async () => {
    t = await startTestApp();
    other = await t.newTenant('Hôtel Voisin');
    await createUser(t, 'root');
    await createUser(t, 'boss', t.tenant.tenantId, 'manager');
    await createUser(t, 'clerk', t.tenant.tenantId, 'viewer');
    await createUser(t, 'roamer', other.tenantId, 'frontdesk');
    await createRequest(t);
  });
  after(() => t.close());

  test('each role sees only the navigation it may use', async () => {
    const viewer = await client().signedIn('clerk');
    const page = await viewer.get('/control/requests');
    assert.match(page.body, /href="\/control\/requests"[^>]*>Payment requests/);
    for (const hidden of ['books', 'keys', 'settings', 'team', 'audit', 'tenants', 'users'])
      assert.doesNotMatch(page.body, new RegExp(`href="/control/${hidden}"`), hidden);
    assert.doesNotMatch(page.body, /href="\/control\/requests\/new"/, 'no New request for a viewer');
    assert.doesNotMatch(page.body, /name="action" value="capture"/, 'no bulk money buttons for a viewer');
    const manager = await client().signedIn('boss');
    const mine = await manager.get('/control/requests');
    for (const shown of ['books', 'keys', 'settings', 'team', 'audit'])
      assert.match(mine.body, new RegExp(`href="/control/${shown}"`), shown);
    assert.doesNotMatch(mine.body, /href="\/control\/tenants"/);
    assert.match(mine.body, /name="action" value="refund"/);
  });

  test('a manager invites an existing user: the role is theirs once they accept; then changed, removed; audited', async () => {
    const boss = await client().signedIn('boss');
    const roamer = await client().signedIn('roamer');
    assert.equal((await roamer.get(`/control/requests?tenant=${t.tenant.tenantId}`)).statusCode, 404);
    await boss.get('/control/team');
    const invited = await boss.post('/control/team/grant', { username: 'Roamer', role: 'viewer' });
    assert.equal(invited.statusCode, 303);
    assert.equal(invited.headers.location, '/control/team');
    assert.equal(await roleOf('roamer', t.tenant.tenantId), null, 'nobody is attached without consent');
    assert.deepEqual(await lastAudit('role_invited'), {
      username: 'boss',
      target: 'roamer',
      outcome: 'ok',
      detail: { role: 'viewer' },
    });
    assert.match((await boss.get('/control/team')).body, /Invitation recorded: if this name signs in to payreq/);

    // The invited user is told at sign-in, sees it, and alone answers it.
    const told = client();
    assert.equal((await told.signIn('roamer')).statusCode, 303);
    assert.match((await told.get('/control/requests')).body, /A hotel invites you to work there: see Invitations\./);
    const page = await roamer.get('/control/invitations');
    assert.match(page.body, /Hôtel des Tests, as Viewer|, as Viewer/);
    const accepted = await roamer.post('/control/invitations/answer', { tenant: t.tenant.tenantId, answer: 'accept' });
    assert.equal(accepted.statusCode, 303);
    assert.equal(await roleOf('roamer', t.tenant.tenantId), 'viewer');
    assert.equal(await roleOf('roamer', other.tenantId), 'frontdesk', 'the other tenant’s role is kept');
    assert.deepEqual(await lastAudit('invitation_accepted'), {
      username: 'roamer',
      target: 'roamer',
      outcome: 'ok',
      detail: { role: 'viewer' },
    });
    const again = await roamer.post('/control/invitations/answer', { tenant: t.tenant.tenantId, answer: 'accept' });
    assert.equal(again.statusCode, 303);
    assert.match((await roamer.get('/control/invitations')).body, /That invitation is no longer waiting\./);
    const team = await boss.get('/control/team');
    assert.match(team.body, /<th scope="row" data-label="Username">roamer<\/th>/);
    assert.doesNotMatch(team.body, /Hôtel Voisin/, 'another tenant’s roles are not shown');

    // Their home hotel stays theirs: the next sign-in lands there, and is filed under it.
    await client().signedIn('roamer');
    const signIn = await t.db.query<{ tenant_id: string | null }>(
      "SELECT tenant_id::text FROM admin_audit WHERE action = 'sign_in' AND username = 'roamer' ORDER BY id DESC LIMIT 1",
    );
    assert.equal(signIn.rows[0]?.tenant_id, other.tenantId, 'the sign-in is in the home hotel’s audit');
    assert.doesNotMatch((await boss.get('/control/audit')).body, /Signed in[^<]*roamer|roamer[^<]*Signed in/);

    const roamerId = (await t.repos.adminUsers.findByUsername('roamer'))?.id;
    await boss.get('/control/team');
    const changed = await boss.post(`/control/team/${roamerId}/role`, { role: 'frontdesk' });
    assert.equal(changed.statusCode, 303);
    assert.equal(await roleOf('roamer', t.tenant.tenantId), 'frontdesk');
    assert.deepEqual((await lastAudit('role_changed'))?.detail, { role: 'frontdesk', before: 'viewer' });

    await boss.get('/control/team');
    assert.equal((await boss.post(`/control/team/${roamerId}/remove`)).statusCode, 303);
    assert.equal(await roleOf('roamer', t.tenant.tenantId), null);
    assert.deepEqual((await lastAudit('role_revoked'))?.detail, { before: 'frontdesk' });
    // A user with no role on this tenant is not on its team: 404, nothing changes.
    await boss.get('/control/team');
    assert.equal((await boss.post(`/control/team/${roamerId}/role`, { role: 'manager' })).statusCode, 404);
    assert.equal(await roleOf('roamer', t.tenant.tenantId), null);
    // The audit page names these actions and roles in the page's language, never the code words.
    const audit = await boss.get('/control/audit');
    assert.match(audit.body, /Invited to work here/);
    assert.match(audit.body, /Invitation accepted/);
    assert.match(audit.body, /Role changed/);
    assert.match(audit.body, /Role removed/);
    assert.match(audit.body, /Role before: Front desk/);
    await boss.get('/control/language/fr');
    const fr = await boss.get('/control/audit');
    assert.match(fr.body, /Invitation acceptée/);
    assert.match(fr.body, /Rôle : Consultation|Rôle: Consultation/);
    assert.doesNotMatch(fr.body, /: viewer</);
    await boss.get('/control/language/en');
  });

  test('the invitation form answers alike for a name elsewhere, a superuser and a name nowhere; refusals in words', async () => {
    await createUser(t, 'elsewhere', other.tenantId, 'viewer');
    const boss = await client().signedIn('boss');
    /** The Team page after posting the form, with what differs by request (tokens, the name typed) taken out. */
    const answerFor = async (username: string) => {
      await boss.get('/control/team');
      const r = await boss.post('/control/team/grant', { username, role: 'viewer' });
      assert.equal(r.statusCode, 303);
      const page = await boss.get('/control/team');
      // Only the CSRF tokens differ: the name typed appears nowhere in the answer.
      return page.body.replaceAll(/value="[^"]{20,}"/g, 'value="TOKEN"');
    };
    const elsewhere = await answerFor('elsewhere');
    const nowhere = await answerFor('nobody-at-all');
    const superuser = await answerFor('root');
    assert.equal(elsewhere, nowhere, 'a name in another hotel and a name nowhere look alike');
    assert.equal(superuser, nowhere, 'a superuser looks like a name nowhere');
    assert.equal(await roleOf('elsewhere', t.tenant.tenantId), null, 'attached to nobody without consent');
    const cases: [Record<string, string>, RegExp][] = [
      [{ username: 'clerk', role: 'manager' }, /clerk already has a role here: change it in the list\./],
      [{ username: 'roamer', role: 'owner' }, /Choose a role\./],
      [{ username: 'roamer' }, /Choose a role\./],
    ];
    for (const [fields, message] of cases) {
      await boss.get('/control/team');
      assert.equal((await boss.post('/control/team/grant', fields)).statusCode, 303);
      assert.match((await boss.get('/control/team')).body, message);
    }
    assert.equal(await roleOf('clerk', t.tenant.tenantId), 'viewer');
    // The invited user may decline: nothing is granted.
    const invitee = await client().signedIn('elsewhere');
    await invitee.get('/control/invitations');
    const declined = await invitee.post('/control/invitations/answer', {
      tenant: t.tenant.tenantId,
      answer: 'decline',
    });
    assert.equal(declined.statusCode, 303);
    assert.equal(await roleOf('elsewhere', t.tenant.tenantId), null);
    assert.equal((await lastAudit('invitation_declined'))?.target, 'elsewhere');
  });

  test('a role changed or removed applies at the user’s next page', async () => {
    const boss = await client().signedIn('boss');
    const clerk = await client().signedIn('clerk');
    assert.equal((await clerk.get('/control/requests/new')).statusCode, 403);
    const clerkId = (await t.repos.adminUsers.findByUsername('clerk'))?.id;
    await boss.get('/control/team');
    await boss.post(`/control/team/${clerkId}/role`, { role: 'frontdesk' });
    assert.equal((await clerk.get('/control/requests/new')).statusCode, 200);
    await boss.get('/control/team');
    await boss.post(`/control/team/${clerkId}/remove`);
    const none = await clerk.get('/control/requests');
    assert.equal(none.statusCode, 403);
    assert.match(none.body, /You have no role at any hotel yet/);
    assert.equal((await clerk.get('/control/account')).statusCode, 200, 'their own account stays theirs');
    await t.repos.adminUsers.setRole(clerkId ?? '', t.tenant.tenantId, 'viewer');
  });

  test('the last manager cannot step down; with a second manager one can, and loses the Team page', async () => {
    const boss = await client().signedIn('boss');
    const bossId = (await t.repos.adminUsers.findByUsername('boss'))?.id;
    await boss.get('/control/team');
    for (const [path, fields] of [
      ['role', { role: 'viewer' }],
      ['remove', {}],
    ] as const) {
      assert.equal((await boss.post(`/control/team/${bossId}/${path}`, fields)).statusCode, 303);
      assert.match(
        (await boss.get('/control/team')).body,
        /You are the last manager of this hotel: make someone else manager before you step down\./,
      );
    }
    assert.equal(await roleOf('boss', t.tenant.tenantId), 'manager');
    assert.equal((await lastAudit('role_revoked'))?.outcome, 'refused');
    // A second manager: then two managers stepping down at once, one wins.
    await createUser(t, 'deputy', t.tenant.tenantId, 'manager');
    const deputy = await client().signedIn('deputy');
    const deputyId = (await t.repos.adminUsers.findByUsername('deputy'))?.id;
    await deputy.get('/control/team');
    await boss.get('/control/team');
    const [a, b] = await Promise.all([
      boss.post(`/control/team/${bossId}/role`, { role: 'frontdesk' }),
      deputy.post(`/control/team/${deputyId}/role`, { role: 'frontdesk' }),
    ]);
    assert.deepEqual([a.statusCode, b.statusCode], [303, 303]);
    const roles = [await roleOf('boss', t.tenant.tenantId), await roleOf('deputy', t.tenant.tenantId)].sort();
    assert.deepEqual(roles, ['frontdesk', 'manager'], 'exactly one stepped down');
    const stepped = roles[0] === (await roleOf('boss', t.tenant.tenantId)) ? boss : deputy;
    const refused = await stepped.get('/control/team');
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /This needs the role “Manager”\. Your role at Hôtel des Tests: Front desk\./);
  });

  test('a superuser manages any tenant’s team, named in the query', async () => {
    const root = await client().signedIn('root');
    const page = await root.get(`/control/team?tenant=${other.tenantId}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Team · Hôtel Voisin/);
    assert.match(page.body, /<th scope="row" data-label="Username">roamer<\/th>/);
    const roamerId = (await t.repos.adminUsers.findByUsername('roamer'))?.id;
    const r = await root.post(`/control/team/${roamerId}/role`, { tenant: other.tenantId, role: 'manager' });
    assert.equal(r.headers.location, `/control/team?tenant=${other.tenantId}`);
    assert.equal(await roleOf('roamer', other.tenantId), 'manager');
  });

  test('the superuser’s Users page creates a user with a role and lists everyone’s roles', async () => {
    const root = await client().signedIn('root');
    const page = await root.get('/control/users');
    assert.match(page.body, /<select id="u-role" name="role">/);
    const made = await root.post('/control/users', {
      username: 'nightdesk',
      password: PASSWORD,
      tenant: other.tenantId,
      role: 'frontdesk',
    });
    assert.equal(made.statusCode, 303);
    assert.equal(await roleOf('nightdesk', other.tenantId), 'frontdesk');
    const list = { body: withoutLabels((await root.get('/control/users')).body) };
    assert.match(list.body, /nightdesk<\/a><\/td><td>Hôtel Voisin: Front desk<\/td>/);
    assert.match(list.body, /root<\/a><\/td><td>superuser \(every hotel\)<\/td>/);
    assert.match((await root.get('/control/users/nightdesk')).body, /Hôtel Voisin: Front desk/);
  });

  test('a user of two hotels switches in the header; the session, not the URL, holds the hotel', async () => {
    await createUser(t, 'group', [
      { tenantId: t.tenant.tenantId, role: 'viewer' },
      { tenantId: other.tenantId, role: 'manager' },
    ]);
    const theirs = await createRequest(t, {}, other);
    const group = await client().signedIn('group');
    // First by name: "Hôtel Voisin" sorts before "Hôtel des Tests" (capitals first).
    const first = await group.get('/control/requests');
    assert.match(first.body, /<select id="tenant-switch" name="tenant">/);
    assert.match(first.body, /<option value="[^"]+" selected>Hôtel Voisin \(Manager\)<\/option>/);
    assert.equal((await group.get(`/control/requests/${theirs.uuid}`)).statusCode, 200);
    assert.equal((await group.get('/control/keys')).statusCode, 200);
    const switched = await group.post('/control/tenant', { tenant: t.tenant.tenantId });
    assert.equal(switched.statusCode, 303);
    const now = await group.get('/control/requests');
    assert.match(now.body, /You are now working on Hôtel des Tests\./);
    assert.equal((await group.get(`/control/requests/${theirs.uuid}`)).statusCode, 404, 'the other hotel is not named');
    assert.equal((await group.get('/control/keys')).statusCode, 403, 'a viewer here');
    // A hotel they hold no role on: refused, audited, nothing changes.
    const stranger = await t.newTenant('Hôtel Inconnu');
    await group.get('/control/requests');
    const refused = await group.post('/control/tenant', { tenant: stranger.tenantId });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /You have no role at that hotel\./);
    assert.equal((await lastAudit('tenant_switch_refused'))?.target, stranger.tenantId);
    assert.equal((await group.get('/control/keys')).statusCode, 403, 'still on Hôtel des Tests');
    // A hotel named twice (no page sends that) is no hotel: refused, its first not taken.
    await group.get('/control/requests');
    const twice = await group.post('/control/tenant', { tenant: [other.tenantId, other.tenantId] });
    assert.equal(twice.statusCode, 403, twice.body);
    assert.equal((await group.get('/control/keys')).statusCode, 403, 'still on Hôtel des Tests');
  });
});
