import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/index.ts';
import { ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const PASSWORD = 'correct horse battery staple\n';

// `payreq admin create-user --tenant ID` without --role makes a manager of that tenant, as the
// command's documentation has always said; a --role given for each --tenant is kept.
describe(`payreq admin create-user: the role of a --tenant without --role (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const run = (argv: string[]) =>
    runCommand(argv, { config: t.config, db: t.db, repos: t.repos, app: t.app.payreq }, undefined, PASSWORD);
  const rolesOf = async (username: string) =>
    (
      await t.db.query<{ tenant_id: string; role: string }>(
        `SELECT r.tenant_id::text, r.role FROM admin_user_roles r JOIN admin_users u ON u.id = r.user_id
          WHERE u.username = $1 ORDER BY r.role`,
        [username],
      )
    ).rows;

  test('a --tenant alone makes a manager; pairs keep their roles; a mismatch is refused', async () => {
    const one = await run([
      'admin',
      'create-user',
      '--username',
      'gerante',
      '--password-stdin',
      '--tenant',
      t.tenant.tenantId,
    ]);
    assert.equal(one.exitCode, 0, one.stderr);
    assert.deepEqual(await rolesOf('gerante'), [{ tenant_id: t.tenant.tenantId, role: 'manager' }]);
    const other = await t.newTenant('Hôtel Second');
    const two = await run([
      'admin',
      'create-user',
      '--username',
      'reception',
      '--password-stdin',
      '--tenant',
      t.tenant.tenantId,
      '--role',
      'frontdesk',
      '--tenant',
      other.tenantId,
      '--role',
      'viewer',
    ]);
    assert.equal(two.exitCode, 0, two.stderr);
    assert.deepEqual(
      (await rolesOf('reception')).map((r) => r.role),
      ['frontdesk', 'viewer'],
    );
    const mismatch = await run([
      'admin',
      'create-user',
      '--username',
      'moitie',
      '--password-stdin',
      '--tenant',
      t.tenant.tenantId,
      '--tenant',
      other.tenantId,
      '--role',
      'viewer',
    ]);
    assert.equal(mismatch.exitCode, 1);
    assert.match(mismatch.stderr, /one --role per --tenant/);
    assert.deepEqual(await rolesOf('moitie'), [], 'nothing created');
  });
});
