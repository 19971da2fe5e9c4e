import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { migrate, repositories } from '../../src/db/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';

/**
 * Migration 0037 on a database as it was before roles: each user of one tenant becomes that
 * tenant's manager (nobody loses what they could do), a user without a tenant a superuser.
 */
describe(`migration 0037: back-office users become roles (${ENGINE})`, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase();
  });
  after(() => t.drop());

  test('tenant users become managers of their tenant; users without one, superusers', async () => {
    // The schema as 0036 left it: admin_users.tenant_id, no roles, no superuser column.
    for (const sql of [
      'DROP TABLE admin_user_roles',
      'ALTER TABLE admin_users DROP COLUMN superuser',
      'ALTER TABLE admin_users ADD COLUMN tenant_id uuid REFERENCES tenants (id) ON DELETE CASCADE',
      "DELETE FROM schema_migrations WHERE name = '0037_back_office_roles.sql'",
    ])
      await t.db.query(sql);
    const tenant = randomUUID();
    await t.db.query(`INSERT INTO tenants (id, name) VALUES ($1, 'Hôtel Ancien')`, [tenant]);
    const insert = (name: string, tenantId: string | null) =>
      t.db.query(`INSERT INTO admin_users (id, username, password_hash, tenant_id) VALUES ($1, $2, 'x', $3)`, [
        randomUUID(),
        name,
        tenantId,
      ]);
    await insert('desk', tenant);
    await insert('root', null);

    assert.deepEqual(await migrate(t.db), ['0037_back_office_roles.sql']);

    const repos = repositories(t.db);
    const desk = await repos.adminUsers.findByUsername('desk');
    const root = await repos.adminUsers.findByUsername('root');
    assert.equal(desk?.superuser, false);
    assert.equal(root?.superuser, true);
    const roles = await repos.adminUsers.roles({});
    assert.deepEqual(
      roles.map((r) => [r.username, r.tenant_id, r.role]),
      [['desk', tenant, 'manager']],
    );
    const session = await repos.adminUsers.findForSession(desk?.id ?? '');
    assert.deepEqual(
      session?.roles.map(({ tenant_id, tenant_name, role }) => ({ tenant_id, tenant_name, role })),
      [{ tenant_id: tenant, tenant_name: 'Hôtel Ancien', role: 'manager' }],
    );
    const columns = await t.db.query(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'admin_users' AND column_name = 'tenant_id'`,
    );
    assert.equal(columns.rows.length, 0, 'the old column is gone: nothing reads it by mistake');
  });
});
