import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../helpers/sandbox-checkout.ts';
import {
  createBody,
  createRequest,
  ENGINE,
  startTestApp,
  type TenantWithKey,
  type TestApp,
} from '../helpers/test-app.ts';
import { ControlClient, createUser } from './control-client.ts';

const DAY_MS = 86_400_000;

describe(`tenant settings and keys reach the API at once (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  before(async () => {
    // The longest key cache there is: a change seen within this test can only come from the
    // cache being told, never from an entry running out.
    t = await startTestApp({ env: { AUTH_CACHE_MS: '300000' } });
  });
  after(() => t.close());

  /** The link lifetime the API applies to a request created now with this key. */
  async function lifetimeDays(tenant: TenantWithKey): Promise<number> {
    const r = await createRequest(t, {}, tenant);
    const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${r.uuid}/`, tenant })).json();
    return Math.round((Date.parse(d.link_expires_at) - Date.parse(d.created_at)) / DAY_MS);
  }

  test('a change saved in the back office applies to the next API call', async () => {
    await createUser(t, 'manager', t.tenant.tenantId);
    const c = await new ControlClient(t).signedIn('manager');
    assert.equal(await lifetimeDays(t.tenant), 30, 'the default, now cached with the key');
    assert.equal((await c.get('/control/settings')).statusCode, 200);
    const saved = await c.post('/control/settings', {
      name: 'Hôtel des Tests',
      sender_email: '',
      confirmation_email: 'on',
      timezone: 'Europe/Paris',
      hold_days: '7',
      link_lifetime_days: '3',
      create_rate_limit: '',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(await lifetimeDays(t.tenant), 3);
  });

  test('a change written by another process or instance applies as soon as its notice arrives', async () => {
    const other = await t.newTenant('Hôtel Voisin');
    assert.equal(await lifetimeDays(other), 30);
    // Plain SQL on the database, as `payreq tenant update` run from a shell or a second
    // instance writes it: this service is not told, only the database's notice reaches it.
    await t.db.query('UPDATE tenants SET link_lifetime_days = 9 WHERE id = $1', [other.tenantId]);
    await eventually(
      async () => ((await lifetimeDays(other)) === 9 ? true : undefined),
      'the new link lifetime',
      5_000,
    );
    // One create a minute: this minute's creates are already past it.
    await t.db.query('UPDATE tenants SET create_rate_limit = 1 WHERE id = $1', [other.tenantId]);
    await eventually(
      async () => {
        const r = await t.call({ method: 'POST', url: '/api/payment-requests/', payload: createBody(), tenant: other });
        return r.statusCode === 429 ? true : undefined;
      },
      'the new create rate limit',
      5_000,
    );
  });

  test('a key revoked by another process is refused as soon as the notice arrives', async () => {
    const k = await t.newKey(t.tenant.tenantId);
    assert.equal((await t.call({ method: 'GET', url: '/api/payment-requests/', tenant: k })).statusCode, 200);
    await t.db.query("UPDATE api_keys SET status = 'revoked' WHERE prefix = $1", [k.prefix]);
    await eventually(
      async () =>
        (await t.call({ method: 'GET', url: '/api/payment-requests/', tenant: k })).statusCode === 403
          ? true
          : undefined,
      'the revoked key refused',
      5_000,
    );
  });

  test('a lost listening connection comes back and notices flow again', { skip: ENGINE !== 'postgres' }, async () => {
    const other = await t.newTenant('Hôtel Retour');
    assert.equal(await lifetimeDays(other), 30);
    const cut = await t.db.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN payreq_auth_changes'`,
    );
    assert.equal(cut.rows[0]?.n, 1, 'the listener was found and cut');
    await eventually(
      async () => {
        const r = await t.db.query("SELECT 1 FROM pg_stat_activity WHERE query = 'LISTEN payreq_auth_changes'");
        return r.rows.length > 0 ? true : undefined;
      },
      'the listener back',
      10_000,
    );
    await t.db.query('UPDATE tenants SET link_lifetime_days = 4 WHERE id = $1', [other.tenantId]);
    await eventually(async () => ((await lifetimeDays(other)) === 4 ? true : undefined), 'the new lifetime', 5_000);
  });
});
