import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

/**
 * The isolation matrix: a tenant user asking for another tenant's request, key or setting, by
 * a guessed URL or a posted form, gets a 404 and nothing changes. A superuser sees both.
 */
describe(`back office tenant isolation (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let other: TenantWithKey;
  let mine: ControlClient;
  let theirs: { uuid: string; reference: string };
  let held: { uuid: string; reference: string };
  before(async () => {
    t = await startTestApp();
    other = await t.newTenant('Hôtel Voisin');
    theirs = await createRequest(t, { guest_last_name: 'Voisin' }, other);
    held = await createRequest(t, { request_type: 'IMPRINT', amount: 90, guest_last_name: 'Voisin' }, other);
    await arrangeStatus(t.db, held.uuid, 'AUTHORISED_TO_VALIDATE');
    await createUser(t, 'mine', t.tenant.tenantId);
    await createUser(t, 'root');
    mine = await new ControlClient(t).signedIn('mine');
  });
  after(() => t.close());

  const snapshot = async () => {
    const r = await t.db.query(
      `SELECT (SELECT json_agg(p ORDER BY id) FROM (SELECT id, status, amount_captured, amount_refunded FROM payment_requests) p) AS requests,
              (SELECT json_agg(k ORDER BY prefix) FROM (SELECT prefix, status FROM api_keys) k) AS keys,
              (SELECT json_agg(x ORDER BY id) FROM (SELECT * FROM tenants) x) AS tenants,
              (SELECT count(*)::int FROM email_outbox) AS mails`,
    );
    return JSON.stringify(r.rows[0]);
  };

  test('pages of another tenant: 404, and its requests are not listed or found by search', async () => {
    for (const url of [
      `/control/requests/${theirs.uuid}`,
      `/control/requests/${held.uuid}/confirm?action=capture`,
      `/control/requests?tenant=${other.tenantId}`,
      `/control/keys?tenant=${other.tenantId}`,
      `/control/keys/${other.prefix}/confirm-revoke`,
      `/control/settings?tenant=${other.tenantId}`,
      `/control/audit?tenant=${other.tenantId}`,
    ]) {
      const r = await mine.get(url);
      assert.equal(r.statusCode, 404, `${url} answered ${r.statusCode}`);
      assert.ok(!r.body.includes('Voisin'), `${url} leaks nothing`);
    }
    // Superusers' pages: refused by role (a 403 naming it), and they leak nothing either.
    for (const url of ['/control/tenants', '/control/users', '/control/schedules']) {
      const r = await mine.get(url);
      assert.equal(r.statusCode, 403, `${url} answered ${r.statusCode}`);
      assert.match(r.body, /This needs the role “Superuser”/);
      assert.ok(!r.body.includes('Voisin'), `${url} leaks nothing`);
    }
    const list = await mine.get('/control/requests?q=voisin');
    assert.equal(list.statusCode, 200);
    assert.ok(!list.body.includes(theirs.reference) && !list.body.includes(held.reference));
  });

  test("forms posted at another tenant's request, key or settings: 404, nothing changes", async () => {
    await mine.get('/control/requests');
    const before = await snapshot();
    const posts: [string, Record<string, string | string[]>][] = [
      [`/control/requests/${held.uuid}/capture`, {}],
      [`/control/requests/${held.uuid}/release`, {}],
      [`/control/requests/${theirs.uuid}/cancel`, {}],
      [`/control/requests/${theirs.uuid}/delete`, {}],
      [`/control/requests/${theirs.uuid}/refund`, { amount: '1' }],
      [`/control/requests/${theirs.uuid}/resend`, { nonce: '6f1c1d1e-1111-4111-8111-111111111111' }],
      [`/control/keys/${other.prefix}/disable`, {}],
      [`/control/keys/${other.prefix}/revoke`, {}],
      ['/control/keys', { tenant: other.tenantId, label: 'intruder' }],
      [
        '/control/settings',
        { tenant: other.tenantId, name: 'Taken over', timezone: 'UTC', hold_days: '1', link_lifetime_days: '1' },
      ],
      ['/control/tenants', { name: 'Mine now', timezone: 'UTC' }],
      ['/control/users', { username: 'intruder', password: 'a long enough password', tenant: other.tenantId }],
      ['/control/team/grant', { tenant: other.tenantId, username: 'mine', role: 'manager' }],
    ];
    for (const [url, fields] of posts) {
      const r = await mine.post(url, fields);
      // Superusers' forms are refused by role (403); the rest as not found.
      const expected = url === '/control/tenants' || url === '/control/users' ? 403 : 404;
      assert.equal(r.statusCode, expected, `${url} answered ${r.statusCode}`);
    }
    assert.equal(await snapshot(), before, 'nothing changed');
    assert.equal(await t.repos.adminUsers.findByUsername('intruder'), undefined);
  });

  test('a superuser sees every tenant and may act on each', async () => {
    const root = await new ControlClient(t).signedIn('root');
    const list = await root.get('/control/requests?q=voisin');
    assert.ok(list.body.includes(theirs.reference) && list.body.includes('Hôtel Voisin'));
    assert.equal((await root.get(`/control/requests/${theirs.uuid}`)).statusCode, 200);
    assert.equal((await root.get(`/control/keys?tenant=${other.tenantId}`)).statusCode, 200);
    assert.equal((await root.get(`/control/settings?tenant=${other.tenantId}`)).statusCode, 200);
    assert.equal((await root.get('/control/requests?tenant=not-a-uuid')).statusCode, 404);
  });
});
